/**
 * A management API that misbehaves on purpose, for the bad-input and TLS tests: HTTPS with a
 * certificate chosen by the test (expired, wrong host, another CA), a valid-looking authorize,
 * then one hostile answer for every other call.
 */

import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { createGzip } from 'node:zlib';
import {
  type CertificateAuthority,
  createCertificateAuthority,
  createServerCertificate,
  type ServerCertificateOptions,
} from '../helpers/simulator.js';

export type HostileMode =
  | 'ok'
  | 'not-json'
  | 'html-500'
  | 'html-200'
  | 'wrong-types'
  | 'missing-fields'
  | 'null'
  | 'huge-10mb'
  | 'huge-html-10mb'
  | 'truncated-json'
  | 'json-cut-short'
  | 'slowloris-headers'
  | 'slowloris-body'
  | 'reset'
  | 'empty-200'
  | 'bad-token'
  | 'huge-header-1mb'
  | 'gzip-bomb'
  | 'drip-body-5s'
  | 'escape-names';

export const HOSTILE_MODES: HostileMode[] = [
  'not-json',
  'html-500',
  'html-200',
  'wrong-types',
  'missing-fields',
  'null',
  'huge-10mb',
  'huge-html-10mb',
  'truncated-json',
  'reset',
  'empty-200',
  'bad-token',
  'huge-header-1mb',
  'gzip-bomb',
];

/**
 * Names as whoever creates a database or uploads a module may set them: escape sequences that
 * clear the screen, set the window title and colour the text, a carriage return and a newline
 * that forge a line, a GitHub workflow command, Markdown that makes a link, a bidi override.
 */
export const HOSTILE_NAMES = [
  'db\u001b[2J\u001b[H\u001b]0;owned\u0007\u001b[31m\r\nforged line: upgrade complete',
  'mod\n::error::pwned\r\n::add-mask::x',
  'link | [x](https://evil.example) <img src=x> \u202etxt.exe',
];

export interface HostileServer {
  url: string;
  caPem: string;
  /** Which mode answers which request: authorize is `authorizeMode`, the rest `mode`. */
  setMode(mode: HostileMode, authorizeMode?: HostileMode): void;
  requests: number;
  close(): Promise<void>;
}

const TOKEN = `${Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')}.${Buffer.from(
  JSON.stringify({ iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 86_400 }),
).toString('base64url')}.c2lnbmF0dXJl`;

const HTML =
  '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>';

