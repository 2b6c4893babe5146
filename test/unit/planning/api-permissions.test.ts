import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OwnRole } from '../../../src/api/own-role.js';
import { readOwnRole } from '../../../src/api/own-role.js';
import type { HttpRequest, HttpResponse } from '../../../src/api/http.js';
import {
  type ApiChangeNeed,
  judgeApiPermissions,
  mayMake,
} from '../../../src/planning/checks/api-permissions.js';
import { runChecks } from '../../../src/planning/checks/index.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

const read = (...managements: string[]): OwnRole => ({
  kind: 'read',
  roles: managements.map((management) => ({ management })),
  credentialsFrom: 'Secret rec',
});
const NOT_ADMIN: OwnRole = { kind: 'not-admin', credentialsFrom: 'CTL_USERNAME' };
const UNKNOWN: OwnRole = { kind: 'unknown', why: 'an LDAP user' };

const upload: ApiChangeNeed = { change: 'upload-module', certainty: 'will' };
const upgradeWill: ApiChangeNeed = {
  change: 'upgrade-database',
  certainty: 'will',
  databases: [{ uid: 3, name: 'legacy' }],
};
const upgradeMay: ApiChangeNeed = { change: 'upgrade-database', certainty: 'may' };

describe('api-permissions: may the user make a change (permissions.md)', () => {
  const table: [string, ApiChangeNeed, OwnRole | undefined, string][] = [
    ['admin uploads', upload, read('admin'), 'yes'],
    ['cluster_member may not upload (update_cluster: admin only)', upload, read('cluster_member'), 'no'],
    ['db_viewer may not upload', upload, read('db_viewer'), 'no'],
    ['user_manager may not upload', upload, read('user_manager'), 'no'],
    ['not an admin (users list refused): no upload', upload, NOT_ADMIN, 'no'],
    ['role unknown: cannot tell', upload, UNKNOWN, 'unknown'],
    ['no role read at all: cannot tell', upload, undefined, 'unknown'],
    ['db_member upgrades a database', upgradeWill, read('db_member'), 'yes'],
    ['cluster_member upgrades a database', upgradeWill, read('cluster_member'), 'yes'],
    ['cluster_viewer may not upgrade', upgradeWill, read('cluster_viewer'), 'no'],
    ['user_manager may not upgrade (update_bdb_with_action)', upgradeWill, read('user_manager'), 'no'],
    ['not an admin: a member could, a viewer not', upgradeWill, NOT_ADMIN, 'unknown'],
    ['several roles: the union', upload, read('db_viewer', 'admin'), 'yes'],
  ];
  for (const [name, need, user, expected] of table) {
    it(name, () => assert.equal(mayMake(need, user), expected));
  }

  it('a db_member role limited to some databases (role resources) covers only those', () => {
    const scoped = (uids: number[]): OwnRole => ({
      kind: 'read',
      roles: [{ management: 'db_member', name: 'Team', databases: uids }],
    });
    assert.equal(mayMake(upgradeWill, scoped([3, 4])), 'yes');
    assert.equal(mayMake(upgradeWill, scoped([4])), 'no');
    assert.equal(mayMake(upgradeMay, scoped([4])), 'unknown');
  });
});

describe('api-permissions: the decision table', () => {
  it('no change through the API (no --remediate): pass whatever the role', () => {
    for (const user of [read('db_viewer'), NOT_ADMIN, UNKNOWN, undefined]) {
      const outcome = judgeApiPermissions([], user, 'rec');
      assert.equal(outcome.status, 'pass');
      assert.match(outcome.message, /changes nothing through the management API/);
    }
  });

  it('a change the run will make and the read role denies: a firm fail naming the role and what to do', () => {
    const outcome = judgeApiPermissions([upload], read('cluster_viewer'), 'rec');
    assert.equal(outcome.status, 'fail');
    assert.equal(outcome.ignorable, false);
    assert.match(
      outcome.message,
      /upload the --module-file package\(s\) \(POST \/v2\/modules, permission update_cluster\)/,
    );
    assert.match(outcome.message, /from Secret rec\) may not: its role is cluster_viewer/);
    assert.match(outcome.fix, /management role admin/);
    assert.match(outcome.fix, /CTL_USERNAME and CTL_PASSWORD/);
    assert.match(outcome.fix, /Secret rec/);
    assert.match(outcome.fix, /Or run without --remediate/);
  });

  it('denied by inference (GET /v1/users refused): a fail --ignore-check may pass', () => {
    const outcome = judgeApiPermissions([upload], NOT_ADMIN, 'rec');
    assert.equal(outcome.status, 'fail');
    assert.equal(outcome.ignorable, undefined);
    assert.match(outcome.message, /it is no admin \(GET \/v1\/users answered 403/);
    assert.match(outcome.fix, /the Secret rec holds the admin the operator created/);
  });

  it('a database upgrade the run will make, for a user whose role it cannot tell: warn with the roles that may', () => {
    const outcome = judgeApiPermissions([upgradeWill], NOT_ADMIN, 'rec');
    assert.equal(outcome.status, 'warn');
    assert.match(outcome.message, /upgrade legacy \(uid 3\)/);
    assert.match(outcome.fix, /POST \/v1\/bdbs\/<uid>\/upgrade needs admin, cluster_member, db_member/);
    assert.match(outcome.fix, /\(admin, cluster_member or db_member\)/);
  });

  it('a change the run may make (freeze not foreseen) that the role denies: warn', () => {
    const outcome = judgeApiPermissions([upgradeMay], read('db_viewer'), 'rec');
    assert.equal(outcome.status, 'warn');
    assert.match(outcome.message, /--remediate could not lift a freeze the plan does not foresee/);
  });

  it('a change it may make, the role unknown: pass, saying so', () => {
    const outcome = judgeApiPermissions([upgradeMay], UNKNOWN, 'rec');
    assert.equal(outcome.status, 'pass');
    assert.match(outcome.message, /only if the upgrade freezes unforeseen/);
  });

  it('every change allowed: pass', () => {
    const outcome = judgeApiPermissions([upload, upgradeWill], read('admin'), 'rec');
    assert.equal(outcome.status, 'pass');
    assert.match(outcome.message, /may upload .*: its role is admin$/);
  });

  it('the worst wins: one change denied fails even when another is allowed', () => {
    const outcome = judgeApiPermissions([upload, upgradeWill], read('db_member'), 'rec');
    assert.equal(outcome.status, 'fail');
    assert.match(outcome.message, /POST \/v2\/modules/);
    assert.doesNotMatch(outcome.message, /bdbs/);
  });
});

