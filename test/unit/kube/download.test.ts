/**
 * What ctl downloads (src/kube/download.ts, issue 35): a size limit that holds while the body
 * streams, one deadline for the whole read, regular files only, redirects never from https to
 * http, plain http only on this machine or when allowed, and locations printed without their
 * credentials. Servers are local; `.invalid` names never resolve, so no test reaches a network.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  allowPlainHttp,
  displayLocation,
  download,
  downloadRefusal,
  locationSecrets,
  MIB,
  redirectTarget,
} from '../../../src/kube/download.js';
import { pumpForever } from '../../helpers/endless-body.js';

const LIMITS = { what: 'the test file', maxBytes: 1 * MIB, deadlineMs: 5_000 };

describe('download', () => {
  let server: Server;
  let base: string;
  let dir: string;
  const open = new Set<ServerResponse>();

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-download-'));
    server = createServer((req, res) => {
      open.add(res);
      res.on('close', () => open.delete(res));
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === '/endless') {
        // Streams for ever, as fast as the reader takes it.
        res.writeHead(200, { 'content-type': 'text/plain' });
        pumpForever(res, Buffer.alloc(64 * 1024, 'a'));
      } else if (url.pathname === '/drip') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => res.write('x'), 200);
        res.on('close', () => clearInterval(timer));
      } else if (url.pathname === '/start') {
        res.writeHead(302, { location: '/final?sig=s3cr3t-signature' });
        res.end();
      } else if (url.pathname === '/final') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('final body');
      } else if (url.pathname === '/private') {
        // A mirror behind HTTP Basic, user `mirror`, password `p@ss:word`.
        const wanted = `Basic ${Buffer.from('mirror:p@ss:word').toString('base64')}`;
        res.writeHead(req.headers.authorization === wanted ? 200 : 401);
        res.end(req.headers.authorization === wanted ? 'private body' : '');
      } else if (url.pathname === '/private-start') {
        res.writeHead(302, { location: '/private' });
        res.end();
      } else if (url.pathname === '/loop') {
        res.writeHead(302, { location: '/loop' });
        res.end();
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  after(async () => {
    for (const res of open) res.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
    allowPlainHttp(false);
  });

  it('stops an endless body at the size limit', async () => {
    await assert.rejects(
      download(`${base}/endless`, LIMITS),
      /larger than 1 MiB, the limit for the test file/,
    );
  });

  it('stops a dripping body at the deadline', async () => {
    await assert.rejects(
      download(`${base}/drip`, { ...LIMITS, deadlineMs: 1_000 }),
      /no complete answer within 1 s, the limit for the test file/,
    );
  });

  it('follows an http redirect on this machine and names where it ended', async () => {
    const read = await download(`${base}/start?token=abcd1234`, LIMITS);
    assert.equal(read.text, 'final body');
    assert.equal(read.origin, `${base}/final?sig=s3cr3t-signature`);
    await assert.rejects(download(`${base}/loop`, LIMITS), /more than 5 redirects/);
  });

  it('sends user:pass@ as HTTP Basic (fetch refuses a URL with credentials), across a same-origin redirect', async () => {
    const withCredentials = base.replace('://', '://mirror:p%40ss%3Aword@');
    for (const start of ['/private', '/private-start']) {
      const read = await download(`${withCredentials}${start}`, LIMITS);
      assert.equal(read.text, 'private body', start);
    }
    await assert.rejects(download(`${base}/private`, LIMITS), /HTTP 401/);
  });

  it('never follows https to http', () => {
    assert.throws(
      () =>
        redirectTarget(
          'https://example.com/catalog.yaml',
          'http://example.com/catalog.yaml',
          'the test file',
        ),
      /from https to plain http; ctl does not follow it/,
    );
    assert.equal(
      redirectTarget('https://example.com/a/catalog.yaml', '/b/catalog.yaml', 'x'),
      'https://example.com/b/catalog.yaml',
    );
    assert.equal(redirectTarget('http://127.0.0.1/a', 'https://example.com/b', 'x'), 'https://example.com/b');
  });

  it('reads plain http from another machine only when allowed', async () => {
    await assert.rejects(
      download('http://ctl-test.invalid/catalog.yaml', LIMITS, { env: {} }),
      /refusing the test file http:\/\/ctl-test\.invalid\/catalog\.yaml: plain http/,
    );
    // Allowed: it is tried (and the name does not resolve).
    await assert.rejects(
      download('http://ctl-test.invalid/catalog.yaml', LIMITS, { env: { CTL_ALLOW_HTTP: '1' } }),
      /cannot download the test file/,
    );
    allowPlainHttp(true);
    await assert.rejects(download('http://ctl-test.invalid/c.yaml', LIMITS, { env: {} }), /cannot download/);
    allowPlainHttp(false);
  });

  it('reads regular files only, within the limit', async () => {
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    await assert.rejects(download(fifo, LIMITS), /it is a FIFO \(named pipe\), not a regular file/);
    await assert.rejects(download('/dev/zero', LIMITS), /it is a character device, not a regular file/);
    await assert.rejects(download(dir, LIMITS), /it is a directory/);
    const big = path.join(dir, 'big.yaml');
    writeFileSync(big, '');
    truncateSync(big, 2 * MIB);
    await assert.rejects(download(big, LIMITS), /it is 2 MiB, larger than 1 MiB/);
    const small = path.join(dir, 'small.yaml');
    writeFileSync(small, 'a: 1\n');
    assert.deepEqual(await download(small, LIMITS), { text: 'a: 1\n', origin: small });
  });

  it('prints a location without its credentials', () => {
    assert.equal(
      displayLocation('https://user:pa55word@example.com/c.yaml?token=abc&X-Amz-Signature=f00#frag'),
      'https://***@example.com/c.yaml?token=***&X-Amz-Signature=***',
    );
    assert.equal(displayLocation('/tmp/catalog.yaml'), '/tmp/catalog.yaml');
    // A URL that does not parse: everything before the authority's last `@` is hidden.
    assert.equal(
      displayLocation('https://user:pa@55@ho[st/c.yaml?token=abc'),
      'https://***@ho[st/c.yaml?***',
    );
    assert.deepEqual(downloadRefusal('https://user:pa55@ho[st/c.yaml', {}), {
      reason: 'is not a URL',
      hint: 'Give the location as an https URL or a file.',
    });
    assert.deepEqual(
      locationSecrets('https://user:pa55word@example.com/c.yaml?token=a%2Fb').sort(),
      ['a%2Fb', 'a/b', 'pa55word', 'user'].sort(),
    );
  });
});
