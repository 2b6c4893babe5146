import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, createServer as createNetServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { HttpClient } from '../../../src/api/http.js';
import { createServerCertificate } from '../../../src/sim/tls.js';
import { type SimFixture, startSim, testCa } from '../sim/rest/fixture.js';

/** The name the API is reached by through the proxy: only the proxy resolves it (to 127.0.0.1). */
const API_HOST = 'mgmt.example.invalid';

/** A minimal CONNECT proxy that records the targets it tunnels to. */
async function startConnectProxy(): Promise<{ url: string; targets: string[]; server: Server }> {
  const targets: string[] = [];
  const server = createServer((_req, res) => {
    res.writeHead(405).end();
  });
  server.on('connect', (req, clientSocket, head) => {
    targets.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host === API_HOST ? '127.0.0.1' : host, () => {
      clientSocket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(clientSocket);
      clientSocket.pipe(upstream);
    });
    upstream.on('error', () => clientSocket.destroy());
    clientSocket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, targets, server };
}

// With a proxy variable set, `node-https` (ctl auth token's transport) gives way to undici's
// EnvHttpProxyAgent: both must tunnel and honour NO_PROXY alike.
for (const transport of ['undici', 'node-https'] as const)
  describe(`proxy support (EnvHttpProxyAgent; transport ${transport})`, () => {
    let sim: SimFixture;
    let proxy: Awaited<ReturnType<typeof startConnectProxy>>;
    /** The API by a name only the proxy resolves. */
    let remoteUrl: string;
    before(async () => {
      const certificate = await createServerCertificate(await testCa(), {
        dnsNames: [API_HOST, 'localhost'],
      });
      sim = await startSim({ certificate });
      proxy = await startConnectProxy();
      remoteUrl = `https://${API_HOST}:${sim.server.port}`;
    });
    after(async () => {
      await sim.close();
      proxy.server.closeAllConnections();
      await new Promise((resolve) => proxy.server.close(resolve));
    });

    it('tunnels through HTTPS_PROXY with CONNECT and still verifies the API certificate', async () => {
      const http = new HttpClient({
        baseUrl: remoteUrl,
        ca: sim.ca.certPem,
        env: { HTTPS_PROXY: proxy.url },
        transport,
      });
      const response = await http.request({ method: 'GET', path: '/v1/cluster' });
      await http.close();
      assert.equal(response.status, 401);
      assert.deepEqual(proxy.targets, [`${API_HOST}:${sim.server.port}`]);

      const untrusted = new HttpClient({ baseUrl: remoteUrl, env: { HTTPS_PROXY: proxy.url }, transport });
      await assert.rejects(untrusted.request({ method: 'GET', path: '/v1/cluster' }), /TLS: the certificate/);
      await untrusted.close();
    });

    it('never sends an https call to HTTP_PROXY, as curl and Go (kubectl, helm) do not', async () => {
      const before = proxy.targets.length;
      const http = new HttpClient({
        baseUrl: remoteUrl,
        ca: sim.ca.certPem,
        env: { HTTP_PROXY: proxy.url },
        transport,
      });
      // Direct, the name does not resolve: the call fails without the proxy having seen it.
      await assert.rejects(
        http.request({ method: 'GET', path: '/v1/cluster' }),
        /cannot reach the management API/,
      );
      await http.close();
      assert.equal(proxy.targets.length, before);
    });

    it("never through a proxy to this machine's own address (a kubectl port-forward's)", async () => {
      const before = proxy.targets.length;
      for (const baseUrl of [sim.url, `https://localhost:${sim.server.port}`]) {
        const http = new HttpClient({
          baseUrl,
          ca: sim.ca.certPem,
          env: { HTTPS_PROXY: proxy.url },
          transport,
        });
        const response = await http.request({ method: 'GET', path: '/v1/cluster' });
        await http.close();
        assert.equal(response.status, 401, baseUrl);
      }
      assert.equal(proxy.targets.length, before);
    });

    it('goes direct for hosts in NO_PROXY', async () => {
      const before = proxy.targets.length;
      const http = new HttpClient({
        baseUrl: remoteUrl,
        ca: sim.ca.certPem,
        env: { HTTPS_PROXY: proxy.url, NO_PROXY: API_HOST },
        transport,
      });
      // Direct, the name does not resolve.
      await assert.rejects(
        http.request({ method: 'GET', path: '/v1/cluster' }),
        /cannot reach the management API/,
      );
      await http.close();
      assert.equal(proxy.targets.length, before);
    });
  });

describe('a proxy that closes every tunnel it is asked for', () => {
  it('ends the call at the hang-up, naming the proxy (undici alone would connect again for ever), and close() ends at once', async () => {
    // undici's tunnel fails with a socket error ("other side closed"), which its client takes as
    // worth connecting again, at once; the client to the proxy makes it a ProxyHungUpError
    // (src/api/proxy-agent.ts), which fails the request, and the retry policy asks a few times.
    const sockets = new Set<Socket>();
    const closing = createNetServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      // Reads the CONNECT request, then hangs up without a word.
      socket.once('data', () => socket.end());
    });
    await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(closing.address() as AddressInfo).port}`;
    const http = new HttpClient({
      baseUrl: `https://${API_HOST}:9443`,
      env: { HTTPS_PROXY: proxyUrl },
      // Longer than the retries take: the call ends at the hang-ups, not at this deadline.
      timeouts: { totalMs: 60_000 },
    });
    try {
      const outcome = await Promise.race([
        http.request({ method: 'GET', path: '/v1/cluster' }).then(
          () => 'answered',
          (error: unknown) => (error as Error).message,
        ),
        new Promise<string>((resolve) =>
          setTimeout(() => resolve('still waiting after 20 s'), 20_000).unref(),
        ),
      ]);
      assert.match(
        outcome,
        new RegExp(
          `cannot reach the management API at https://mgmt\\.example\\.invalid:9443: CTL_PROXY_HUNG_UP \\(the proxy ${proxyUrl.replaceAll('.', '\\.')} closed the connection before it opened a tunnel to mgmt\\.example\\.invalid:9443; \\d+ attempts\\)`,
        ),
      );
      const closed = await Promise.race([
        http.close().then(() => 'closed'),
        new Promise<string>((resolve) =>
          setTimeout(() => resolve('close() still waiting after 20 s'), 20_000).unref(),
        ),
      ]);
      assert.equal(closed, 'closed');
    } finally {
      await http.close();
      for (const socket of sockets) socket.destroy();
      closing.close();
    }
  });
});
