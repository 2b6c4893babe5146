import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type IssuedToken, issuedToken } from '../../../src/api/authorize.js';
import { renewAt, TokenSource } from '../../../src/api/token-source.js';
import { FakeClock } from './fake-clock.js';

/** An unsigned JWT with the given claims: the token source never verifies signatures. */
function jwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}.c2ln`;
}

/** A fake authorize: counts calls, issues tokens whose server clock is `skewMs` off. */
function fakeServer(clock: FakeClock, ttl: number, skewMs = 0) {
  const calls = { obtain: 0, refresh: 0 };
  const mint = (): IssuedToken => {
    const iat = Math.floor((clock.now() + skewMs) / 1000);
    return issuedToken(
      jwt({ iat, exp: iat + ttl, uid: '1', n: calls.obtain + calls.refresh }),
      ttl,
      clock.now(),
    );
  };
  return {
    calls,
    obtain: async () => {
      calls.obtain += 1;
      await Promise.resolve();
      return mint();
    },
    refresh: async () => {
      calls.refresh += 1;
      return mint();
    },
  };
}

describe('TokenSource', () => {
  it('keeps a 300 s token until 240 s, then renews it (20% margin)', async () => {
    const clock = new FakeClock();
    const server = fakeServer(clock, 300);
    const source = new TokenSource({ obtain: server.obtain, clock });
    const first = await source.token();
    clock.advance(239_000);
    assert.equal((await source.token()).accessToken, first.accessToken);
    assert.equal(server.calls.obtain, 1);
    clock.advance(2_000);
    assert.notEqual((await source.token()).accessToken, first.accessToken);
    assert.equal(server.calls.obtain, 2);
  });

  it('uses at least a 30 s margin for short tokens', () => {
    const token = issuedToken(jwt({ iat: 0, exp: 100 }), 100, 0);
    assert.equal(renewAt(token), 70_000);
    const long = issuedToken(jwt({ iat: 0, exp: 86400 }), 86400, 0);
    assert.equal(renewAt(long), 86400_000 * 0.8);
  });

  it('renews a still-valid token with refresh, and falls back to authorize when refresh fails', async () => {
    const clock = new FakeClock();
    const server = fakeServer(clock, 300);
    let failRefresh = false;
    const source = new TokenSource({
      obtain: server.obtain,
      refresh: async (current) => {
        if (failRefresh) throw new Error('refresh refused');
        assert.ok(current.accessToken);
        return server.refresh();
      },
      clock,
    });
    await source.token();
    clock.advance(250_000);
    await source.token();
    assert.deepEqual(server.calls, { obtain: 1, refresh: 1 });
    failRefresh = true;
    clock.advance(250_000);
    await source.token();
    assert.deepEqual(server.calls, { obtain: 2, refresh: 1 });
  });

  it('authorizes again (not refresh) once the token has expired', async () => {
    const clock = new FakeClock();
    const server = fakeServer(clock, 300);
    const source = new TokenSource({ obtain: server.obtain, refresh: server.refresh, clock });
    await source.token();
    clock.advance(301_000);
    await source.token();
    assert.deepEqual(server.calls, { obtain: 2, refresh: 0 });
  });

  it('shares one renewal among ten concurrent callers', async () => {
    const clock = new FakeClock();
    const server = fakeServer(clock, 300);
    const source = new TokenSource({ obtain: server.obtain, clock });
    const tokens = await Promise.all(Array.from({ length: 10 }, () => source.token()));
    assert.equal(server.calls.obtain, 1);
    assert.equal(new Set(tokens.map((t) => t.accessToken)).size, 1);
    clock.advance(290_000);
    await Promise.all(Array.from({ length: 10 }, () => source.token()));
    assert.equal(server.calls.obtain, 2);
  });

  it('re-authorizes once when many callers report the same rejected token', async () => {
    const clock = new FakeClock();
    const server = fakeServer(clock, 300);
    const source = new TokenSource({ obtain: server.obtain, refresh: server.refresh, clock });
    const rejected = await source.token();
    const renewed = await Promise.all(Array.from({ length: 10 }, () => source.renewAfterRejection(rejected)));
    assert.equal(server.calls.obtain, 2);
    assert.equal(server.calls.refresh, 0);
    assert.equal(new Set(renewed.map((t) => t.accessToken)).size, 1);
    assert.notEqual(renewed[0]?.accessToken, rejected.accessToken);
    // A late report about the old token does not trigger another sign-in.
    await source.renewAfterRejection(rejected);
    assert.equal(server.calls.obtain, 2);
  });

  it('does not loop when authorize itself fails: the error reaches the caller', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const source = new TokenSource({
      obtain: async () => {
        calls += 1;
        throw new Error('authentication failed');
      },
      clock,
    });
    await assert.rejects(source.token(), /authentication failed/);
    assert.equal(calls, 1);
  });

  it('schedules from exp - iat, so a server clock 10 minutes off changes nothing', async () => {
    for (const skew of [-600_000, 600_000]) {
      const clock = new FakeClock();
      const server = fakeServer(clock, 300, skew);
      const source = new TokenSource({ obtain: server.obtain, clock });
      await source.token();
      clock.advance(200_000);
      await source.token();
      assert.equal(server.calls.obtain, 1, `skew ${skew}`);
    }
  });

  it('falls back to the ttl for a malformed JWT or one without exp', () => {
    assert.equal(issuedToken('not-a-jwt', 300, 1000).expiresAt, 301_000);
    assert.equal(issuedToken(jwt({ uid: '1' }), 60, 0).expiresAt, 60_000);
    // A server that grants more than asked is held to the ttl.
    assert.equal(issuedToken(jwt({ iat: 0, exp: 1000 }), 60, 0).expiresAt, 60_000);
  });

  it('keeps a 5 s token valid through a 60 s wait by renewing before each use', async () => {
    const clock = new FakeClock();
    const server = fakeServer(clock, 5);
    const source = new TokenSource({ obtain: server.obtain, clock });
    for (let second = 0; second < 60; second += 1) {
      const token = await source.token();
      assert.ok(clock.now() < token.expiresAt);
      clock.advance(1000);
    }
  });
});
