import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { createSecureContext, type PeerCertificate } from 'node:tls';

/**
 * A transport of the management API client on Node's own https module, for a short exchange
 * (`ctl auth token`: one or two requests) where loading undici would cost more than the
 * exchange: undici is ~1 MB of JavaScript and a WebAssembly HTTP parser, 0.1-0.2 s of a command
 * that curl answers in 15 ms (docs/performance.md). HttpClient keeps the retries, deadlines,
 * body limits and error messages; this module sends one request with the same TLS settings and
 * reports failures with the codes undici uses (UND_ERR_*), so those stay the same whichever
 * transport carried the request. No proxy: with HTTPS_PROXY or HTTP_PROXY set, HttpClient uses
 * undici's EnvHttpProxyAgent as before.
 */

export interface NodeTlsSettings {
  /** PEM bundle to trust instead of the system roots. */
  ca?: string | undefined;
  rejectUnauthorized: boolean;
  /** With `ca`: a certificate in it is an anchor even when not self-signed (a pinned leaf). */
  allowPartialTrustChain?: boolean | undefined;
  servername?: string | undefined;
  checkServerIdentity?: ((host: string, cert: PeerCertificate) => Error | undefined) | undefined;
}

export interface NodeTransportOptions {
  tls: NodeTlsSettings;
  /** TCP connect and TLS handshake. */
  connectMs: number;
  /** From sending the request until the response headers arrive. */
  headersMs: number;
  /** Between two chunks of the body. */
  bodyMs: number;
}

export interface NodeRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  signal: AbortSignal;
}

/** What HttpClient reads of an answer: the same shape as undici.request's. */
export interface NodeResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Buffer> & { destroy(): unknown };
}

/** An error carrying the code undici would have given, so retries and messages are unchanged. */
function coded(code: string, message: string): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

/** Node's HTTP parser codes for the same failures, as undici names them. */
const PARSER_CODES: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'UND_ERR_HEADERS_OVERFLOW',
};

export class NodeHttpsTransport {
  readonly #agent: Agent;
  readonly #options: NodeTransportOptions;

  constructor(options: NodeTransportOptions) {
    this.#options = options;
    // keepAlive: the second request of `--auth-form auto` (body after a 400) reuses the socket,
    // as undici's pool does.
    // One TLS context for every connection: without it Node builds one per connection from the
    // same settings, parsing the CA again (~0.4 ms each; a plan opens several at once).
    const { ca, allowPartialTrustChain } = options.tls;
    this.#agent = new Agent({
      keepAlive: true,
      ...options.tls,
      secureContext: createSecureContext({
        ca,
        ...(allowPartialTrustChain ? { allowPartialTrustChain } : {}),
      }),
    });
  }

  send(request: NodeRequest): Promise<NodeResponse> {
    const { tls, connectMs, headersMs, bodyMs } = this.#options;
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...request.headers };
      if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
      const req = httpsRequest(request.url, {
        method: request.method,
        headers,
        agent: this.#agent,
        signal: request.signal,
        ...tls,
      });
      let connectTimer: NodeJS.Timeout | undefined;
      const headersTimer = setTimeout(() => {
        req.destroy(coded('UND_ERR_HEADERS_TIMEOUT', `no response headers within ${headersMs} ms`));
      }, headersMs);
      const clearTimers = () => {
        clearTimeout(headersTimer);
        if (connectTimer) clearTimeout(connectTimer);
      };
      req.on('socket', (socket) => {
        // A kept-alive socket is connected already; a new one has connectMs for TCP and TLS.
        if (!socket.connecting) return;
        connectTimer = setTimeout(() => {
          req.destroy(coded('UND_ERR_CONNECT_TIMEOUT', `connect timeout after ${connectMs} ms`));
        }, connectMs);
        socket.once('secureConnect', () => clearTimeout(connectTimer));
      });
      req.on('error', (error: Error & { code?: string }) => {
        clearTimers();
        const mapped = error.code ? PARSER_CODES[error.code] : undefined;
        reject(mapped ? Object.assign(error, { code: mapped }) : error);
      });
      req.on('response', (res: IncomingMessage) => {
        clearTimers();
        // Idle time between two chunks; cleared at the end so a kept-alive socket does not fire.
        res.setTimeout(bodyMs, () => {
          res.destroy(coded('UND_ERR_BODY_TIMEOUT', `no body data within ${bodyMs} ms`));
        });
        res.once('end', () => res.socket?.setTimeout(0));
        resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res });
      });
      req.end(request.body);
    });
  }

  /** Releases the sockets. */
  close(): void {
    this.#agent.destroy();
  }
}
