import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { KubeConfig, PortForward } from '@kubernetes/client-node';
import WebSocket from 'ws';
import { handlePortForward } from '../../../../src/sim/kube/portforward.js';

/** Resolves once `stream` has produced at least `expected` (as text). */
function collect(stream: PassThrough, expected: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`timed out; got ${JSON.stringify(text)}`)), timeoutMs);
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes(expected)) {
        clearTimeout(timer);
        resolve(text);
      }
    });
  });
}

function listen(server: Server | TcpServer): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

describe('handlePortForward', () => {
  let echo: TcpServer;
  let echoPort: number;
  let closedPort: number;
  let api: Server;
  let apiPort: number;
  const sockets = new Set<WebSocket>();

  before(async () => {
    echo = createTcpServer((connection) => connection.pipe(connection));
    echoPort = await listen(echo);
    // A port nothing listens on: bind, read the number, close.
    const probe = createTcpServer();
    closedPort = await listen(probe);
    await new Promise((resolve) => probe.close(resolve));

    api = createServer((_request, response) => response.writeHead(404).end());
    api.on('upgrade', (request, socket, head) => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const ports = url.searchParams.getAll('ports').flatMap((p) => p.split(',').map(Number));
      const pod = /\/pods\/([^/]+)\/portforward$/.exec(url.pathname)?.[1];
      const target = { host: '127.0.0.1', port: pod === 'broken-0' ? closedPort : echoPort };
      handlePortForward(request, socket, head, target, ports);
    });
    apiPort = await listen(api);
  });

  after(async () => {
    for (const socket of sockets) socket.terminate();
    api.closeAllConnections();
    await new Promise((resolve) => api.close(resolve));
    await new Promise((resolve) => echo.close(resolve));
  });

  function kubeConfig(): KubeConfig {
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: 'sim', server: `http://127.0.0.1:${apiPort}`, skipTLSVerify: true }],
      users: [{ name: 'sim', token: 'sim-token' }],
      contexts: [{ name: 'sim', cluster: 'sim', user: 'sim', namespace: 'redis' }],
      currentContext: 'sim',
    });
    return config;
  }

  it('echoes bytes through the real @kubernetes/client-node PortForward', async () => {
    const [input, output, errors] = [new PassThrough(), new PassThrough(), new PassThrough()];
    const socket = (await new PortForward(kubeConfig()).portForward(
      'redis',
      'rec-0',
      [9443],
      output,
      errors,
      input,
    )) as WebSocket;
    sockets.add(socket);
    assert.equal(socket.protocol, 'v4.channel.k8s.io');
    const received = collect(output, 'hello, cluster');
    input.write('hello, ');
    input.write(Buffer.from('cluster'));
    assert.equal(await received, 'hello, cluster');
    socket.close();
  });

  it('reports a connection failure on the error channel', async () => {
    const [input, output, errors] = [new PassThrough(), new PassThrough(), new PassThrough()];
    const socket = (await new PortForward(kubeConfig()).portForward(
      'redis',
      'broken-0',
      [8443],
      output,
      errors,
      input,
    )) as WebSocket;
    sockets.add(socket);
    const message = await collect(errors, 'ECONNREFUSED');
    assert.match(message, /^error forwarding port 8443 to pod broken-0: connect ECONNREFUSED/);
    await new Promise((resolve) =>
      socket.readyState === WebSocket.CLOSED ? resolve(undefined) : socket.once('close', resolve),
    );
  });

  /** A raw WebSocket client: the frames exactly as the server sends them. */
  function openRaw(
    path: string,
    protocols: string[],
  ): Promise<{ socket: WebSocket; frames: (Buffer | string)[] }> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${apiPort}${path}`, protocols);
      sockets.add(socket);
      const frames: (Buffer | string)[] = [];
      socket.on('message', (data: Buffer, isBinary) => frames.push(isBinary ? data : data.toString()));
      socket.on('open', () => resolve({ socket, frames }));
      socket.on('error', reject);
    });
  }

  async function until(condition: () => boolean): Promise<void> {
    for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(condition(), 'condition met in time');
  }

  it('announces every port on its data and error channels, then forwards each data channel', async () => {
    const { socket, frames } = await openRaw(
      '/api/v1/namespaces/redis/pods/rec-0/portforward?ports=8443,9443',
      ['v4.channel.k8s.io'],
    );
    await until(() => frames.length >= 4);
    assert.deepEqual(frames.slice(0, 4), [
      Buffer.from([0, 0xfb, 0x20]),
      Buffer.from([1, 0xfb, 0x20]),
      Buffer.from([2, 0xe3, 0x24]),
      Buffer.from([3, 0xe3, 0x24]),
    ]);
    socket.send(Buffer.concat([Buffer.of(2), Buffer.from('second port')]));
    await until(() => frames.length >= 5);
    assert.deepEqual(frames[4], Buffer.concat([Buffer.of(2), Buffer.from('second port')]));
    socket.close();
  });

  it('speaks the base64 variant with text frames', async () => {
    const { socket, frames } = await openRaw('/api/v1/namespaces/redis/pods/rec-0/portforward?ports=80', [
      'v4.base64.channel.k8s.io',
    ]);
    assert.equal(socket.protocol, 'v4.base64.channel.k8s.io');
    await until(() => frames.length >= 2);
    assert.deepEqual(frames.slice(0, 2), [`0${Buffer.from([80, 0]).toString('base64')}`, `1UAA=`]);
    socket.send(`0${Buffer.from('ping').toString('base64')}`);
    await until(() => frames.length >= 3);
    assert.equal(frames[2], `0${Buffer.from('ping').toString('base64')}`);
    socket.close();
  });

  it('refuses protocols the kubelet does not speak, and requests without ports', async () => {
    await assert.rejects(
      openRaw('/api/v1/namespaces/redis/pods/rec-0/portforward?ports=80', ['v5.channel.k8s.io']),
      /Unexpected server response: 400/,
    );
    await assert.rejects(
      openRaw('/api/v1/namespaces/redis/pods/rec-0/portforward', ['v4.channel.k8s.io']),
      /Unexpected server response: 400/,
    );
  });
});
