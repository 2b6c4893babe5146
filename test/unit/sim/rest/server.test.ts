import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, FormData, request } from 'undici';
import { modulePackageBytes } from '../../../helpers/module-package.js';
import { ADMIN, EXPIRED, type SimFixture, startSim, VIEWER } from './fixture.js';

let agent: Agent;

// Response bodies are free-form JSON; the assertions check them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

async function call(
  sim: SimFixture,
  method: string,
  path: string,
  init: { auth?: string; json?: unknown; form?: FormData } = {},
): Promise<{ status: number; body: Json; headers: Record<string, unknown> }> {
  const headers: Record<string, string> = {};
  if (init.auth) headers.authorization = init.auth;
  let body: string | FormData | undefined;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  } else if (init.form) {
    body = init.form;
  }
  const res = await request(`${sim.url}${path}`, {
    method: method as 'GET',
    headers,
    body,
    dispatcher: agent,
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

const basic = (user: { username: string; password: string }) =>
  `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}`;

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}

describe('management API emulator, server 7.8.2 (Form A)', () => {
  let sim: SimFixture;
  before(async () => {
    sim = await startSim({ serverVersion: '7.8.2-6', dialect: 'redis' });
    agent = new Agent({ connect: { ca: sim.ca.certPem } });
  });
  after(async () => {
    await sim.close();
    await agent.close();
  });

  it('issues an HS256 JWT with iat, exp and uid for Basic credentials and a ttl body', async () => {
    const res = await call(sim, 'POST', '/v1/users/authorize', { auth: basic(ADMIN), json: { ttl: 600 } });
    assert.equal(res.status, 200);
    const token = res.body.access_token as string;
    const header = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8'));
    assert.deepEqual(header, { alg: 'HS256', typ: 'JWT' });
    const claims = claimsOf(token);
    assert.equal((claims.exp as number) - (claims.iat as number), 600);
    assert.equal(claims.uid, '1');
  });

  it('defaults the ttl to 300 when the body is omitted', async () => {
    const res = await call(sim, 'POST', '/v1/users/authorize', { auth: basic(ADMIN) });
    const claims = claimsOf(res.body.access_token);
    assert.equal((claims.exp as number) - (claims.iat as number), 300);
  });

  it('ignores credentials in the body (Form B) and answers 401', async () => {
    const res = await call(sim, 'POST', '/v1/users/authorize', { json: { ...ADMIN } });
    assert.equal(res.status, 401);
    assert.equal(typeof res.body.message, 'string');
  });

  for (const ttl of [0, -1, 86401, 1.5, 'abc']) {
    it(`refuses ttl ${JSON.stringify(ttl)} with 400`, async () => {
      const res = await call(sim, 'POST', '/v1/users/authorize', { auth: basic(ADMIN), json: { ttl } });
      assert.equal(res.status, 400);
      assert.equal(res.body.error_code, 'invalid_ttl');
    });
  }

  it('answers 401 for a wrong password and password_expired for an expired one', async () => {
    const wrong = await call(sim, 'POST', '/v1/users/authorize', {
      auth: basic({ ...ADMIN, password: 'nope' }),
    });
    assert.equal(wrong.status, 401);
    assert.notEqual(wrong.body.error_code, 'password_expired');
    const expired = await call(sim, 'POST', '/v1/users/authorize', { auth: basic(EXPIRED) });
    assert.equal(expired.status, 401);
    assert.equal(expired.body.error_code, 'password_expired');
  });

  it('refreshes a token with refresh_jwt and refuses a garbled one', async () => {
    const { body } = await call(sim, 'POST', '/v1/users/authorize', { auth: basic(ADMIN) });
    const refreshed = await call(sim, 'POST', '/v1/users/refresh_jwt', {
      auth: `JWT ${body.access_token}`,
      json: { ttl: 120 },
    });
    assert.equal(refreshed.status, 200);
    const claims = claimsOf(refreshed.body.access_token);
    assert.equal((claims.exp as number) - (claims.iat as number), 120);
    const bad = await call(sim, 'POST', '/v1/users/refresh_jwt', { auth: `JWT ${body.access_token}x` });
    assert.equal(bad.status, 401);
  });

  it('accepts Basic and JWT on other calls, and refuses none, Bearer, and rotated tokens', async () => {
    assert.equal((await call(sim, 'GET', '/v1/nodes', { auth: basic(ADMIN) })).status, 200);
    const { body } = await call(sim, 'POST', '/v1/users/authorize', { auth: basic(ADMIN) });
    assert.equal((await call(sim, 'GET', '/v1/nodes', { auth: `JWT ${body.access_token}` })).status, 200);
    assert.equal((await call(sim, 'GET', '/v1/nodes')).status, 401);
    assert.equal((await call(sim, 'GET', '/v1/nodes', { auth: `Bearer ${body.access_token}` })).status, 401);
    sim.model.rotateJwtSecret();
    const rotated = await call(sim, 'GET', '/v1/nodes', { auth: `JWT ${body.access_token}` });
    assert.equal(rotated.status, 401);
    assert.equal(typeof rotated.body.error_code, 'string');
  });

  it('refuses changes by a non-admin role with 403', async () => {
    const res = await call(sim, 'POST', '/v1/bdbs/1/upgrade', {
      auth: basic(VIEWER),
      json: { redis_version: '7.4' },
    });
    assert.equal(res.status, 403);
    assert.equal((await call(sim, 'GET', '/v1/bdbs', { auth: basic(VIEWER) })).status, 200);
  });

  it('answers each request by the permission its page names (rest-api/permissions.md)', async () => {
    const member = { username: 'member@example.com', password: 'CANARY-P@ss-member-4d1' };
    const manager = { username: 'manager@example.com', password: 'CANARY-P@ss-manager-6e2' };
    const rbac = { username: 'ops@example.com', password: 'CANARY-P@ss-ops-8a3' };
    sim.model.addRole('Upgraders', 'admin');
    sim.model.users.push(
      { uid: '90', ...member, role: 'db_member', passwordExpired: false },
      { uid: '91', ...manager, role: 'user_manager', passwordExpired: false },
      { uid: '92', ...rbac, role: 'none', roleNames: ['Upgraders'], passwordExpired: false },
    );
    try {
      // GET /v1/users: view_all_users_info (admin, user_manager); never a password.
      const users = await call(sim, 'GET', '/v1/users', { auth: basic(ADMIN) });
      assert.equal(users.status, 200);
      assert.doesNotMatch(JSON.stringify(users.body), /CANARY/);
      const ops = users.body.find((u: Json) => u.email === rbac.username);
      assert.equal(ops.role, undefined, 'an RBAC user has role_uids instead of role');
      const roles = await call(sim, 'GET', '/v1/roles', { auth: basic(VIEWER) });
      assert.equal(roles.status, 200, 'every role but none may list the roles');
      assert.equal(roles.body.find((r: Json) => r.uid === ops.role_uids[0]).management, 'admin');
      assert.equal((await call(sim, 'GET', '/v1/users', { auth: basic(manager) })).status, 200);
      for (const who of [VIEWER, member]) {
        assert.equal((await call(sim, 'GET', '/v1/users', { auth: basic(who) })).status, 403);
        assert.equal((await call(sim, 'GET', '/v1/users/1', { auth: basic(who) })).status, 403);
      }
      // POST /v1/bdbs/<uid>/upgrade: update_bdb_with_action (admin, cluster_member, db_member).
      const upgrade = (who: typeof ADMIN) =>
        call(sim, 'POST', '/v1/bdbs/1/upgrade', { auth: basic(who), json: { redis_version: '9.9' } });
      assert.equal((await upgrade(manager)).status, 403);
      // Past the permission, the version is judged (400): the request was allowed.
      assert.equal((await upgrade(member)).status, 400);
      // POST /v2/modules: update_cluster (admin only); the RBAC user's own role is admin.
      const upload = (who: typeof ADMIN) =>
        call(sim, 'POST', '/v2/modules', { auth: basic(who), json: { not: 'multipart' } });
      assert.equal((await upload(member)).status, 403);
      assert.equal((await upload(rbac)).status, 400);
    } finally {
      sim.model.users.splice(
        sim.model.users.findIndex((u) => u.uid === '90'),
        3,
      );
    }
  });

  it('a role limited to some databases (role resources, RS 8.2) is judged on the database a request names', async () => {
    // Roles take `resources` from RS 8.2 only (src/sim/rest/access.ts): a cluster of its own.
    const team = { username: 'team@example.com', password: 'CANARY-P@ss-team-3c9' };
    const rs82 = await startSim({ serverVersion: '8.2.0-46', dialect: 'redis' });
    try {
      rs82.model.addRole('Team', 'db_member', [1]);
      rs82.model.users.push({
        uid: '93',
        ...team,
        role: 'none',
        roleNames: ['Team'],
        passwordExpired: false,
      });
      const roles = await call(rs82, 'GET', '/v1/roles', { auth: basic(ADMIN) });
      assert.deepEqual(roles.body.find((r: Json) => r.name === 'Team').resources, [
        { type: 'db', uids: ['1'] },
      ]);
      const upgrade = (uid: number) =>
        call(rs82, 'POST', `/v1/bdbs/${uid}/upgrade`, { auth: basic(team), json: { redis_version: '9.9' } });
      assert.equal((await upgrade(1)).status, 400, 'allowed, then judged on its version');
      assert.equal((await upgrade(2)).status, 403);
      assert.equal((await call(rs82, 'GET', '/v1/bdbs/2', { auth: basic(team) })).status, 403);
      // "Users assigned a database-scoped role see only their authorized databases in ... REST API
      // responses, including database lists" (rs-8-2-0-25.md); an unlimited user sees all.
      const listed = async (who: typeof ADMIN) =>
        ((await call(rs82, 'GET', '/v1/bdbs', { auth: basic(who) })).body as Json[]).map((bdb) => bdb.uid);
      assert.deepEqual(await listed(team), [1]);
      assert.deepEqual(await listed(ADMIN), [1, 2]);
    } finally {
      await rs82.close();
    }
  });

  it('serves modules with platforms keyed like rhel9/x86_64 and bdbs with module_list', async () => {
    const modules = await call(sim, 'GET', '/v1/modules', { auth: basic(ADMIN) });
    const search = modules.body.find((m: Json) => m.module_name === 'search');
    assert.deepEqual(Object.keys(search.platforms), ['rhel8/x86_64']);
    assert.equal(search.semantic_version, '2.8.4');
    const bdbs = await call(sim, 'GET', '/v1/bdbs', { auth: basic(ADMIN) });
    assert.equal(bdbs.body.length, 2);
    assert.equal(bdbs.body[0].redis_version, '7.2');
    assert.equal(bdbs.body[0].module_list[0].module_name, 'search');
    assert.equal(bdbs.body[0].namespace, undefined);
    const one = await call(sim, 'GET', '/v1/bdbs/2', { auth: basic(ADMIN) });
    assert.equal(one.body.crdt, true);
    const missing = await call(sim, 'GET', '/v1/bdbs/99', { auth: basic(ADMIN) });
    assert.equal(missing.status, 404);
    assert.deepEqual(Object.keys(missing.body).sort(), ['error_code', 'message']);
  });

  it('upgrades a bdb with the redis dialect key and tracks it as an action', async () => {
    sim.model.actionDelayMs = undefined; // completes only when marked, like an operator would
    const wrongKey = await call(sim, 'POST', '/v1/bdbs/1/upgrade', {
      auth: basic(ADMIN),
      json: { engine_version: '7.4' },
    });
    assert.equal(wrongKey.status, 400);
    const res = await call(sim, 'POST', '/v1/bdbs/1/upgrade', {
      auth: basic(ADMIN),
      json: { redis_version: '7.4' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.uid, 1);
    const actionUid = res.body.action_uid as string;
    const pending = await call(sim, 'GET', `/v1/actions/${actionUid}`, { auth: basic(ADMIN) });
    assert.equal(pending.body.status, 'active');
    sim.model.completeAction(actionUid);
    const done = await call(sim, 'GET', `/v1/actions/${actionUid}`, { auth: basic(ADMIN) });
    assert.equal(done.body.status, 'completed');
    assert.equal(done.body.progress, 100);
    const bdb = await call(sim, 'GET', '/v1/bdbs/1', { auth: basic(ADMIN) });
    assert.equal(bdb.body.redis_version, '7.4');
    assert.equal((await call(sim, 'GET', '/v1/actions/nope', { auth: basic(ADMIN) })).status, 404);
    sim.model.actionDelayMs = 0;
  });

  it('takes a module upload as multipart field "module" and installs it asynchronously', async () => {
    const form = new FormData();
    form.append(
      'module',
      new Blob([modulePackageBytes({ module: 'search', version: '2.8.4' })]),
      'redisearch.Linux-rhel9-x86_64.2.8.4.zip',
    );
    const res = await call(sim, 'POST', '/v2/modules', { auth: basic(ADMIN), form });
    assert.equal(res.status, 200);
    assert.equal(res.body.module_name, 'search');
    assert.equal(typeof res.body.action_uid, 'string');
    assert.ok('rhel9/x86_64' in res.body.platforms);
    await call(sim, 'GET', `/v1/actions/${res.body.action_uid}`, { auth: basic(ADMIN) });
    const modules = await call(sim, 'GET', '/v1/modules', { auth: basic(ADMIN) });
    const search = modules.body.find((m: Json) => m.module_name === 'search');
    assert.deepEqual(Object.keys(search.platforms).sort(), ['rhel8/x86_64', 'rhel9/x86_64']);
    const again = await call(sim, 'POST', '/v2/modules', { auth: basic(ADMIN), form });
    assert.equal(again.status, 400);
    assert.equal(again.body.error_code, 'module_exists');
    const empty = await call(sim, 'POST', '/v2/modules', { auth: basic(ADMIN), form: new FormData() });
    assert.equal(empty.status, 400);
  });

  it('serves nodes and the cluster', async () => {
    const nodes = await call(sim, 'GET', '/v1/nodes', { auth: basic(ADMIN) });
    assert.equal(nodes.body.length, 3);
    assert.equal(nodes.body[0].software_version, '7.8.2-6');
    assert.ok(nodes.body[0].supported_database_versions.some((v: Json) => v.version === '7.4'));
    const cluster = await call(sim, 'GET', '/v1/cluster', { auth: basic(ADMIN) });
    assert.equal(cluster.body.name, 'rec');
    assert.match(cluster.body.created_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('audits every request with the user and whether it changed something', async () => {
    const before = sim.audit.entries.length;
    await call(sim, 'GET', '/v1/cluster', { auth: basic(ADMIN) });
    await call(sim, 'POST', '/v1/users/authorize', { auth: basic({ ...ADMIN, password: 'wrong' }) });
    const entries = sim.audit.entries.slice(before);
    assert.deepEqual(
      entries.map(({ api, method, path, status, user, mutating }) => ({
        api,
        method,
        path,
        status,
        user,
        mutating,
      })),
      [
        {
          api: 'rest',
          method: 'GET',
          path: '/v1/cluster',
          status: 200,
          user: ADMIN.username,
          mutating: false,
        },
        { api: 'rest', method: 'POST', path: '/v1/users/authorize', status: 401, user: '', mutating: true },
      ],
    );
  });
});

describe('management API emulator, server 7.4.6 (Form B)', () => {
  let sim: SimFixture;
  before(async () => {
    sim = await startSim({ serverVersion: '7.4.6-22', dialect: 'engine' });
    agent = new Agent({ connect: { ca: sim.ca.certPem } });
  });
  after(async () => {
    await sim.close();
    await agent.close();
  });

  it('takes username and password from the body', async () => {
    const res = await call(sim, 'POST', '/v1/users/authorize', { json: { ...ADMIN, ttl: 60 } });
    assert.equal(res.status, 200);
    const claims = claimsOf(res.body.access_token);
    assert.equal((claims.exp as number) - (claims.iat as number), 60);
  });

  it('answers 400 to the header form (no credentials in the body)', async () => {
    const res = await call(sim, 'POST', '/v1/users/authorize', { auth: basic(ADMIN), json: { ttl: 60 } });
    assert.equal(res.status, 400);
    assert.equal(typeof res.body.message, 'string');
  });

  it('reports password_expired for the body form too', async () => {
    const res = await call(sim, 'POST', '/v1/users/authorize', { json: { ...EXPIRED } });
    assert.equal(res.body.error_code, 'password_expired');
  });

  it('serves engine_version and expects it in upgrade bodies', async () => {
    const bdb = await call(sim, 'GET', '/v1/bdbs/1', { auth: basic(ADMIN) });
    assert.equal(bdb.body.engine_version, '7.2');
    assert.equal(bdb.body.redis_version, undefined);
    const wrong = await call(sim, 'POST', '/v1/bdbs/1/upgrade', {
      auth: basic(ADMIN),
      json: { redis_version: '7.2' },
    });
    assert.equal(wrong.status, 400);
    const unsupported = await call(sim, 'POST', '/v1/bdbs/1/upgrade', {
      auth: basic(ADMIN),
      json: { engine_version: '9.9' },
    });
    assert.equal(unsupported.status, 400);
    const res = await call(sim, 'POST', '/v1/bdbs/1/upgrade', {
      auth: basic(ADMIN),
      json: { engine_version: '7.2' },
    });
    assert.equal(res.status, 200);
    assert.equal(typeof res.body.action_uid, 'string');
  });
});

describe('management API emulator, faults', () => {
  let sim: SimFixture;
  before(async () => {
    sim = await startSim({
      faults: [
        { match: 'POST /v1/bdbs/*/upgrade', status: 503, times: 2, retryAfter: 1 },
        { match: 'GET /v1/cluster', kind: 'reset', times: 1 },
        { match: 'GET /v1/nodes', kind: 'delay', delayMs: 50, times: 1 },
      ],
    });
    agent = new Agent({ connect: { ca: sim.ca.certPem } });
  });
  after(async () => {
    await sim.close();
    await agent.close();
  });

  it('answers the first two upgrades with 503 and Retry-After, before authentication, then handles them', async () => {
    const first = await call(sim, 'POST', '/v1/bdbs/1/upgrade', {
      auth: basic(ADMIN),
      json: { engine_version: '7.4' },
    });
    assert.equal(first.status, 503);
    assert.equal(first.headers['retry-after'], '1');
    const second = await call(sim, 'POST', '/v1/bdbs/1/upgrade', { json: {} });
    assert.equal(second.status, 503);
    const third = await call(sim, 'POST', '/v1/bdbs/1/upgrade', {
      auth: basic(ADMIN),
      json: { engine_version: '7.4' },
    });
    assert.equal(third.status, 200);
    assert.deepEqual(
      sim.audit.filter('POST', '/v1/bdbs/*/upgrade').map((e) => e.status),
      [503, 503, 200],
    );
  });

  it('drops the connection for a reset fault', async () => {
    await assert.rejects(call(sim, 'GET', '/v1/cluster', { auth: basic(ADMIN) }));
    assert.equal((await call(sim, 'GET', '/v1/cluster', { auth: basic(ADMIN) })).status, 200);
    assert.deepEqual(sim.server.faults.firedCounts, [2, 1, 0]);
  });

  it('delays a request, then handles it normally', async () => {
    const res = await call(sim, 'GET', '/v1/nodes', { auth: basic(ADMIN) });
    assert.equal(res.status, 200);
    assert.deepEqual(sim.server.faults.firedCounts, [2, 1, 1]);
  });
});
