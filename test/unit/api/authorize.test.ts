import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authorize } from '../../../src/api/authorize.js';
import { HttpClient, type HttpRequest } from '../../../src/api/http.js';
import { AuthError, OperationError } from '../../../src/errors.js';
import { ADMIN, EXPIRED, type SimFixture, startSim } from '../sim/rest/fixture.js';
import { basicOf, fakeJwt, scriptedHttp } from './scripted-http.js';

function claimsOf(token: string): { iat: number; exp: number } {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
}

for (const serverVersion of ['7.8.2-6', '7.4.6-22']) {
  const modern = serverVersion === '7.8.2-6';
  describe(`authorize against a ${serverVersion} server`, () => {
    let sim: SimFixture;
    let http: HttpClient;
    before(async () => {
      sim = await startSim({ serverVersion });
      http = new HttpClient({ baseUrl: sim.url, ca: sim.ca.certPem });
    });
    after(async () => {
      await http.close();
      await sim.close();
    });

    it('auto gets a token with the requested ttl in ONE request carrying the header and the body', async () => {
      const before = sim.audit.entries.length;
      const secrets: string[] = [];
      const token = await authorize(http, ADMIN, {
        ttl: 600,
        form: 'auto',
        onSecret: (s) => secrets.push(s),
      });
      const claims = claimsOf(token.accessToken);
      assert.equal(claims.exp - claims.iat, 600);
      assert.equal(token.exp, claims.exp);
      assert.deepEqual(secrets, [token.accessToken]);
      const statuses = sim.audit.entries.slice(before).map((e) => e.status);
      assert.deepEqual(statuses, [200]);
    });

    it(`${modern ? 'accepts' : 'refuses'} the header form, with a hint towards the body form`, async () => {
      const attempt = authorize(http, ADMIN, { ttl: 300, form: 'header' });
      if (modern) {
        await attempt;
        return;
      }
      await assert.rejects(attempt, (error: OperationError) => {
        assert.ok(error instanceof OperationError);
        assert.match(error.message, /username and password/);
        assert.match(error.hint ?? '', /--auth-form body/);
        return true;
      });
    });

    it(`${modern ? 'refuses' : 'accepts'} the body form`, async () => {
      const attempt = authorize(http, ADMIN, { ttl: 300, form: 'body' });
      if (!modern) {
        await attempt;
        return;
      }
      await assert.rejects(attempt, (error: AuthError) => {
        assert.ok(error instanceof AuthError);
        assert.match(error.hint ?? '', /--auth-form header/);
        return true;
      });
    });

    it('reports a wrong password as an authentication failure (exit 4)', async () => {
      await assert.rejects(
        authorize(http, { ...ADMIN, password: 'wrong-password' }, { ttl: 300, form: 'auto' }),
        (error: AuthError) => {
          assert.ok(error instanceof AuthError);
          assert.equal(error.exitCode, 4);
          assert.match(error.message, /authentication failed for admin@example.com/);
          return true;
        },
      );
    });

    it('reports an expired password with how to change it', async () => {
      await assert.rejects(authorize(http, EXPIRED, { ttl: 300, form: 'auto' }), (error: AuthError) => {
        assert.ok(error instanceof AuthError);
        assert.match(error.message, /password of old@example.com has expired and must be changed/);
        assert.match(error.hint ?? '', /Change it/);
        return true;
      });
    });
  });
}

describe('authorize auto against servers the emulator does not play', () => {
  const credentialsOf = (request: HttpRequest): { username?: unknown; password?: unknown } =>
    (request.json ?? {}) as { username?: unknown; password?: unknown };

  it('sends the Basic header and {username, password, ttl} together in the first request', async () => {
    const { http, requests } = scriptedHttp(() => ({ status: 200, body: { access_token: fakeJwt(300) } }));
    await authorize(http, ADMIN, { ttl: 300, form: 'auto' });
    assert.equal(requests.length, 1);
    assert.deepEqual(basicOf(requests[0]!), ADMIN);
    assert.deepEqual(requests[0]!.json, { username: ADMIN.username, password: ADMIN.password, ttl: 300 });
  });

  it('falls back to the header form when a server answers 400 to body credentials', async () => {
    // A strict server: credentials in the body are an error, the Basic header is the way.
    const { http, requests } = scriptedHttp((request) => {
      if (credentialsOf(request).username !== undefined)
        return { status: 400, body: { error_code: 'invalid_schema', message: 'unexpected field username' } };
      const basic = basicOf(request);
      return basic?.password === ADMIN.password
        ? { status: 200, body: { access_token: fakeJwt(300) } }
        : { status: 401, body: { error_code: 'unauthorized' } };
    });
    const token = await authorize(http, ADMIN, { ttl: 300, form: 'auto' });
    assert.ok(token.accessToken);
    assert.equal(requests.length, 2);
    assert.deepEqual(requests[1]!.json, { ttl: 300 });
    assert.deepEqual(basicOf(requests[1]!), ADMIN);
  });

  it('falls back to the body form when a server answers 401 to anything with a Basic header', async () => {
    // An old server that treats any Basic header as a failed login and reads only the body.
    const { http, requests } = scriptedHttp((request) => {
      if (basicOf(request)) return { status: 401, body: { error_code: 'unauthorized' } };
      return credentialsOf(request).password === ADMIN.password
        ? { status: 200, body: { access_token: fakeJwt(300) } }
        : { status: 400, body: { error_code: 'missing_credentials' } };
    });
    await authorize(http, ADMIN, { ttl: 300, form: 'auto' });
    assert.equal(requests.length, 3);
    assert.equal(basicOf(requests[2]!), undefined);
    assert.deepEqual(requests[2]!.json, { username: ADMIN.username, password: ADMIN.password, ttl: 300 });
  });

  it('stops at the first answer that is neither 400 nor 401', async () => {
    const { http, requests } = scriptedHttp(() => ({
      status: 403,
      body: { error_code: 'insufficient_permissions' },
    }));
    await assert.rejects(authorize(http, ADMIN, { ttl: 300, form: 'auto' }), AuthError);
    assert.equal(requests.length, 1);
  });

  it('never retries an expired password with another form', async () => {
    const { http, requests } = scriptedHttp(() => ({
      status: 401,
      body: { error_code: 'password_expired', message: 'password expired' },
    }));
    await assert.rejects(authorize(http, ADMIN, { ttl: 300, form: 'auto' }), /has expired/);
    assert.equal(requests.length, 1);
  });

  it('header and body each send their one form only', async () => {
    const { http, requests } = scriptedHttp(() => ({ status: 401, body: { error_code: 'unauthorized' } }));
    await assert.rejects(authorize(http, ADMIN, { ttl: 300, form: 'header' }), AuthError);
    await assert.rejects(authorize(http, ADMIN, { ttl: 300, form: 'body' }), AuthError);
    assert.equal(requests.length, 2);
    assert.deepEqual(requests[0]!.json, { ttl: 300 });
    assert.deepEqual(basicOf(requests[0]!), ADMIN);
    assert.equal(basicOf(requests[1]!), undefined);
    assert.equal(credentialsOf(requests[1]!).username, ADMIN.username);
  });
});
