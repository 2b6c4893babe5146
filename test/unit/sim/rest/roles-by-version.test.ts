import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RestModel, type UserSpec } from '../../../../src/sim/rest/model.js';
import { parseScenario } from '../../../../src/sim/scenario.js';
import { ScenarioError } from '../../../../src/sim/world/errors.js';
import { getAs } from './in-process.js';

/**
 * The simulated management API's roles follow the RS the cluster runs (src/sim/rest/access.ts):
 * user_manager from RS 7.8.2 (redis/docs rs-7-8-2-34.md "A new User Manager role"; none in the
 * 7.4 permissions.md), a role's `resources` from RS 8.2 (rs-8-2-0-25.md "Database-scoped
 * management roles"), and a scenario that asks for either on an older RS is refused.
 */

const ADMIN = { username: 'admin@example.com', password: 'CANARY-P@ss-roles-1f4' };
const MANAGER = { username: 'manager@example.com', password: 'CANARY-P@ss-roles-9b2' };
const get = (m: RestModel, path: string, as = ADMIN) => getAs(m, path, as);

function model(serverVersion: string, users: UserSpec[] = []): RestModel {
  return new RestModel({ serverVersion, users: [{ ...ADMIN, role: 'admin' }, ...users] });
}

const managements = async (m: RestModel) =>
  ((await get(m, '/v1/roles')).body as { management: string }[]).map((role) => role.management);

describe('simulated management API: the role table by RS version', () => {
  it('RS 7.4 lists no User Manager role; RS 7.8.2 and later do, also after an upgrade into 7.8', async () => {
    assert.deepEqual(await managements(model('7.4.6-22')), [
      'admin',
      'cluster_member',
      'cluster_viewer',
      'db_member',
      'db_viewer',
      'none',
    ]);
    for (const version of ['7.8.2-6', '7.22.2-179', '8.2.0-46'])
      assert.ok((await managements(model(version))).includes('user_manager'), version);
    const upgraded = model('7.4.6-22');
    upgraded.setServerVersion('7.8.6-315');
    assert.ok((await managements(upgraded)).includes('user_manager'));
  });

  it('user_manager grants the users list from RS 7.8.2 on, and nothing before', async () => {
    const manager = { ...MANAGER, role: 'user_manager' };
    assert.equal((await get(model('7.8.2-6', [manager]), '/v1/users', MANAGER)).status, 200);
    // Only a model built by hand can hold it on 7.4: a scenario cannot (below).
    const old = model('7.4.6-22', [manager]);
    assert.equal((await get(old, '/v1/users', MANAGER)).status, 403);
    assert.equal((await get(old, '/v1/cluster', MANAGER)).status, 403);
  });
});

describe('scenario: roles the cluster RS lacks are errors', () => {
  const scenario = (operator: string, tag: string, cluster: string[]) =>
    [
      'name: roles',
      'description: roles by version',
      `operator: { version: ${operator} }`,
      'cluster:',
      `  versionTag: ${tag}`,
      ...cluster.map((line) => `  ${line}`),
      '',
    ].join('\n');
  const rs74 = (...cluster: string[]) => scenario('7.4.6-2', '7.4.6-22', cluster);
  const rs80 = (...cluster: string[]) => scenario('8.0.20-26', '8.0.20-96.26', cluster);
  const rs82 = (...cluster: string[]) => scenario('8.2.0-13', '8.2.0-46.13', cluster);

  function refusal(text: string): string {
    try {
      parseScenario(text, 'roles.yaml');
    } catch (error) {
      assert.ok(error instanceof ScenarioError, String(error));
      return error.message;
    }
    return assert.fail('the scenario was accepted');
  }

  it('user_manager before RS 7.8.2: as a role, a built-in role name, or a role of the cluster', () => {
    assert.match(
      refusal(rs74('users: [{username: m@example.com, role: user_manager}]')),
      /^roles\.yaml: cluster\.users\[0\]\.role: Redis Software before 7\.8\.2 has no management role user_manager \(it came with 7\.8\.2-34\): this cluster runs 7\.4\.6-22 \(cluster\.apiVersion\)/,
    );
    assert.match(
      refusal(rs74('users: [{username: m@example.com, roles: [DB Viewer, User Manager]}]')),
      /cluster\.users\[0\]\.roles\[1\]: no built-in role "User Manager": Redis Software before 7\.8\.2/,
    );
    assert.match(
      refusal(rs74('roles: [{name: Helpdesk, management: user_manager}]')),
      /cluster\.roles\[0\]\.management: Redis Software before 7\.8\.2 has no management role user_manager/,
    );
    const taken = parseScenario(
      scenario('7.8.2-6', '7.8.2-34', ['users: [{username: m@example.com, role: user_manager}]']),
      'ok.yaml',
    );
    assert.equal(taken.cluster.users[0]?.role, 'user_manager');
  });

  it('a role limited to databases before RS 8.2, or on a role that is not db_member or db_viewer', () => {
    const team = (management: string) =>
      `roles: [{name: Team, management: ${management}, databases: [cache]}]`;
    assert.match(
      refusal(rs80(team('db_member'))),
      /cluster\.roles\[0\]\.databases: a role limited to some databases \(the role's resources\) needs Redis Software 8\.2 or later: this cluster runs 8\.0\.20-96/,
    );
    assert.match(
      refusal(rs82(team('cluster_member'))),
      /cluster\.roles\[0\]\.databases: only a db_member or db_viewer role can be limited to some databases, not cluster_member/,
    );
    assert.deepEqual(parseScenario(rs82(team('db_viewer')), 'ok.yaml').cluster.roles[0]?.databases, [
      'cache',
    ]);
  });
});
