/**
 * HTTPS_PROXY and HTTP_PROXY as kubectl and helm (Go's net/http) and curl read them: HTTP_PROXY
 * is for http only, never for an https call, and nothing on this machine (localhost, 127.0.0.0/8,
 * ::1: a `kubectl port-forward`'s port) goes through a proxy (src/api/http.ts proxySettingsFor).
 * Before, undici sent every https call to HTTP_PROXY when HTTPS_PROXY was unset, and the
 * management API at 127.0.0.1 to the proxy; a proxy that hangs up on each tunnel it is asked
 * for then kept ctl connecting again at full CPU, past the call's own deadline, for ever.
 *
 * The proxy here accepts and hangs up at once: a proxy that cannot or will not reach the place.
 */

import assert from 'node:assert/strict';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { runCtl } from '../helpers/run-ctl.js';
import { fixturePath } from './support.js';
import { assertExit, SharedUpgradeSim, TARGET } from '../e2e/upgrade-support.js';

describe('proxy variables (e2e)', { timeout: 300_000 }, () => {
  let proxy: Server;
  let proxyUrl: string;
  let connections = 0;
  const sockets = new Set<Socket>();

  before(async () => {
    // Reads the request (CONNECT host:port), then hangs up without a word.
    proxy = createServer((socket) => {
      connections += 1;
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('data', () => socket.end());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => proxy.close(resolve));
  });

  const helmInstalled = new SharedUpgradeSim('helm-installed');
  after(() => helmInstalled.close());

  test("a plan with both proxies set and no NO_PROXY: this machine's API, chart index and helm go direct", async () => {
    await helmInstalled.use('plan behind proxies', async (sim) => {
      const before = connections;
      const result = await sim.ctl(['upgrade', 'plan', '--to', TARGET], {
        env: {
          HTTPS_PROXY: proxyUrl,
          HTTP_PROXY: proxyUrl,
          https_proxy: proxyUrl,
          http_proxy: proxyUrl,
          NO_PROXY: '',
          no_proxy: '',
        },
        timeoutMs: 90_000,
      });
      assertExit(result, 0, 'plan behind proxies');
      assert.match(result.stdout, /Ready to run/);
      assert.match(result.stdout, /ok\s+target-available\s+chart redis-enterprise-operator \S+ is there/);
      assert.equal(connections, before, 'nothing went to the proxy');
    });
  });

  test('an https call with only HTTP_PROXY set goes direct, not to that proxy', async () => {
    await helmInstalled.use('plan with HTTP_PROXY', async (sim) => {
      const before = connections;
      // The management API by a name that only resolves through a proxy: direct, it is not found.
      const result = await sim.ctl(['auth', 'token', '--api-url', 'https://mgmt.example.invalid:9443'], {
        env: { HTTP_PROXY: proxyUrl, http_proxy: proxyUrl, NO_PROXY: '', no_proxy: '' },
        timeoutMs: 60_000,
      });
      assertExit(result, 1, 'auth token with HTTP_PROXY');
      assert.match(result.stderr, /cannot reach the management API at https:\/\/mgmt\.example\.invalid:9443/);
      assert.equal(connections, before, 'the https call went to HTTP_PROXY');
    });
  });

  test("an HTTPS_PROXY that hangs up on every tunnel: the call's deadline ends it, exit 1", async () => {
    await helmInstalled.use('auth token through a closing proxy', async (sim) => {
      const before = connections;
      const result = await runCtl(['auth', 'token', '--api-url', 'https://mgmt.example.invalid:9443'], {
        env: {
          ...sim.env,
          HTTPS_PROXY: proxyUrl,
          NO_PROXY: '',
          // The call's deadline of 120 s, shortened for the test (deadline-preload.ts).
          CTL_TEST_DEADLINE_FROM: '120000',
          CTL_TEST_DEADLINE_TO: '2000',
        },
        preload: fixturePath('deadline-preload.js'),
        timeoutMs: 60_000,
      });
      assertExit(result, 1, 'auth token through a closing proxy');
      assert.match(
        result.stderr,
        /POST \/v1\/users\/authorize: no answer within 120 s from https:\/\/mgmt\.example\.invalid:9443/,
      );
      assert.ok(connections > before, 'the call went to HTTPS_PROXY');
    });
  });
});
