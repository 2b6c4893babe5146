/**
 * HTTPS_PROXY and HTTP_PROXY as kubectl and helm (Go's net/http) and curl read them: HTTP_PROXY
 * is for http only, never for an https call, and nothing on this machine (localhost, 127.0.0.0/8,
 * ::1: a `kubectl port-forward`'s port) goes through a proxy (src/api/http.ts proxySettingsFor).
 * Before, undici sent every https call to HTTP_PROXY when HTTPS_PROXY was unset, and the
 * management API at 127.0.0.1 to the proxy; a proxy that hangs up on each tunnel it is asked
 * for then kept ctl connecting again at full CPU, past the call's own deadline, for ever; later
 * until that deadline (120 s). Now such a request ends at the hang-up, as kubectl's and curl's do
 * (src/api/proxy-agent.ts), and the retry policy asks a few times more.
 *
 * The proxy here accepts and hangs up at once: a proxy that cannot or will not reach the place.
 */

import assert from 'node:assert/strict';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { runCtl } from '../helpers/run-ctl.js';
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

  test('an HTTPS_PROXY that hangs up on every tunnel: the call ends at once, naming the proxy, exit 1', async () => {
    await helmInstalled.use('auth token through a closing proxy', async (sim) => {
      const before = connections;
      // With the proxy's credentials in its URL: they never show.
      const withCredentials = proxyUrl.replace('http://', 'http://proxy-user:proxy-secret@');
      // The call's deadline is 120 s: a call still connecting again when this hang guard ends
      // (undici took the hang-up for a chance loss and looped, at full CPU) fails the test.
      const result = await runCtl(['auth', 'token', '--api-url', 'https://mgmt.example.invalid:9443'], {
        env: { ...sim.env, HTTPS_PROXY: withCredentials, NO_PROXY: '' },
        timeoutMs: 60_000,
      });
      assertExit(result, 1, 'auth token through a closing proxy');
      const proxyOrigin = proxyUrl.replaceAll('.', '\\.');
      assert.match(
        result.stderr,
        new RegExp(
          `cannot reach the management API at https://mgmt\\.example\\.invalid:9443: CTL_PROXY_HUNG_UP \\(the proxy ${proxyOrigin} closed the connection before it opened a tunnel to mgmt\\.example\\.invalid:9443; \\d+ attempts\\)`,
        ),
      );
      assert.doesNotMatch(result.stderr, /proxy-secret|proxy-user/, 'the proxy credentials stay out');
      assert.ok(connections > before, 'the call went to HTTPS_PROXY');
      assert.ok(connections - before < 20, `a bounded number of tunnels asked for (${connections - before})`);
    });
  });

  test('a chart repository behind a proxy that hangs up: target-available says so, the plan ends', async () => {
    await helmInstalled.use('plan with the chart repository through a closing proxy', async (sim) => {
      const before = connections;
      const result = await sim.ctl(['upgrade', 'plan', '--to', TARGET], {
        env: {
          HTTPS_PROXY: proxyUrl,
          NO_PROXY: '',
          CTL_HELM_REPO: 'https://charts.example.invalid',
        },
        timeoutMs: 60_000,
      });
      assertExit(result, 0, 'plan with the chart repository behind a closing proxy');
      assert.match(result.stdout, /target-available\s+.*charts\.example\.invalid.*CTL_PROXY_HUNG_UP/);
      assert.ok(connections > before && connections - before < 20, 'a bounded number of tunnels');
    });
  });
});
