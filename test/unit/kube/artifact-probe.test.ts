/**
 * The plan's artifact probe (src/kube/artifact-probe.ts, check target-available): found, not
 * found or unknown from a local server's answers, redirects followed as fetch follows them,
 * HEAD refused and asked again with GET, a repository index's text read, and through a proxy
 * when HTTP_PROXY says so. Servers are local; no test reaches a network.
 */

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { probeLocation } from '../../../src/kube/artifact-probe.js';
import { tempDir } from '../../helpers/temp.js';

const NO_PROXY_ENV: NodeJS.ProcessEnv = {};

describe('probeLocation over http', () => {
  let server: Server;
  let base: string;
  /** The request lines the server saw: the method and the target as sent (absolute through a proxy). */
  const seen: string[] = [];
  const tunnels = new Set<Socket>();

  before(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const url = new URL(req.url ?? '/', 'http://localhost');
      const route: Record<string, () => void> = {
        '/bundle.yaml': () => res.writeHead(200, { 'content-type': 'text/yaml' }).end('kind: List\n'),
        '/gone': () => res.writeHead(410).end(),
        '/broken': () => res.writeHead(500).end(),
        '/no-head': () =>
          req.method === 'HEAD' ? res.writeHead(405).end() : res.writeHead(200).end('served to GET'),
        '/moved': () => res.writeHead(302, { location: '/elsewhere/bundle.yaml' }).end(),
        '/elsewhere/bundle.yaml': () => res.writeHead(200).end('kind: List\n'),
        '/loop': () => res.writeHead(302, { location: '/loop' }).end(),
        // A byte order mark first, as some editors save YAML: fetch's text() drops it.
        '/index.yaml': () => res.writeHead(200).end('\uFEFFentries:\n  redis-enterprise-operator: []\n'),
        // An index larger than the probe's bound, in chunks (no content-length to go by).
        '/huge-index.yaml': () => {
          res.writeHead(200);
          for (let i = 0; i < 64; i++) res.write('#'.repeat(1024) + '\n');
          res.end();
        },
      };
      (route[url.pathname] ?? (() => res.writeHead(404).end()))();
    });
    // As a proxy: a CONNECT tunnel to this same server, whatever host it names.
    server.on('connect', (req, client: Socket) => {
      seen.push(`CONNECT ${req.url}`);
      const upstream = connect((server.address() as AddressInfo).port, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(client).pipe(upstream);
      });
      // A probe that stops reading (a body past its bound) resets its tunnel: expected here.
      for (const socket of [upstream, client]) socket.on('error', () => undefined);
      tunnels.add(upstream).add(client);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const socket of tunnels) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('a 2xx answer to HEAD is found', async () => {
    seen.length = 0;
    const answer = await probeLocation(`${base}/bundle.yaml`, { env: NO_PROXY_ENV });
    assert.deepEqual(answer, { found: true, detail: `${base}/bundle.yaml: HTTP 200`, text: undefined });
    assert.deepEqual(seen, ['HEAD /bundle.yaml']);
  });

  it('404 and 410 are not found; any other status is unknown', async () => {
    assert.equal((await probeLocation(`${base}/missing`, { env: NO_PROXY_ENV })).found, false);
    assert.equal((await probeLocation(`${base}/gone`, { env: NO_PROXY_ENV })).found, false);
    const broken = await probeLocation(`${base}/broken`, { env: NO_PROXY_ENV });
    assert.deepEqual(broken, { found: undefined, detail: `${base}/broken: HTTP 500` });
  });

  it('a server that refuses HEAD is asked with GET', async () => {
    seen.length = 0;
    const answer = await probeLocation(`${base}/no-head`, { env: NO_PROXY_ENV });
    assert.equal(answer.found, true);
    assert.equal(answer.text, undefined, 'the body is not read when it was not asked for');
    assert.deepEqual(seen, ['HEAD /no-head', 'GET /no-head']);
  });

  it('follows a redirect; a redirect loop is unknown, not missing', async () => {
    seen.length = 0;
    const moved = await probeLocation(`${base}/moved`, { env: NO_PROXY_ENV });
    assert.deepEqual(moved, { found: true, detail: `${base}/moved: HTTP 200`, text: undefined });
    assert.deepEqual(seen, ['HEAD /moved', 'HEAD /elsewhere/bundle.yaml']);
    const loop = await probeLocation(`${base}/loop`, { env: NO_PROXY_ENV });
    assert.equal(loop.found, undefined);
    assert.match(loop.detail, /^http:\/\/127\.0\.0\.1:\d+\/loop: more than 20 redirects$/);
  });

  it('reads the body when asked (a repository index), as UTF-8 without its byte order mark', async () => {
    const answer = await probeLocation(`${base}/index.yaml`, { env: NO_PROXY_ENV, body: true });
    assert.equal(answer.found, true);
    assert.equal(answer.text, 'entries:\n  redis-enterprise-operator: []\n');
  });

  it('a body larger than its bound is unknown, not read whole (directly and through a proxy)', async () => {
    for (const env of [NO_PROXY_ENV, { HTTP_PROXY: base }]) {
      const location =
        env === NO_PROXY_ENV ? `${base}/huge-index.yaml` : 'http://artifacts.example.invalid/huge-index.yaml';
      const answer = await probeLocation(location, { env, body: true, maxBodyBytes: 16 * 1024 });
      assert.deepEqual(answer, {
        found: undefined,
        detail: `${location}: the answer is larger than 0.015625 MiB`,
      });
    }
    const file = path.join(tempDir('ctl-probe-'), 'index.yaml');
    writeFileSync(file, 'x'.repeat(32 * 1024));
    const local = await probeLocation(file, { body: true, maxBodyBytes: 16 * 1024 });
    assert.equal(local.found, undefined);
    assert.match(local.detail, /larger than/);
  });

  it('no server is unknown, with the transport error code', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const answer = await probeLocation(`http://127.0.0.1:${port}/bundle.yaml`, { env: NO_PROXY_ENV });
    assert.deepEqual(answer, {
      found: undefined,
      detail: `http://127.0.0.1:${port}/bundle.yaml: ECONNREFUSED`,
    });
  });

  it('goes through the proxy that HTTP_PROXY names', async () => {
    seen.length = 0;
    // The same server is the proxy: undici tunnels to the host the URL names (which does not
    // resolve: only the proxy can reach it).
    const answer = await probeLocation('http://artifacts.example.invalid/bundle.yaml', {
      env: { HTTP_PROXY: base },
    });
    assert.equal(answer.found, true, answer.detail);
    assert.deepEqual(seen, ['CONNECT artifacts.example.invalid:80', 'HEAD /bundle.yaml']);
  });
});
