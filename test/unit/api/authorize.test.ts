import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authorize } from '../../../src/api/authorize.js';
import { HttpClient } from '../../../src/api/http.js';
import { AuthError, OperationError } from '../../../src/errors.js';
import { ADMIN, EXPIRED, type SimFixture, startSim } from '../sim/rest/fixture.js';

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

    it('auto gets a token with the requested ttl, falling back to the body form when needed', async () => {
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
      assert.deepEqual(statuses, modern ? [200] : [400, 200]);
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
