import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { MockAgent } from 'undici';
import { HttpClient, proxySettings } from '../../../src/api/http.js';
import { OperationError } from '../../../src/errors.js';
import { FakeClock } from './fake-clock.js';

const ORIGIN = 'https://api.example.test:9443';

function networkError(code: string): Error {
  return Object.assign(new Error(`simulated ${code}`), { code });
}

describe('HttpClient retries', () => {
  let mock: MockAgent;
  let clock: FakeClock;
  let logs: string[];
  let client: HttpClient;

  beforeEach(() => {
    mock = new MockAgent();
    mock.disableNetConnect();
    clock = new FakeClock();
    logs = [];
    client = new HttpClient({
      baseUrl: ORIGIN,
      dispatcher: mock,
      clock,
      random: () => 0.5,
      log: { debug: (_level, message) => logs.push(message) },
    });
  });
  afterEach(async () => {
    await mock.close();
  });

  it('retries an idempotent GET after 500 and a reset, with jittered backoff', async () => {
    const pool = mock.get(ORIGIN);
    pool.intercept({ path: '/v1/bdbs', method: 'GET' }).reply(500, { error_code: 'internal' });
    pool.intercept({ path: '/v1/bdbs', method: 'GET' }).replyWithError(networkError('ECONNRESET'));
    pool.intercept({ path: '/v1/bdbs', method: 'GET' }).reply(200, [{ uid: 1 }]);
    const response = await client.request({ method: 'GET', path: '/v1/bdbs' });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, [{ uid: 1 }]);
    // random 0.5: half of 500 ms, then half of 1000 ms.
    assert.deepEqual(clock.sleeps, [250, 500]);
    assert.ok(logs.some((line) => line.startsWith('GET /v1/bdbs 500')));
  });

  it('never repeats a POST after a 500 or a broken connection', async () => {
    const pool = mock.get(ORIGIN);
    pool.intercept({ path: '/v1/bdbs/1/upgrade', method: 'POST' }).reply(500, { message: 'boom' });
    const response = await client.request({ method: 'POST', path: '/v1/bdbs/1/upgrade', json: {} });
    assert.equal(response.status, 500);
    pool.intercept({ path: '/v1/bdbs/1/upgrade', method: 'POST' }).replyWithError(networkError('ECONNRESET'));
    await assert.rejects(
      client.request({ method: 'POST', path: '/v1/bdbs/1/upgrade', json: {} }),
      OperationError,
    );
    assert.deepEqual(clock.sleeps, []);
  });

  it('repeats a POST that never left (connection refused)', async () => {
    const pool = mock.get(ORIGIN);
    pool
      .intercept({ path: '/v1/users/authorize', method: 'POST' })
      .replyWithError(networkError('ECONNREFUSED'));
    pool.intercept({ path: '/v1/users/authorize', method: 'POST' }).reply(200, { access_token: 'x' });
    const response = await client.request({ method: 'POST', path: '/v1/users/authorize', json: { ttl: 5 } });
    assert.equal(response.status, 200);
    assert.equal(clock.sleeps.length, 1);
  });

  it('honours Retry-After on 503 and 429, in seconds and as an HTTP date, for POST too', async () => {
    const pool = mock.get(ORIGIN);
    pool
      .intercept({ path: '/v1/bdbs/1/upgrade', method: 'POST' })
      .reply(503, '', { headers: { 'retry-after': '2' } });
    pool
      .intercept({ path: '/v1/bdbs/1/upgrade', method: 'POST' })
      .reply(429, '', { headers: { 'retry-after': new Date(clock.now() + 2000 + 5000).toUTCString() } });
    pool.intercept({ path: '/v1/bdbs/1/upgrade', method: 'POST' }).reply(200, { uid: 1 });
    const response = await client.request({
      method: 'POST',
      path: '/v1/bdbs/1/upgrade',
      json: { redis_version: '7.4' },
    });
    assert.equal(response.status, 200);
    assert.equal(clock.sleeps[0], 2000);
    // HTTP dates have whole seconds; the wait is about 5 s.
    assert.ok(clock.sleeps[1]! > 3000 && clock.sleeps[1]! <= 5000, `slept ${clock.sleeps[1]}`);
  });

  it('fails clearly when Retry-After is longer than it waits', async () => {
    mock
      .get(ORIGIN)
      .intercept({ path: '/v1/nodes', method: 'GET' })
      .reply(503, '', { headers: { 'retry-after': '120' } });
    await assert.rejects(client.request({ method: 'GET', path: '/v1/nodes' }), /retry after 120 s/);
    assert.deepEqual(clock.sleeps, []);
  });

  it('gives up after maxAttempts and returns the last answer', async () => {
    const pool = mock.get(ORIGIN);
    for (let i = 0; i < 4; i += 1)
      pool.intercept({ path: '/v1/nodes', method: 'GET' }).reply(502, 'bad gateway');
    const response = await client.request({ method: 'GET', path: '/v1/nodes' });
    assert.equal(response.status, 502);
    assert.equal(response.body, 'bad gateway');
    assert.equal(clock.sleeps.length, 3);
  });

  it('does not retry 4xx answers other than 429', async () => {
    const pool = mock.get(ORIGIN);
    for (const status of [400, 401, 403, 404, 409]) {
      pool.intercept({ path: '/v1/nodes', method: 'GET' }).reply(status, { error_code: 'x', message: 'y' });
      const response = await client.request({ method: 'GET', path: '/v1/nodes' });
      assert.equal(response.status, status);
    }
    assert.deepEqual(clock.sleeps, []);
  });

  it('names the API and the fix when it cannot connect', async () => {
    const pool = mock.get(ORIGIN);
    for (let i = 0; i < 4; i += 1) {
      pool.intercept({ path: '/v1/nodes', method: 'GET' }).replyWithError(networkError('ECONNREFUSED'));
    }
    await assert.rejects(client.request({ method: 'GET', path: '/v1/nodes' }), (error: OperationError) => {
      assert.match(
        error.message,
        /cannot reach the management API at https:\/\/api\.example\.test:9443: ECONNREFUSED/,
      );
      assert.match(error.hint ?? '', /--api-url/);
      return true;
    });
  });

  it('says in words what a network error code means (the code stays, for searching)', async () => {
    for (const [code, words] of [
      [
        'ECONNREFUSED',
        /: ECONNREFUSED \(nothing accepts connections at that address and port; 4 attempts\)$/,
      ],
      ['UND_ERR_CONNECT_TIMEOUT', /: UND_ERR_CONNECT_TIMEOUT \(no connection within 10 s; 4 attempts\)$/],
      ['ENOTFOUND', /: ENOTFOUND \(no such host name(; \d attempts)?\)$/],
      ['EHOSTUNREACH', /: EHOSTUNREACH \(no route to that host(; \d attempts)?\)$/],
    ] as const) {
      const pool = mock.get(ORIGIN);
      const path = `/v1/${code.toLowerCase()}`;
      for (let i = 0; i < 4; i += 1) {
        pool.intercept({ path, method: 'GET' }).replyWithError(networkError(code));
      }
      await assert.rejects(client.request({ method: 'GET', path }), (error: OperationError) => {
        assert.match(error.message, words);
        return true;
      });
    }
  });

  it('stops retrying at the overall deadline', async () => {
    const slow = new HttpClient({
      baseUrl: ORIGIN,
      dispatcher: mock,
      clock,
      random: () => 1,
      timeouts: { totalMs: 1400 },
    });
    const pool = mock.get(ORIGIN);
    pool.intercept({ path: '/v1/nodes', method: 'GET' }).reply(500, '');
    pool.intercept({ path: '/v1/nodes', method: 'GET' }).reply(500, '');
    await assert.rejects(slow.request({ method: 'GET', path: '/v1/nodes' }), /no answer within 1.4 s/);
    assert.deepEqual(clock.sleeps, [500]);
  });

  it('redacts access tokens in -vv body logs', async () => {
    mock
      .get(ORIGIN)
      .intercept({ path: '/v1/users/authorize', method: 'POST' })
      .reply(200, { access_token: 'eyJ.secret.sig' });
    await client.request({ method: 'POST', path: '/v1/users/authorize', json: { ttl: 1 } });
    assert.ok(logs.some((line) => line.includes('"access_token":"[REDACTED]"')));
    assert.ok(!logs.some((line) => line.includes('eyJ.secret.sig')));
  });
});

describe('proxySettings', () => {
  it('is undefined without proxy variables, so a plain Agent is used', () => {
    assert.equal(proxySettings({}), undefined);
  });
  it('prefers the lowercase variables, as curl and undici do', () => {
    assert.deepEqual(
      proxySettings({
        HTTPS_PROXY: 'http://upper:1',
        https_proxy: 'http://lower:1',
        NO_PROXY: 'a',
        no_proxy: 'b',
      }),
      { httpsProxy: 'http://lower:1', noProxy: 'b' },
    );
  });
});

describe('HttpClient close', () => {
  it('stops the requests still running instead of waiting for them', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    const client = new HttpClient({ baseUrl: ORIGIN, dispatcher: mock });
    try {
      mock.get(ORIGIN).intercept({ path: '/v1/bdbs', method: 'GET' }).reply(200, []).delay(60_000);
      const running = client.request({ method: 'GET', path: '/v1/bdbs' });
      const outcome = running.then(
        () => 'answered',
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = Date.now();
      await client.close();
      assert.match(await outcome, /GET \/v1\/bdbs: stopped, the connection was closed/);
      assert.ok(Date.now() - started < 5000, 'ended at once, not after the answer');
    } finally {
      await mock.close();
    }
  });
});
