import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authorize, refreshToken } from '../../../src/api/authorize.js';
import { ApiClient } from '../../../src/api/client.js';
import { HttpClient } from '../../../src/api/http.js';
import { TokenSource } from '../../../src/api/token-source.js';
import { bdbVersion } from '../../../src/api/types.js';
import { AuthError, OperationError } from '../../../src/errors.js';
import { ADMIN, type SimFixture, startSim, VIEWER } from '../sim/rest/fixture.js';
import { fakeJwt, scriptedHttp } from './scripted-http.js';
import { modulePackageBytes } from '../../helpers/module-package.js';

function clientFor(sim: SimFixture, user = ADMIN, ttl = 300): { client: ApiClient; http: HttpClient } {
  const http = new HttpClient({ baseUrl: sim.url, ca: sim.ca.certPem });
  const tokens = new TokenSource({
    obtain: () => authorize(http, user, { ttl, form: 'auto' }),
    refresh: (current) => refreshToken(http, current, {}),
  });
  return { client: new ApiClient(http, tokens, user.username), http };
}

describe('ApiClient against the emulator', () => {
  let sim: SimFixture;
  let client: ApiClient;
  let http: HttpClient;
  before(async () => {
    sim = await startSim({ serverVersion: '8.0.22-10', dialect: 'redis' });
    ({ client, http } = clientFor(sim));
  });
  after(async () => {
    await http.close();
    await sim.close();
  });

  it('presents "Authorization: JWT <token>" and signs in only once for many calls', async () => {
    const before = sim.audit.entries.length;
    await Promise.all([client.listNodes(), client.listBdbs(), client.getCluster(), client.listModules()]);
    const entries = sim.audit.entries.slice(before);
    assert.equal(entries.filter((e) => e.path === '/v1/users/authorize').length, 1);
    assert.ok(entries.every((e) => e.status === 200 && e.user === ADMIN.username));
  });

  it('signs in again once after the secret rotates (upgrade to 8.0.22+), for ten concurrent calls', async () => {
    await client.listNodes();
    sim.model.rotateJwtSecret();
    const before = sim.audit.entries.length;
    const results = await Promise.all(Array.from({ length: 10 }, () => client.listNodes()));
    assert.equal(results.length, 10);
    const entries = sim.audit.entries.slice(before);
    assert.equal(entries.filter((e) => e.path === '/v1/users/authorize').length, 1);
    assert.equal(entries.filter((e) => e.path === '/v1/nodes' && e.status === 401).length, 10);
    assert.equal(entries.filter((e) => e.path === '/v1/nodes' && e.status === 200).length, 10);
  });

  it('reads bdbs and their modules, upgrades one, and follows the action', async () => {
    const bdbs = await client.listBdbs();
    assert.equal(bdbVersion(bdbs[0]!), '7.2');
    assert.equal(bdbs[0]?.module_list?.[0]?.module_name, 'search');
    const upgraded = await client.upgradeBdb(1, '7.4', 'redis_version');
    assert.equal(typeof upgraded.action_uid, 'string');
    const action = await client.getAction(upgraded.action_uid ?? '');
    assert.equal(action.status, 'completed');
    assert.equal(bdbVersion(await client.getBdb(1)), '7.4');
  });

  it('uploads a module as multipart and gets its action', async () => {
    const module = await client.uploadModule(
      'redisearch.Linux-rhel9-x86_64.2.8.4.zip',
      modulePackageBytes({ module: 'search', version: '2.8.4' }),
    );
    assert.equal(module.module_name, 'search');
    assert.equal(typeof module.action_uid, 'string');
    const modules = await client.listModules();
    assert.ok('rhel9/x86_64' in (modules.find((m) => m.module_name === 'search')?.platforms ?? {}));
  });

  it('maps 404 to an operation error with the server message, 403 to an auth error', async () => {
    await assert.rejects(client.getBdb(99), (error: OperationError) => {
      assert.ok(error instanceof OperationError);
      assert.match(
        error.message,
        /GET \/v1\/bdbs\/99 failed with HTTP 404: Database 99 does not exist \(db_not_exist\)/,
      );
      return true;
    });
    const viewer = clientFor(sim, VIEWER);
    await assert.rejects(viewer.client.upgradeBdb(1, '7.4', 'redis_version'), AuthError);
    await viewer.http.close();
  });

  it('does not retry a 401 twice: a user whose password changed gets exit 4', async () => {
    const other = clientFor(sim);
    await other.client.listNodes();
    sim.model.users[0]!.password = 'changed-password';
    sim.model.rotateJwtSecret();
    await assert.rejects(other.client.listNodes(), AuthError);
    sim.model.users[0]!.password = ADMIN.password;
    await other.http.close();
  });
});

describe('module upload on a cluster that does not allow uploads', () => {
  it('403 modules_upload_disabled says it is a cluster setting and how to allow uploads', async () => {
    // Redis Software 8.2 answers this while the cluster setting allow_modules_upload is off.
    const { http, requests } = scriptedHttp((request) =>
      request.path === '/v2/modules'
        ? {
            status: 403,
            body: { error_code: 'modules_upload_disabled', message: 'Module upload is disabled' },
          }
        : { status: 200, body: { access_token: fakeJwt(300) } },
    );
    const tokens = new TokenSource({
      obtain: () => authorize(http, ADMIN, { ttl: 300, form: 'auto' }),
      refresh: (current) => refreshToken(http, current, {}),
    });
    const client = new ApiClient(http, tokens, ADMIN.username);
    await assert.rejects(
      client.uploadModule('search-rhel9.zip', new Uint8Array([1, 2, 3])),
      (error: Error) => {
        assert.ok(error instanceof OperationError && !(error instanceof AuthError));
        assert.match(error.message, /does not allow module uploads \(403 modules_upload_disabled\)/);
        assert.match(error.message, /search-rhel9\.zip/);
        assert.match(error.hint ?? '', /allow_modules_upload/);
        assert.match(error.hint ?? '', /userDefinedModules/);
        assert.doesNotMatch(error.hint ?? '', /admin/);
        return true;
      },
    );
    assert.equal(requests.filter((r) => r.path === '/v2/modules').length, 1);
  });

  it('another 403 on upload is still a permission problem', async () => {
    const { http } = scriptedHttp((request) =>
      request.path === '/v2/modules'
        ? { status: 403, body: { error_code: 'insufficient_permissions', message: 'no' } }
        : { status: 200, body: { access_token: fakeJwt(300) } },
    );
    const tokens = new TokenSource({
      obtain: () => authorize(http, ADMIN, { ttl: 300, form: 'auto' }),
      refresh: (current) => refreshToken(http, current, {}),
    });
    const client = new ApiClient(http, tokens, ADMIN.username);
    await assert.rejects(client.uploadModule('m.zip', new Uint8Array([1])), (error: AuthError) => {
      assert.ok(error instanceof AuthError);
      assert.match(error.hint ?? '', /admin role/);
      return true;
    });
  });
});
