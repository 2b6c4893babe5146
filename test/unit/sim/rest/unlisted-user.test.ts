import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RestModel } from '../../../../src/sim/rest/model.js';
import { parseScenario } from '../../../../src/sim/scenario.js';
import { getAs } from './in-process.js';

/**
 * A user who signs in but is no user object (scenario `cluster.users[].listed: false`), as an
 * LDAP user is (redis/docs rs/security/access-control/ldap: its groups are mapped to roles at
 * sign-in): its role decides what it may do, and GET /v1/users does not list it.
 */

const ADMIN = { username: 'admin@example.com', password: 'CANARY-P@ss-listed-4a1' };
const LDAP = { username: 'ldap-ops@example.com', password: 'CANARY-P@ss-ldap-8c2' };
const get = getAs;

describe('simulated management API: a user the users list does not show', () => {
  const model = () =>
    new RestModel({
      serverVersion: '7.22.2-179',
      users: [
        { ...ADMIN, role: 'admin' },
        { ...LDAP, role: 'admin', listed: false },
      ],
      bdbs: [{ name: 'db1', version: '7.2' }],
    });

  it('signs in with its role, and neither GET /v1/users nor /v1/users/<uid> shows it', async () => {
    const m = model();
    const users = await get(m, '/v1/users', LDAP);
    assert.equal(users.status, 200, 'an admin may list the users');
    assert.deepEqual(
      (users.body as { email: string }[]).map((user) => user.email),
      [ADMIN.username],
    );
    assert.equal((await get(m, '/v1/users/2', ADMIN)).status, 404);
    assert.equal((await get(m, '/v1/users/1', LDAP)).status, 200);
    assert.equal((await get(m, '/v1/bdbs', LDAP)).status, 200);
  });

  it('is the scenario key cluster.users[].listed (absent: listed)', () => {
    const scenario = parseScenario(
      [
        'name: ldap',
        'description: an LDAP user',
        'operator: { version: 7.22.2-43 }',
        'cluster:',
        '  users:',
        '    - {username: ldap-ops@example.com, role: cluster_viewer, listed: false}',
        '    - {username: admin@example.com}',
        '',
      ].join('\n'),
      'ldap.yaml',
    );
    assert.equal(scenario.cluster.users[0]?.listed, false);
    assert.equal(scenario.cluster.users[1]?.listed, undefined);
  });
});
