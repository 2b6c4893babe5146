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

/** A kept pool and the settings it was made with (the values client-node gave, compared by value). */
interface Kept {
  type: string;
  settings: unknown[];
  agent: HttpAgent;
}

const shared: Kept[] = [];

/** The kept agent with the same settings as `agent`, or `agent` itself when it is not shareable. */
export function keepAliveAgent(agent: HttpAgent | undefined): HttpAgent | undefined {
  if (!agent) return agent;
  const type = agent.constructor === HttpsAgent ? 'https' : agent.constructor === HttpAgent ? 'http' : '';
  if (!type) return agent;
  const options = (agent as HttpAgent & { options?: Record<string, unknown> }).options ?? {};
  const settings = TLS_OPTIONS.map((name) => options[name]);
  // Compared value by value, every request: a digest of the settings (a SHA-256 of the CA, the
  // client certificate and key as base64 JSON) cost ctl about 0.14 s of CPU in a run over 1,000
  // databases (some 4,600 requests). The pool holds these same values in its own options.
  const known = shared.find((kept) => kept.type === type && sameSettings(kept.settings, settings));
  if (known) return known.agent;
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
  if (shared.length === 0) atCommandEnd(closeKeptAgents);
  shared.push({ type, settings, agent: made });
  return made;
}

/** The command has ended (src/io/command-end.ts): every kept pool's sockets are closed. */
function closeKeptAgents(): void {
  for (const kept of shared) kept.agent.destroy();
  shared.length = 0;
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

/**
 * Whether two agents' settings are the same: bytes by their contents, lists and objects by theirs.
 * Not util.isDeepStrictEqual: in the same minutes, keepAliveAgent took 90-100 ms of a run over
 * 1,000 databases with it, 36 ms with this.
 */
function sameSettings(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((value, i) => sameValue(value, b[i]));
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.compare(a, b) === 0;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && sameSettings(a, b);
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every(
      (key) =>
        Object.hasOwn(b, key) &&
        sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
    )
  );
}
