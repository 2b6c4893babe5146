/**
 * The parts of a kubeconfig that the bundle loads only when a kubeconfig uses them
 * (scripts/bundle.mjs, issue 39): the azure, gcp and oidc auth providers and the proxy agents of
 * a cluster's `proxy-url` (http and socks). The BUILT ctl runs against a local server that stands
 * for the API server, and the test reads what arrived: the credential each provider produced and
 * the way through each proxy. The server answers 403 to everything; the command fails after its
 * first requests, which is all this test needs.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import {
  type AddressInfo,
  connect,
  createServer as createTcpServer,
  type Server as TcpServer,
  type Socket,
} from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCtl } from '../helpers/run-ctl.js';

interface Seen {
  target: string;
  authorization: string | undefined;
}

/** A JWT (unsigned: nothing here verifies it) that expires in 2099, as an OIDC id-token. */
function idToken(): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ sub: 'someone', exp: 4_070_908_800 })}.signature`;
}

describe('kubeconfig auth providers and proxies, loaded when used', { timeout: 120_000 }, () => {
  let dir: string;
  let api: Server;
  let apiPort: number;
  let socks: TcpServer;
  let socksPort: number;
  const seen: Seen[] = [];
  const socksTargets: string[] = [];
  const connectTargets: string[] = [];
  const sockets = new Set<Socket>();
  /** A tunnel's socket, closed at the end; ctl closing its end first is no error. */
  const keep = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
  };

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-kubeconfig-plugins-'));
    api = createServer((req: IncomingMessage, res) => {
      seen.push({ target: req.url ?? '', authorization: req.headers.authorization });
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 403,
          message: 'forbidden by the test',
        }),
      );
    });
    // As an http proxy (hpagent tunnels with CONNECT, to this same server).
    api.on('connect', (req: IncomingMessage, client: Socket) => {
      connectTargets.push(req.url ?? '');
      const upstream = connect(apiPort, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(client).pipe(upstream);
      });
      keep(client);
      keep(upstream);
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    apiPort = (api.address() as AddressInfo).port;
    // SOCKS5 without authentication (RFC 1928): every CONNECT goes to the test's API server.
    socks = createTcpServer((client) => {
      keep(client);
      client.once('data', () => {
        client.write(Buffer.from([5, 0]));
        client.once('data', (request: Buffer) => {
          // VER CMD RSV ATYP=3 (a domain name) LEN NAME PORT
          const length = request[4] ?? 0;
          socksTargets.push(
            `${request.subarray(5, 5 + length).toString()}:${request.readUInt16BE(5 + length)}`,
          );
          const upstream = connect(apiPort, '127.0.0.1', () => {
            client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
            upstream.pipe(client).pipe(upstream);
          });
          keep(upstream);
        });
      });
    });
    await new Promise<void>((resolve) => socks.listen(0, '127.0.0.1', resolve));
    socksPort = (socks.address() as AddressInfo).port;
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => api.close(() => resolve()));
    await new Promise<void>((resolve) => socks.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * `ctl upgrade plan` with a kubeconfig of one cluster and one user, as JSON (which is YAML); the
   * requests that reached the server for it. Its server URL ends in `/<name>`, and only requests
   * under that path are its own: on a busy machine the server may read the previous test's last
   * request only after that test's ctl has exited.
   */
  async function planWith(
    name: string,
    cluster: { server: string; 'proxy-url'?: string },
    user: object,
  ): Promise<Seen[]> {
    const kubeconfig = path.join(dir, `${name}.kubeconfig`);
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'c',
            cluster: { 'insecure-skip-tls-verify': true, ...cluster, server: `${cluster.server}/${name}` },
          },
        ],
        users: [{ name: 'u', user }],
        contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u', namespace: 'redis' } }],
        'current-context': 'ctx',
      }),
    );
    const result = await runCtl(['upgrade', 'plan', '--to', '7.8.2-6', '--kubeconfig', kubeconfig], {
      env: { HOME: dir, XDG_STATE_HOME: dir, XDG_CACHE_HOME: dir },
    });
    assert.notEqual(result.code, 0, 'the stand-in API server refuses everything');
    assert.doesNotMatch(result.stderr, /internal|Cannot find|is not a constructor|TypeError/, result.stderr);
    const own = seen.filter((request) => request.target.startsWith(`/${name}/`));
    assert.ok(own.length > 0, `no request reached the server: ${result.stderr}`);
    return own;
  }

  it('gcp: the token from the helper command, read with its JSONPath keys', async () => {
    const helper = path.join(dir, 'gcp-helper.mjs');
    writeFileSync(
      helper,
      `process.stdout.write(JSON.stringify({ credential: { access_token: 'gcp-token-from-helper', token_expiry: '2099-01-01T00:00:00Z' } }));\n`,
    );
    const requests = await planWith(
      'gcp',
      { server: `http://127.0.0.1:${apiPort}` },
      {
        'auth-provider': {
          name: 'gcp',
          config: {
            'cmd-path': process.execPath,
            'cmd-args': helper,
            'token-key': '{.credential.access_token}',
            'expiry-key': '{.credential.token_expiry}',
          },
        },
      },
    );
    assert.equal(requests[0]?.authorization, 'Bearer gcp-token-from-helper');
  });

  it('azure: the access token of the kubeconfig', async () => {
    const requests = await planWith(
      'azure',
      { server: `http://127.0.0.1:${apiPort}` },
      {
        'auth-provider': {
          name: 'azure',
          config: { 'access-token': 'azure-token', expiry: '2099-01-01T00:00:00Z' },
        },
      },
    );
    assert.equal(requests[0]?.authorization, 'Bearer azure-token');
  });

  it('oidc: the id-token while it is valid', async () => {
    const token = idToken();
    const requests = await planWith(
      'oidc',
      { server: `http://127.0.0.1:${apiPort}` },
      {
        'auth-provider': {
          name: 'oidc',
          config: {
            'id-token': token,
            'client-id': 'ctl',
            'idp-issuer-url': 'https://issuer.example.invalid',
          },
        },
      },
    );
    assert.equal(requests[0]?.authorization, `Bearer ${token}`);
  });

  it('an http proxy-url: the connection is a tunnel through the proxy', async () => {
    connectTargets.length = 0;
    const requests = await planWith(
      'http-proxy',
      { server: 'http://kube.example.invalid', 'proxy-url': `http://127.0.0.1:${apiPort}` },
      { token: 'token-through-the-proxy' },
    );
    assert.equal(connectTargets[0], 'kube.example.invalid:80');
    assert.equal(requests[0]?.authorization, 'Bearer token-through-the-proxy');
  });

  it('a socks proxy-url: the connection goes through the SOCKS server', async () => {
    socksTargets.length = 0;
    const requests = await planWith(
      'socks-proxy',
      { server: 'http://kube.example.invalid', 'proxy-url': `socks5h://127.0.0.1:${socksPort}` },
      { token: 'token-through-socks' },
    );
    assert.equal(socksTargets[0], 'kube.example.invalid:80');
    assert.equal(requests[0]?.authorization, 'Bearer token-through-socks');
  });
});
