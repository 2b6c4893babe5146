import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { HttpClient } from '../../../src/api/http.js';
import { type SimFixture, startSim } from '../sim/rest/fixture.js';

/** A minimal CONNECT proxy that records the targets it tunnels to. */
async function startConnectProxy(): Promise<{ url: string; targets: string[]; server: Server }> {
  const targets: string[] = [];
  const server = createServer((_req, res) => {
    res.writeHead(405).end();
  });
  server.on('connect', (req, clientSocket, head) => {
    targets.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
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
    before(async () => {
      sim = await startSim();
      proxy = await startConnectProxy();
    });
    after(async () => {
      await sim.close();
      proxy.server.closeAllConnections();
      await new Promise((resolve) => proxy.server.close(resolve));
    });

    it('tunnels through HTTPS_PROXY with CONNECT and still verifies the API certificate', async () => {
      const http = new HttpClient({
        baseUrl: sim.url,
        ca: sim.ca.certPem,
        env: { HTTPS_PROXY: proxy.url },
        transport,
      });
      const response = await http.request({ method: 'GET', path: '/v1/cluster' });
      await http.close();
      assert.equal(response.status, 401);
      assert.deepEqual(proxy.targets, [`127.0.0.1:${sim.server.port}`]);

      const untrusted = new HttpClient({ baseUrl: sim.url, env: { HTTPS_PROXY: proxy.url }, transport });
      await assert.rejects(untrusted.request({ method: 'GET', path: '/v1/cluster' }), /TLS: the certificate/);
      await untrusted.close();
    });

    it('goes direct for hosts in NO_PROXY', async () => {
      const before = proxy.targets.length;
      const http = new HttpClient({
        baseUrl: sim.url,
        ca: sim.ca.certPem,
        env: { HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1' },
        transport,
      });
      const response = await http.request({ method: 'GET', path: '/v1/cluster' });
      await http.close();
      assert.equal(response.status, 401);
      assert.equal(proxy.targets.length, before);
    });
  });
