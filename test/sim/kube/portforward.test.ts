import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startTestCluster, type TestCluster } from './harness.js';

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
    store.create(store.resolve('v1', 'Pod'), {
      metadata: { name: 'rec-0', namespace: 'default' },
      spec: { containers: [] },
    });
  });
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
  });
});
