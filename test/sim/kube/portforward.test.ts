import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { createServer, type Server } from 'node:net';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { KUBECTL_MINORS, kubectlPath, runTool } from '../../helpers/tools.js';
import { startTestCluster, type TestCluster, TOKEN } from './harness.js';

describe('pods/portforward routed to the resolver target', () => {
  let cluster: TestCluster;
  let echo: Server;
  const asked: string[] = [];

  before(async () => {
    echo = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const echoPort = (echo.address() as { port: number }).port;
    cluster = await startTestCluster({
      portForward: (namespace, pod, port) => {
        asked.push(`${namespace}/${pod}:${port}`);
        return { host: '127.0.0.1', port: echoPort };
      },
    });
    const { store } = cluster.server;
    const pods = store.resolve('v1', 'Pod');
    const pod = store.create(pods, {
      metadata: { name: 'rec-0', namespace: 'default' },
      spec: { containers: [] },
    });
    // kubectl port-forward reads the pod first and forwards only to a running one.
    store.updateStatus(pods, { ...pod, status: { phase: 'Running' } });
  });

  const forwardLines = () => cluster.audit.filter('GET', '*/pods/rec-0/portforward');
  after(async () => {
    await cluster.close();
    echo.close();
  });

  it('forwards bytes through client-node PortForward', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(cluster.sandbox.kubeconfig);
    const input = new PassThrough();
    const output = new PassThrough();
    let received = '';
    output.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
    });
    const ws = (await new k8s.PortForward(kc).portForward(
      'default',
      'rec-0',
      [9443],
      output,
      null,
      input,
    )) as unknown as {
      close(): void;
    };
    input.write('ping');
    const started = Date.now();
    while (!received.includes('ping') && Date.now() - started < 10_000)
      await new Promise((r) => setTimeout(r, 20));
    ws.close();
    assert.equal(received, 'ping');
    assert.deepEqual(asked, ['default/rec-0:9443']);
    // The audit line of an accepted upgrade says 101.
    assert.deepEqual(
      forwardLines().map((line) => line.status),
      [101],
    );
  });

  it('audits a WebSocket handshake it refuses with the 400 the client got', async () => {
    const before = cluster.audit.entries.length;
    const url = new URL(`${cluster.server.url}/api/v1/namespaces/default/pods/rec-0/portforward?ports=9443`);
    // No Sec-WebSocket-Key: the handshake is malformed, so no 101 was ever sent.
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpsRequest(url, {
        ca: cluster.server.caPem,
        headers: {
          Authorization: `Bearer ${TOKEN}`,
          Connection: 'Upgrade',
          Upgrade: 'websocket',
          'Sec-WebSocket-Version': '13',
          'Sec-WebSocket-Protocol': 'v4.channel.k8s.io',
        },
      });
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('upgrade', () => reject(new Error('the malformed handshake was upgraded')));
      request.on('error', reject);
      request.end();
    });
    assert.equal(status, 400);
    assert.deepEqual(
      cluster.audit.entries.slice(before).map((line) => `${line.method} ${line.status}`),
      ['GET 400'],
    );
  });

  // kubectl frames its port-forward in SPDY/3.1, which the simulator does not serve
  // (docs/simulator.md). 1.28 asks for a plain SPDY upgrade (POST); 1.32 and 1.35 first ask for a
  // WebSocket tunnel carrying SPDY (GET, subprotocol SPDY/3.1+portforward.k8s.io) and fall back
  // to the plain SPDY upgrade when it is refused. Each refusal is a 400 whose Status message
  // kubectl prints, and the audit records the 400s, not the 101s they asked for.
  for (const minor of KUBECTL_MINORS) {
    it(`refuses kubectl 1.${minor}'s port-forward with a reason it prints, audited as 400`, async () => {
      const before = cluster.audit.entries.length;
      const result = await runTool(
        kubectlPath(minor),
        ['port-forward', '-n', 'default', 'pod/rec-0', ':9443'],
        { env: cluster.sandbox.env },
      );
      assert.notEqual(result.code, 0, result.stdout);
      assert.match(result.stderr, /error upgrading connection: /);
      assert.match(result.stderr, /the simulated cluster does not serve kubectl's port-forward/);
      assert.match(result.stderr, /ctl's own port-forward works/);
      const attempts = cluster.audit.entries
        .slice(before)
        .filter((line) => /\/pods\/rec-0\/portforward/.test(line.path));
      assert.deepEqual(
        attempts.map((line) => `${line.method} ${line.status}`),
        minor === 28 ? ['POST 400'] : ['GET 400', 'POST 400'],
      );
    });
  }
});
