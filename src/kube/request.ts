/**
 * One Kubernetes API request with a JSON body, sent and answered as plain JSON text.
 *
 * The kubeconfig's credentials and TLS settings come from client-node itself
 * (`KubeConfig.applyToFetchOptions`: bearer token, token file, exec or OIDC plugin, client
 * certificate, CA, tls-server-name, proxy), so a request here is authenticated exactly as a
 * typed client-node call; toward a plain-http server, none of the user's credentials, as
 * kubectl (plain-http.ts replaces client-node's method for that server: one rule for every
 * request, this one, the watches' and the port-forward's). What client-node does NOT do here is (de)serialize the body through
 * its generated models: those drop every key whose JSON name differs from the model attribute
 * (`x-kubernetes-preserve-unknown-fields`, `enum`, `default`, `$ref` of a CRD schema) and every
 * field the model does not know (reliability.md, "Found and fixed").
 */

import { jsonTooDeep, MAX_JSON_DEPTH, nestsDeeperThan } from '../json-read.js';
import { type Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import type * as k8s from '@kubernetes/client-node';
import { keepAliveAgent } from './agent.js';
import { askedFor } from './credential-waiter.js';
import { armDeadlines, credentialNotReady, KUBE_DEADLINES } from './deadlines.js';
import { parseWithoutManagedFields } from './managed-fields.js';
import { serverForMessages } from './server-url.js';
import { boundYoungGeneration, LARGE_ANSWER_BYTES } from '../io/young-generation.js';

/** An error carrying an HTTP status the way client-node's ApiException does (`code`, string `body`). */
export class KubeRequestError extends Error {
  readonly code: number | undefined;
  readonly body: string;
  constructor(message: string, code: number | undefined, body = '') {
    super(message);
    this.name = 'KubeRequestError';
    this.code = code;
    this.body = body;
  }
}

export interface KubeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** An API path, e.g. `/apis/apps/v1/namespaces/redis/deployments/operator`. */
  path: string;
  query?: Record<string, string>;
  /** The body's media type; required with a body. */
  contentType?: string;
  /** The body exactly as sent: JSON text, never re-serialized. */
  body?: string;
  signal?: AbortSignal;
  /** The answer as text (a pod's log) instead of parsed JSON. */
  text?: boolean;
  /** A list read without its objects' managedFields (managed-fields.ts): nobody reads them. */
  withoutManagedFields?: boolean;
  /** A smaller limit than MAX_ANSWER_BYTES for this answer (a pod's log), and what it is called. */
  limit?: { bytes: number; what: string } | undefined;
}

/** Where and how one request to the API server goes (kubeRequest's and the watches', bounded-watch.ts). */
export interface KubeEndpoint {
  url: URL;
  /**
   * `Accept` and the kubeconfig's credentials (applyToFetchOptions: token, plugin, OIDC) and
   * impersonation (impersonation.ts), the latter two never toward a plain-http server
   * (plain-http.ts); a list is one header line per value.
   */
  headers: Record<string, string | string[]>;
  /** The kept agent with the Kubernetes deadlines (agent.ts), or the kubeconfig's own (a proxy's). */
  agent: Agent | undefined;
  send: typeof httpRequest;
}

/**
 * The URL of `path` on `server` (a server written with a trailing slash works too) with `query`,
 * and the kubeconfig's credentials, TLS and agent as client-node would send them. A credential
 * plugin started for it is stopped once `waiter` aborts (credential-waiter.ts).
 */
export async function kubeEndpoint(
  config: { applyToFetchOptions(options: object): Promise<unknown> },
  server: string,
  path: string,
  query: Record<string, string | number | boolean | undefined>,
  accept: string,
  waiter?: AbortSignal,
): Promise<KubeEndpoint> {
  try {
    const url = new URL(server.replace(/\/+$/, '') + path);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    // client-node builds the fetch options' headers into the object it is given (applyToHTTPSOptions)
    // before it copies them into a Headers, which joins a header's values into one line.
    const asked: { headers?: Record<string, unknown> } = {};
    const options = (await askedFor(waiter, () => config.applyToFetchOptions(asked))) as {
      agent?: Agent;
      headers?: Headers;
    };
    const headers: Record<string, string | string[]> = { Accept: accept };
    options.headers?.forEach((value, key) => {
      headers[key] = value;
    });
    // A header with several values (Impersonate-Group, Impersonate-Extra-*) is sent as client-go's
    // Header.Add sends it: one line per value, never `a, b` (a group named `a, b` is one group).
    for (const [key, value] of Object.entries(asked.headers ?? {})) {
      if (Array.isArray(value)) headers[key.toLowerCase()] = value.map(String);
    }
    const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
    return { url, headers, agent: keepAliveAgent(options.agent), send };
  } catch (error) {
    throw notBuilt(error);
  }
}