export async function startHostileServer(
  options: { ca?: CertificateAuthority; cert?: ServerCertificateOptions } = {},
): Promise<HostileServer> {
  const ca = options.ca ?? (await createCertificateAuthority('hostile CA'));
  const certificate = await createServerCertificate(ca, options.cert);
  let mode: HostileMode = 'ok';
  let authorizeMode: HostileMode = 'ok';
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const state = { requests: 0 };

  const server: Server = createServer({ key: certificate.keyPem, cert: certificate.certPem }, (req, res) => {
    state.requests += 1;
    req.resume();
    const isAuthorize = (req.url ?? '').startsWith('/v1/users/authorize');
    const current = isAuthorize ? authorizeMode : mode;
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    switch (current) {
      case 'ok':
        if (isAuthorize) return json(200, { access_token: TOKEN });
        return json(200, okBody(req.url ?? ''));
      case 'not-json':
        return json(200, 'this is { not json');
      case 'html-500':
        res.writeHead(500, { 'content-type': 'text/html' });
        return void res.end(HTML);
      case 'html-200':
        res.writeHead(200, { 'content-type': 'text/html' });
        return void res.end(HTML);
      case 'wrong-types':
        return json(
          200,
          isAuthorize ? { access_token: 42 } : { uid: 'one', software_version: 7, module_list: 'x' },
        );
      case 'missing-fields':
        return json(200, isAuthorize ? {} : [{}, { uid: 1 }]);
      case 'null':
        return json(200, 'null');
      case 'huge-10mb':
        return json(200, `{"padding":"${'x'.repeat(10 * 1024 * 1024)}"}`);
      case 'huge-html-10mb':
        res.writeHead(502, { 'content-type': 'text/html' });
        return void res.end(`<html><body>${'<p>oops</p>'.repeat(1024 * 1024)}</body></html>`);
      case 'json-cut-short':
        // A whole HTTP answer (its Content-Length met) whose JSON stops half way.
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('[{"uid": 1, "name": "cache", "software_version": ');
      case 'truncated-json':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"access_token": "abc", "more": [1, 2, ');
        return void setTimeout(() => req.socket.destroy(), 20);
      case 'reset':
        return void req.socket.destroy();
      case 'empty-200':
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end();
      case 'huge-header-1mb':
        // One megabyte of headers: more than any client should buffer.
        res.writeHead(200, { 'content-type': 'application/json', 'x-pad': 'x'.repeat(1024 * 1024) });
        return void res.end('{}');
      case 'gzip-bomb':
        // 128 MiB of zeros in about 130 KB, sent although ctl asked for no compression.
        // The headers at once: compressing the bomb (the first time) takes seconds of CPU on a
        // busy machine, and ctl tells the compression from the headers (a run beside a second
        // suite saw "no answer within 3 s" while the server still compressed).
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.flushHeaders();
        return void gzipBomb().then((bomb) => res.end(bomb));
      case 'drip-body-5s': {
        // The headers at once, then one byte of the body every 5 s.
        res.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => {
          if (!res.destroyed) res.write(' ');
        }, 5000);
        timers.add(timer);
        return;
      }
      case 'escape-names':
        if (isAuthorize) return json(200, { access_token: TOKEN });
        return json(200, hostileBody(req.url ?? ''));
      case 'bad-token':
        return json(
          200,
          isAuthorize ? { access_token: 'not a jwt at all \u0000\u001b[31m' } : okBody(req.url ?? ''),
        );
      case 'slowloris-headers': {
        // One byte of the status line every second: the headers never finish.
        const socket = req.socket;
        const text = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n';
        let i = 0;
        const timer = setInterval(() => {
          if (socket.destroyed || i >= text.length) return;
          socket.write(text[i] ?? '');
          i += 1;
        }, 1000);
        timers.add(timer);
        return;
      }
      case 'slowloris-body': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => {
          if (!res.destroyed) res.write(' ');
        }, 1000);
        timers.add(timer);
        return;
      }
    }
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caPem: ca.certPem,
    setMode: (next, auth = 'ok') => {
      mode = next;
      authorizeMode = auth;
    },
    get requests() {
      return state.requests;
    },
    close: async () => {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let bomb: Promise<Buffer> | undefined;

/** Made once, by streaming, so the test process never holds the 128 MiB. */
function gzipBomb(): Promise<Buffer> {
  bomb ??= new Promise((resolve, reject) => {
    const gzip = createGzip({ level: 9 });
    const chunks: Buffer[] = [];
    gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
    gzip.on('end', () => resolve(Buffer.concat(chunks)));
    gzip.on('error', reject);
    const zeros = Buffer.alloc(1024 * 1024);
    let left = 128;
    const write = (): void => {
      while (left > 0) {
        left -= 1;
        if (!gzip.write(zeros)) return void gzip.once('drain', write);
      }
      gzip.end();
    };
    write();
  });
  return bomb;
}

/** The management API's lists with hostile database and module names. */
function hostileBody(url: string): unknown {
  const [db, mod, other] = HOSTILE_NAMES as [string, string, string];
  if (url.startsWith('/v1/nodes')) return [{ uid: 1, software_version: '7.4.6-22', status: 'active' }];
  if (url.startsWith('/v1/bdbs'))
    return [
      {
        uid: 1,
        name: db,
        redis_version: '7.2',
        module_list: [{ module_name: mod, semantic_version: '2.8.4' }],
      },
      { uid: 2, name: other, redis_version: '7.2', module_list: [] },
    ];
  if (url.startsWith('/v1/modules'))
    return [{ uid: 'm1', module_name: mod, semantic_version: '2.8.4', platforms: {} }];
  return {};
}

function okBody(url: string): unknown {
  if (url.startsWith('/v1/nodes')) return [{ uid: 1, software_version: '7.4.6-22', status: 'active' }];
  if (url.startsWith('/v1/bdbs') || url.startsWith('/v1/modules')) return [];
  return {};
}
