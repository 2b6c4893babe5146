/**
 * One keep-alive connection pool per set of TLS settings, for every request of `kubeRequest`.
 *
 * client-node's `applyToFetchOptions` builds a new `https.Agent` on every call, without
 * keep-alive: each request then opened its own TCP connection, made a new TLS context (parsing
 * the CA) and a full handshake. Upgrading 1,000 databases makes thousands of requests, and the
 * handshakes were most of ctl's CPU time (docs/performance.md, "fan-out"). The agent client-node
 * builds is used only for its options (CA, client certificate, server name, verification): an
 * agent with the same options is made once and kept, with keep-alive.
 *
 * Only plain `http.Agent`/`https.Agent` are shared: a proxy agent (a kubeconfig `proxy-url`) is
 * a subclass with its own connection logic and is used as client-node built it.
 */

import { createHash } from 'node:crypto';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { createSecureContext } from 'node:tls';
import type { ClientRequest } from 'node:http';
import { atCommandEnd } from '../io/command-end.js';
import { armDeadlines } from './deadlines.js';

/** The agent options that decide a connection's TLS identity and trust (client-node sets these). */
const TLS_OPTIONS = [
  'ca',
  'cert',
  'key',
  'pfx',
  'passphrase',
  'rejectUnauthorized',
  'servername',
  'ciphers',
  'honorCipherOrder',
  'ecdhCurve',
  'crl',
  'dhparam',
  'secureOptions',
  'secureProtocol',
  'sessionIdContext',
] as const;

const shared = new Map<string, HttpAgent>();

/** The kept agent with the same settings as `agent`, or `agent` itself when it is not shareable. */
export function keepAliveAgent(agent: HttpAgent | undefined): HttpAgent | undefined {
  if (!agent) return agent;
  const type = agent.constructor === HttpsAgent ? 'https' : agent.constructor === HttpAgent ? 'http' : '';
  if (!type) return agent;
  const options = (agent as HttpAgent & { options?: Record<string, unknown> }).options ?? {};
  const settings = Object.fromEntries(TLS_OPTIONS.map((name) => [name, stringify(options[name])]));
  // A digest, so that the map holds no copy of a private key as a readable string.
  const key = createHash('sha256')
    .update(`${type}\0${JSON.stringify(settings)}`)
    .digest('hex');
  const known = shared.get(key);
  if (known) return known;
  const picked = Object.fromEntries(
    TLS_OPTIONS.filter((name) => options[name] !== undefined).map((name) => [name, options[name]]),
  );
  // One TLS context for every connection: without it, each new connection (50 parallel
  // requests, one watch per waited-for database) parses the CA and key again.
  const made =
    type === 'https'
      ? new HttpsAgent({ ...picked, secureContext: createSecureContext(picked), keepAlive: true })
      : new HttpAgent({ keepAlive: true });
  withDeadlines(made, type);
  if (shared.size === 0) atCommandEnd(closeKeptAgents);
  shared.set(key, made);
  return made;
}

/** The command has ended (src/io/command-end.ts): every kept pool's sockets are closed. */
function closeKeptAgents(): void {
  for (const agent of shared.values()) agent.destroy();
  shared.clear();
}

/**
 * Every request through a kept agent gets the Kubernetes deadlines (src/kube/deadlines.ts),
 * whoever sends it: kubeRequest, client-node's typed clients and ctl's watches (bounded-watch.ts).
 */
function withDeadlines(agent: HttpAgent, type: string): void {
  const internal = agent as HttpAgent & { addRequest(req: ClientRequest, options: AddRequestOptions): void };
  const addRequest = internal.addRequest.bind(agent);
  internal.addRequest = (req, options) => {
    const server = `${type}://${options.host ?? 'localhost'}:${options.port ?? ''}`;
    const watch = /[?&]watch=(true|1)\b/.test(req.path);
    const what = `${req.method} ${req.path.split('?')[0] ?? ''}`;
    armDeadlines(req, what, server, { total: !watch });
    addRequest(req, options);
  };
}

interface AddRequestOptions {
  host?: string;
  port?: number | string;
}

function stringify(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value)) return value.map(stringify);
  return value;
}
