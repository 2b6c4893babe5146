import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import type { AuditLog } from '../audit.js';
import { type CertificateAuthority, createServerCertificate, type ServerCertificate } from '../tls.js';
import { applyHttpFault, FaultInjector, type FaultRule } from './faults.js';
import { handleApiRequest } from './handlers.js';
import type { RestModel } from './model.js';
import { listenOnLoopback } from '../listen.js';

export interface RestServerOptions {
  model: RestModel;
  /** Signs the server certificate (SAN IP:127.0.0.1, DNS:localhost). */
  ca: CertificateAuthority;
  audit: AuditLog;
  /** Default: a free port. */
  port?: number;
  faults?: FaultRule[];
  /** Tests pass an expired or wrong-name certificate here. */
  certificate?: ServerCertificate;
}

export interface RunningRestServer {
  url: string;
  port: number;
  faults: FaultInjector;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 256 * 1024 * 1024;

/** The management API emulator: HTTPS on 127.0.0.1, every request audited. */
export async function startRestServer(options: RestServerOptions): Promise<RunningRestServer> {
  const { model, audit } = options;
  const certificate = options.certificate ?? (await createServerCertificate(options.ca));
  const faults = new FaultInjector(options.faults ?? [], 'rest');

  const server: Server = createServer({ key: certificate.keyPem, cert: certificate.certPem }, (req, res) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const record = (status: number, user: string) =>
      audit.record({ api: 'rest', method, path, status, user, mutating: method !== 'GET' });

    void (async () => {
      const fault = faults.decide(method, path);
      if (fault) {
        const status = await applyHttpFault(fault, req, res);
        if (status !== undefined) {
          record(status, '');
          return;
        }
      }
      const body = await readBody(req);
      if (body === undefined) {
        res.writeHead(413, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error_code: 'too_large', message: 'Request body too large' }));
        record(413, '');
        return;
      }
      const response = await handleApiRequest(model, { method, path, headers: req.headers, body });
      res.writeHead(response.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(response.body));
      record(response.status, response.user);
    })().catch((error: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error_code: 'internal_error', message: String(error) }));
      }
      record(500, '');
    });
  });
  // TLS handshake failures (clients that distrust our CA) are the client's business.
  server.on('tlsClientError', () => {});
  // Every TCP connection, for close(): closeAllConnections() knows only those that finished the
  // TLS handshake, and server.close() waits for all of them. One connection that never sends a
  // ClientHello (a port probe, a client of a server that used this port before) would make
  // close() wait forever: a simulated cluster that never stops, a test run that hangs.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const port = await listenOnLoopback(server, options.port);
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    faults,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      }),
  };
}

async function readBody(req: NodeJS.ReadableStream): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}
