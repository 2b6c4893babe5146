import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { before, describe, it } from 'node:test';
import { HttpClient, type Timeouts } from '../../../src/api/http.js';
import { OperationError } from '../../../src/errors.js';
import { type CertificateAuthority, createServerCertificate } from '../../../src/sim/tls.js';
import { testCa } from '../sim/rest/fixture.js';

/**
 * `ctl auth token`'s transport (src/api/node-https.ts): what undici did for HttpClient, Node's
 * https module must do the same way, with the same codes and messages. The TLS cases run for
 * both transports in tls.test.ts, the proxy cases in proxy.test.ts.
 */

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface TestServer {
  url: string;
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

async function startServer(ca: CertificateAuthority, handler: Handler): Promise<TestServer> {
  const certificate = await createServerCertificate(ca, { ipAddresses: ['127.0.0.1'], dnsNames: [] });
  const server: Server = createServer({ cert: certificate.certPem, key: certificate.keyPem }, handler);
  const sockets = new Set<Socket>();
  let connections = 0;
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function client(
  url: string,
  ca: CertificateAuthority,
  options: { timeouts?: Partial<Timeouts>; maxAttempts?: number; maxBodyBytes?: number } = {},
): HttpClient {
  return new HttpClient({
    baseUrl: url,
    ca: ca.certPem,
    transport: 'node-https',
    env: {},
    timeouts: options.timeouts,
    retry: { maxAttempts: options.maxAttempts ?? 1, baseDelayMs: 1, maxDelayMs: 1 },
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
  });
}

async function expectOperationError(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof OperationError, String(error));
    assert.match(error.message, pattern);
    return true;
  });
}

describe('HttpClient through node:https (transport node-https)', () => {
  let ca: CertificateAuthority;
  before(async () => {
    ca = await testCa();
  });

  it('sends the JSON body with its length, reads JSON, and reuses one connection', async () => {
    const seen: { method?: string; length?: string; type?: string; body: string }[] = [];
    const server = await startServer(ca, (req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        seen.push({
          method: req.method,
          length: req.headers['content-length'],
          type: req.headers['content-type'],
          body,
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"t"}');
      });
    });
    const http = client(server.url, ca);
    try {
      for (let i = 0; i < 2; i += 1) {
        const response = await http.request({
          method: 'POST',
          path: '/v1/users/authorize',
          json: { ttl: 5 },
        });
        assert.equal(response.status, 200);
        assert.deepEqual(response.body, { access_token: 't' });
      }
      assert.deepEqual(seen[0], {
        method: 'POST',
        length: '9',
        type: 'application/json',
        body: '{"ttl":5}',
      });
      assert.equal(seen.length, 2);
      assert.equal(server.connections(), 1, 'the second request reuses the kept-alive socket');
    } finally {
      await http.close();
      await server.close();
    }
  });

  it('gives up waiting for headers with the headers timeout, named by its code', async () => {
    const server = await startServer(ca, () => {
      // Never answers.
    });
    const http = client(server.url, ca, { timeouts: { headersMs: 150 } });
    try {
      await expectOperationError(
        http.request({ method: 'GET', path: '/v1/cluster' }),
        /cannot reach the management API at https:\/\/127\.0\.0\.1:\d+: UND_ERR_HEADERS_TIMEOUT/,
      );
    } finally {
      await http.close();
      await server.close();
    }
  });

  it('gives up on a body that stops dripping with the body timeout, and retries a GET', async () => {
    let requests = 0;
    const server = await startServer(ca, (_req, res) => {
      requests += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[1,');
    });
    const http = client(server.url, ca, { timeouts: { bodyMs: 150 }, maxAttempts: 2 });
    try {
      await expectOperationError(
        http.request({ method: 'GET', path: '/v1/bdbs' }),
        /cannot reach the management API at https:\/\/127\.0\.0\.1:\d+: UND_ERR_BODY_TIMEOUT/,
      );
      assert.equal(requests, 2, 'an idempotent GET is tried again after a body timeout');
    } finally {
      await http.close();
      await server.close();
    }
  });

  it('refuses headers larger than 16 KiB with the message undici gave', async () => {
    const server = await startServer(ca, (_req, res) => {
      res.writeHead(200, { 'x-big': 'a'.repeat(20 * 1024) }).end('{}');
    });
    const http = client(server.url, ca);
    try {
      await expectOperationError(
        http.request({ method: 'GET', path: '/v1/cluster' }),
        /the response headers from https:\/\/127\.0\.0\.1:\d+ are larger than ctl reads \(16 KiB\)/,
      );
    } finally {
      await http.close();
      await server.close();
    }
  });

  it('stops reading an answer larger than the limit, and refuses a compressed one', async () => {
    const server = await startServer(ca, (req, res) => {
      if (req.url === '/gzip') res.writeHead(200, { 'content-encoding': 'gzip' }).end('xx');
      else res.writeHead(200).end('x'.repeat(1536 * 1024));
    });
    const http = client(server.url, ca, { maxBodyBytes: 1024 * 1024 });
    try {
      await expectOperationError(
        http.request({ method: 'GET', path: '/big' }),
        /the answer is larger than 1 MiB; ctl stopped reading it/,
      );
      await expectOperationError(
        http.request({ method: 'GET', path: '/gzip' }),
        /the answer is compressed \(content-encoding gzip\)/,
      );
    } finally {
      await http.close();
      await server.close();
    }
  });

  it('retries a POST that never left (connection refused), then names the API and the fix', async () => {
    const server = await startServer(ca, () => {});
    const url = server.url;
    await server.close();
    const http = client(url, ca, { maxAttempts: 2 });
    try {
      await assert.rejects(
        http.request({ method: 'POST', path: '/v1/users/authorize', json: {} }),
        (error: OperationError) => {
          assert.match(
            error.message,
            /cannot reach the management API at https:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/,
          );
          assert.match(error.hint ?? '', /--api-url/);
          return true;
        },
      );
    } finally {
      await http.close();
    }
  });
});