describe("api-permissions: the changes a plan's run makes", () => {
  const check = (mutate: (s: Snapshot) => void, remediate?: { moduleFiles: number }, to = '7.8.2-6') =>
    runChecks(
      makeSnapshot(mutate),
      { ...makeTarget({ to }), ...(remediate ? { remediate } : {}) },
      {
        required: REQUIRED_PERMISSIONS,
      },
    ).find((c) => c.id === 'api-permissions');

  it('without --remediate nothing, even for a viewer', () => {
    const result = check((s) => {
      s.api.user = read('db_viewer');
    });
    assert.equal(result?.status, 'pass');
  });

  it('--remediate --module-file on a RHEL9 target that takes uploads: the upload, denied to a viewer', () => {
    const result = check(
      (s) => {
        s.api.user = read('db_viewer');
      },
      { moduleFiles: 1 },
    );
    assert.equal(result?.status, 'fail');
  });

  it('--remediate with a database below the minimum: its upgrade, allowed to a db_member', () => {
    const result = check(
      (s) => {
        s.api.user = read('db_member');
        for (const bdb of s.api.bdbs) bdb.redis_version = '6.2';
      },
      { moduleFiles: 0 },
    );
    assert.equal(result?.status, 'pass');
    assert.match(result?.message ?? '', /may upgrade/);
  });

  it('--remediate for a target that cannot freeze: nothing', () => {
    const result = check(
      (s) => {
        s.api.user = read('db_viewer');
      },
      { moduleFiles: 1 },
      '7.4.6-2',
    );
    assert.equal(result?.status, 'pass');
  });
});

describe('readOwnRole (GET /v1/users, GET /v1/roles)', () => {
  const reader = (answers: Record<string, HttpResponse>) => {
    const asked: string[] = [];
    return {
      asked,
      call: (request: HttpRequest) => {
        asked.push(`${request.method} ${request.path}`);
        return Promise.resolve(answers[request.path] ?? { status: 404, headers: {}, body: {} });
      },
    };
  };
  const ok = (body: unknown): HttpResponse => ({ status: 200, headers: {}, body });

  it('finds itself by email (any case) and reads `role`', async () => {
    const api = reader({
      '/v1/users': ok([
        { uid: 1, email: 'other@example.com', role: 'db_viewer' },
        { uid: 2, email: 'Admin@Example.com', role: 'admin' },
      ]),
    });
    assert.deepEqual(await readOwnRole(api, 'admin@example.com'), {
      kind: 'read',
      roles: [{ management: 'admin' }],
    });
    assert.deepEqual(api.asked, ['GET /v1/users']);
  });

  it('role_uids: each role by uid from GET /v1/roles, with its name and database scope', async () => {
    const api = reader({
      '/v1/users': ok([{ uid: 2, email: 'ops@example.com', role_uids: [17] }]),
      '/v1/roles': ok([
        { uid: 1, name: 'Admin', management: 'admin' },
        { uid: 17, name: 'DBA', management: 'db_member', resources: [{ type: 'db', uids: ['1', '2'] }] },
      ]),
    });
    assert.deepEqual(await readOwnRole(api, 'ops@example.com'), {
      kind: 'read',
      roles: [{ management: 'db_member', name: 'DBA', databases: [1, 2] }],
    });
  });

  it('403 on the users list: not an admin; anything else: unknown, with why', async () => {
    assert.deepEqual(
      await readOwnRole(reader({ '/v1/users': { status: 403, headers: {}, body: {} } }), 'x@example.com'),
      { kind: 'not-admin' },
    );
    const missing = await readOwnRole(reader({ '/v1/users': ok([]) }), 'x@example.com');
    assert.equal(missing.kind, 'unknown');
    assert.match(missing.kind === 'unknown' ? missing.why : '', /LDAP/);
    // Listed users were shown: the user may view them all (what a capture rebuilds).
    assert.equal(missing.kind === 'unknown' && missing.unlisted, true);
    const broken = await readOwnRole(reader({ '/v1/users': ok('<html>') }), 'x@example.com');
    assert.equal(broken.kind, 'unknown');
    assert.equal(broken.kind === 'unknown' && broken.unlisted, undefined);
  });

  it('keeps no other user: only its own roles come back', async () => {
    const api = reader({
      '/v1/users': ok([
        { uid: 1, email: 'secret-person@example.com', role: 'admin', name: 'Secret Person' },
        { uid: 2, email: 'me@example.com', role: 'db_viewer' },
      ]),
    });
    assert.doesNotMatch(JSON.stringify(await readOwnRole(api, 'me@example.com')), /secret-person/i);
  });
});