/** The errors kubeEndpoint threw: the request was never sent (requestNotBuilt). */
const unbuilt = new WeakSet<object>();

/** Marks `error` as a request that was never sent (requestNotBuilt); returns it, an Error if it was not an object. */
export function notBuilt(error: unknown): object {
  const thrown = typeof error === 'object' && error !== null ? error : new Error(String(error));
  unbuilt.add(thrown);
  return thrown;
}

/**
 * Whether `error` is one kubeEndpoint threw: the kubeconfig gave no way to send the request
 * (its exec credential plugin or auth provider failed, its server or proxy-url is not a URL),
 * so no request left ctl. The error itself is kept as it came, its message and class unchanged:
 * a wait tells such failures apart from the server's own (src/kube/watch-setup-errors.ts).
 */
export function requestNotBuilt(error: unknown): boolean {
  return typeof error === 'object' && error !== null && unbuilt.has(error);
}

/**
 * `building` (kubeEndpoint: the kubeconfig's credential) if it comes within `ms`, else a request
 * not built (credentialNotReady, marked as kubeEndpoint marks its own failures), so that a wait
 * counts it as the credential's failure and says so, never as the API server's silence. The API
 * server's own deadlines (armDeadlines) start only once the request is sent. An exec plugin is
 * stopped sooner by its own limit and named (exec-plugin.ts); this bounds the rest (an auth
 * provider's refresh, which client-node waits for without a limit). A credential that comes
 * later is not used: the next request builds its own.
 *
 * The request's `signal` ends the wait at once, as it ends the HTTP part (Ctrl-C, SIGTERM: the
 * run's signal, src/run/signals.ts), with the error an aborted request has (abortedRequest), not
 * a request not built: ctl stopped it, the credential did not fail. Either way nobody waits for
 * the credential any more: `build` gets a signal aborted then, and an exec plugin started for it
 * is stopped at once (exec-plugin.ts runBounded), not left to its own limit or ctl's exit.
 */
