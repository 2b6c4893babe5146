/**
 * A management API that misbehaves on purpose, for the bad-input and TLS tests: HTTPS with a
 * certificate chosen by the test (expired, wrong host, another CA), a valid-looking authorize,
 * then one hostile answer for every other call.
 */

import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import {
  type CertificateAuthority,
  createCertificateAuthority,
  createServerCertificate,
  type ServerCertificateOptions,
} from '../../src/sim/tls.js';

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
  | 'slowloris-headers'
  | 'slowloris-body'
  | 'reset'
  | 'empty-200'
  | 'bad-token';

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
      case 'truncated-json':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"access_token": "abc", "more": [1, 2, ');
        return void setTimeout(() => req.socket.destroy(), 20);
      case 'reset':
        return void req.socket.destroy();
      case 'empty-200':
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end();
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

function okBody(url: string): unknown {
  if (url.startsWith('/v1/nodes')) return [{ uid: 1, software_version: '7.4.6-22', status: 'active' }];
  if (url.startsWith('/v1/bdbs') || url.startsWith('/v1/modules')) return [];
  return {};
}