async function builtWithin(
  ms: number,
  server: string,
  signal: AbortSignal | undefined,
  build: (waiter: AbortSignal) => Promise<KubeEndpoint>,
): Promise<KubeEndpoint> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const waiter = new AbortController();
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      waiter.abort();
      reject(notBuilt(credentialNotReady(ms, server)));
    }, ms);
    if (signal) {
      onAbort = () => {
        waiter.abort();
        reject(abortedRequest(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
    }
  });
  const building = build(waiter.signal);
  // Settled by the race below or left pending once the credential came: never unhandled.
  late.catch(() => undefined);
  try {
    return await Promise.race([building, late]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * The error of a request its signal aborted, as Node's http gives it when the signal aborts the
 * request in flight (lib/internal/streams/add-abort-signal.js: `new AbortError(undefined,
 * { cause: signal.reason })`, name 'AbortError', code 'ABORT_ERR'), so that an abort before the
 * request is sent ends the command the way one after does (exit 130/143 by the run's signal).
 */
function abortedRequest(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted', { cause: signal.reason }), {
    name: 'AbortError',
    code: 'ABORT_ERR',
  });
}

/**
 * Sends the request; resolves with the parsed JSON answer of a 2xx (undefined for an empty one),
 * rejects with a KubeRequestError carrying the status and the answer's text otherwise, or with
 * the transport's own error (refused, reset, TLS) when there is no answer at all.
 */
export async function kubeRequest(config: k8s.KubeConfig, request: KubeRequest): Promise<unknown> {
  const cluster = config.getCurrentCluster();
  if (!cluster) throw new KubeRequestError('no current cluster in the kubeconfig', undefined);
  // Aborted already: no credential plugin is started for a request nobody waits for.
  if (request.signal?.aborted) throw abortedRequest(request.signal);
  const { url, headers, agent, send } = await builtWithin(
    KUBE_DEADLINES.credentialMs,
    serverForMessages(cluster.server),
    request.signal,
    (waiter) =>
      kubeEndpoint(
        config,
        cluster.server,
        request.path,
        request.query ?? {},
        request.text ? '*/*' : 'application/json',
        waiter,
      ),
  );
  const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
  if (body) {
    headers['Content-Type'] = request.contentType ?? 'application/json';
    headers['Content-Length'] = String(body.length);
  }
  const what = `${request.method} ${request.path}`;
  const attempt = (): Promise<unknown> =>
    new Promise<unknown>((resolve, reject) => {
      const req = send(
        url,
        { method: request.method, headers, agent, signal: request.signal },
        (response: IncomingMessage) => {
          // Each chunk is decoded as it comes (a character split between chunks waits for the
          // next) and let go: a 15 MB list is held once as text, not as chunks, then their copy,
          // then the text.
          const decoder = new StringDecoder('utf8');
          const pieces: string[] = [];
          let size = 0;
          const maxBytes = request.limit?.bytes ?? MAX_ANSWER_BYTES;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes) {
              // An answer this large is not one ctl asked for (an object, a list, a log tail):
              // stop reading it rather than hold it (issue 35).
              response.destroy();
              reject(
                new KubeRequestError(
                  `${what}: the answer is larger than ${maxBytes / 1024 / 1024} MiB, the limit for ${request.limit?.what ?? 'one Kubernetes answer'}`,
                  undefined,
                  '',
                ),
              );
              return;
            }
            if (size > LARGE_ANSWER_BYTES) boundYoungGeneration();
            pieces.push(decoder.write(chunk));
          });
          response.on('error', reject);
          response.on('end', () => {
            pieces.push(decoder.end());
            const text = pieces.join('');
            pieces.length = 0;
            const status = response.statusCode ?? 0;
            if (status < 200 || status >= 300) {
              let message = `${what}: HTTP ${status}`;
              try {
                message = (JSON.parse(text) as { message?: string }).message ?? message;
              } catch {
                // not JSON: keep the status line
              }
              reject(new KubeRequestError(message, status, text));
              return;
            }
            if (request.text) {
              resolve(text);
              return;
            }
            if (text.trim() === '') {
              resolve(undefined);
              return;
            }
            // Refused before it is parsed: what is done with an object recurses (src/json-read.ts).
            if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
              reject(jsonTooDeep(what));
              return;
            }
            try {
              resolve(request.withoutManagedFields ? parseWithoutManagedFields(text) : JSON.parse(text));
            } catch (error) {
              reject(
                new KubeRequestError(`${what}: invalid JSON (${(error as Error).message})`, undefined, text),
              );
            }
          });
        },
      );
      armDeadlines(req, what, serverForMessages(cluster.server));
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (!req.reusedSocket || !STALE_SOCKET.has(error.code ?? '')) return reject(error);
        // A server closes its idle connections on its own timer, several at once: those kept as
        // long as this one are dropped, so that the one retry opens a new connection.
        dropIdleConnections((req as { agent?: Agent }).agent);
        reject(new StaleSocket(error));
      });
      req.end(body);
    });
  try {
    return await attempt();
  } catch (error) {
    // A kept connection the server closed while idle fails before the request reached it:
    // send it once more on a new connection (https://nodejs.org/api/http.html#requestreusedsocket).
    if (error instanceof StaleSocket)
      return attempt().catch((again: unknown) => {
        throw again instanceof StaleSocket ? again.cause : again;
      });
    throw error;
  }
}

/**
 * One Kubernetes answer is at most 128 MiB (a list of 10,000 databases is a few tens of MiB):
 * a PackageManifest, a list or a log that grows without end is refused, not held.
 */
export const MAX_ANSWER_BYTES = 128 * 1024 * 1024;

const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE']);

/** Ends the idle kept connections of `agent` (each origin's); those in use are left alone. */
function dropIdleConnections(agent: Agent | undefined): void {
  for (const sockets of Object.values(agent?.freeSockets ?? {}))
    for (const socket of sockets ?? []) socket.destroy();
}

/** The transport's own error on a reused connection, kept as `cause` for the one retry. */
class StaleSocket extends Error {
  override readonly cause: Error;
  constructor(cause: Error) {
    super(cause.message);
    this.cause = cause;
  }
}
