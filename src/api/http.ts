import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { jsonTooDeep, MAX_JSON_DEPTH, nestsDeeperThan } from '../json-read.js';
import type { Dispatcher, FormData as UndiciFormData } from 'undici';
import { OperationError } from '../errors.js';
import { type Clock, systemClock } from './clock.js';
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  isIdempotentMethod,
  parseRetryAfter,
  type RetryPolicy,
  shouldRetryError,
  shouldRetryStatus,
} from './retry.js';
import { PROXY_HUNG_UP } from './proxy-hung-up.js';
import { findTlsFailure, isUntrustedCertificate, tlsError, withPinChangedHint } from './tls-errors.js';
import { oneLine } from '../io/safe-text.js';
import { boundYoungGeneration, LARGE_ANSWER_BYTES } from '../io/young-generation.js';
import type { NodeHttpsTransport, NodeResponse, NodeTlsSettings } from './node-https.js';

/**
 * The transport of the management API client: one undici Agent (or EnvHttpProxyAgent when a
 * proxy is configured; or, for `ctl auth token`, Node's https module: node-https.ts), TLS that verifies unless told otherwise, deadlines in seconds, and
 * retries that never repeat a change blindly. It returns every HTTP answer, errors included;
 * callers decide what a status means.
 */

export interface Timeouts {
  connectMs: number;
  /** Until the response headers arrive. */
  headersMs: number;
  /** Between two chunks of the body. */
  bodyMs: number;
  /** One call, all attempts and waits included. */
  totalMs: number;
}

/**
 * The largest answer ctl reads (32 MiB): the biggest real list (thousands of databases) is a few
 * MB, and a hostile or broken server must not make ctl hold gigabytes. Response headers are
 * limited by undici to 16 KiB (Node's http.maxHeaderSize).
 */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

export const DEFAULT_TIMEOUTS: Timeouts = {
  connectMs: 10_000,
  headersMs: 30_000,
  bodyMs: 30_000,
  totalMs: 120_000,
};

/** Where the client reports what it does; Io fits (its output is redacted). */
export interface ApiLog {
  debug(level: 1 | 2, message: string): void;
}

export interface HttpClientOptions {
  baseUrl: string;
  /** PEM bundle to trust instead of the system roots. */
  ca?: string | undefined;
  /** Skip certificate verification (the caller warns). */
  insecure?: boolean | undefined;
  /**
   * The host name to send (SNI) and to verify the certificate against, when it is not the
   * URL's host: through ctl's own port-forward the URL is https://127.0.0.1:<port>, while the
   * certificate names the cluster's service (`<cluster>.<ns>.svc`).
   */
  servername?: string | undefined;
  /** Other names the certificate may carry instead of `servername` (`<svc>.<ns>.svc.cluster.local`). */
  alternativeNames?: string[] | undefined;
  /** The file `ctl auth trust` pinned, when that is what `ca` holds: an untrusted certificate says so. */
  pinnedCaFile?: string | undefined;
  /**
   * The `kubectl port-forward` to the cluster's service that names the kubeconfig and context
   * ctl was given (src/kube/kube-target.ts), for the hint of a certificate without its names.
   */
  portForwardCommand?: string | undefined;
  timeouts?: Partial<Timeouts>;
  /** The largest body read; default DEFAULT_MAX_BODY_BYTES. */
  maxBodyBytes?: number;
  retry?: Partial<RetryPolicy>;
  clock?: Clock;
  random?: () => number;
  log?: ApiLog;
  /** Proxy variables (HTTPS_PROXY, NO_PROXY ...); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Tests inject an undici MockAgent here. */
  dispatcher?: Dispatcher;
  /**
   * What carries the requests: undici (the default), or `node-https`, Node's own https module,
   * for a command that makes one or two requests and should not load undici (`ctl auth token`,
   * src/api/node-https.ts). `node-https` gives way to undici when a proxy variable is set, a
   * dispatcher is injected, or a request sends a form.
   */
  transport?: 'undici' | 'node-https';
}

export interface HttpRequest {
  method: string;
  /** Path and query, e.g. /v1/bdbs/1. */
  path: string;
  headers?: Record<string, string>;
  json?: unknown;
  form?: UndiciFormData | FormData;
  /** Safe to repeat after a broken connection although the method is not idempotent. */
  idempotent?: boolean;
  /**
   * One attempt only: the caller judges every answer itself, a 503 included (a poller that
   * measures, such as src/run/availability/, and keeps its own request rate).
   */
  once?: boolean;
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON when the body is JSON, else the text. */
  body: unknown;
}

export class HttpClient {
  readonly baseUrl: string;
  readonly #options: HttpClientOptions;
  readonly #timeouts: Timeouts;
  readonly #policy: RetryPolicy;
  readonly #clock: Clock;
  readonly #random: () => number;
  #dispatcher: Dispatcher | undefined;
  /** Aborted by close(): what runs then ends at once (see close). */
  #closing = new AbortController();
  #node: NodeHttpsTransport | undefined;

  constructor(options: HttpClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#options = options;
    this.#timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.#policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#dispatcher = options.dispatcher;
  }

  async request(request: HttpRequest): Promise<HttpResponse> {
    const idempotent = request.idempotent ?? isIdempotentMethod(request.method);
    const deadline = this.#clock.now() + this.#timeouts.totalMs;
    const closing = this.#closing.signal;
    const signals = [AbortSignal.timeout(this.#timeouts.totalMs), closing];
    if (request.signal) signals.push(request.signal);
    const signal = AbortSignal.any(signals);
    const waits = { all: signal, closing, caller: request.signal };
    const label = `${request.method} ${request.path}`;
    const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
    let body: string | UndiciFormData | FormData | undefined;
    if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
      this.#log(2, `${label} request body: ${redactSecrets(body)}`);
    } else if (request.form) {
      body = request.form;
    }

    const maxAttempts = request.once ? 1 : this.#policy.maxAttempts;
    for (let attempt = 1; ; attempt += 1) {
      const started = this.#clock.now();
      let response: HttpResponse;
      try {
        const raw = await this.#send(`${this.baseUrl}${request.path}`, request.method, headers, body, signal);
        const text = await readBody(raw, label, this.#options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
        response = { status: raw.statusCode, headers: raw.headers, body: parseBody(text, label) };
        this.#log(1, `${label} ${response.status} (${this.#clock.now() - started} ms)`);
        if (text !== '') this.#log(2, `${label} response body: ${redactSecrets(text)}`);
      } catch (error) {
        if (request.signal?.aborted) throw error;
        // An answer ctl refuses to read (too large, compressed): asking again gets the same.
        if (error instanceof RefusedAnswer) throw error.toOperationError();
        const tls = findTlsFailure(error);
        if (tls) throw this.#tlsError(tls, error);
        const code = errorCode(error);
        this.#log(1, `${label} failed: ${code ?? describe(error)} (${this.#clock.now() - started} ms)`);
        if (code === 'UND_ERR_HEADERS_OVERFLOW') {
          throw new OperationError(
            `${label}: the response headers from ${this.baseUrl} are larger than ctl reads (16 KiB)`,
            {
              hint: 'Something between ctl and the management API (a proxy?) answers oddly; check --api-url.',
              cause: error,
            },
          );
        }
        if (closing.aborted)
          throw new OperationError(`${label}: stopped, the connection was closed`, { cause: error });
        if (signal.aborted) throw this.#deadlineError(label, error);
        if (attempt < maxAttempts && shouldRetryError(code, idempotent)) {
          await this.#wait(
            backoffDelay(attempt - 1, this.#policy, this.#random),
            deadline,
            label,
            waits,
            error,
          );
          continue;
        }
        const tries = attempt > 1 ? `; ${attempt} attempts` : '';
        const meaning = code ? networkCodeMeaning(code, this.#timeouts.connectMs, error) : undefined;
        throw new OperationError(
          `cannot reach the management API at ${this.baseUrl}: ${code ?? describe(error)}${meaning ? ` (${meaning}${tries})` : ''}`,
          {
            hint: 'Check --api-url (or CTL_API_URL), that the API is up, and any proxy settings (HTTPS_PROXY, NO_PROXY).',
            cause: error,
          },
        );
      }

      if (attempt < maxAttempts && shouldRetryStatus(response.status, idempotent)) {
        const retryAfter = parseRetryAfter(response.headers['retry-after'], this.#clock.now());
        if (retryAfter !== undefined && retryAfter > this.#policy.maxRetryAfterMs) {
          throw new OperationError(
            `${label}: the API answered ${response.status} and asked to retry after ${Math.ceil(retryAfter / 1000)} s, longer than ctl waits (${this.#policy.maxRetryAfterMs / 1000} s)`,
            { hint: 'The cluster is busy or rate-limiting; run the command again later.' },
          );
        }
        const delay = retryAfter ?? backoffDelay(attempt - 1, this.#policy, this.#random);
        await this.#wait(delay, deadline, label, waits, undefined);
        continue;
      }
      return response;
    }
  }

  /**
   * Releases the connections. Requests still running are stopped first: when one read of a
   * command fails, its siblings (retrying, or reading a large answer) are of no use, and a
   * graceful close would wait for them. A fresh-clone run saw `upgrade plan` print its error and
   * then wait 150 s for the other reads of an API answering 502 with 11 MB of HTML each time.
   * A request made after close() works again (new connections).
   */
  async close(): Promise<void> {
    const closing = this.#closing;
    this.#closing = new AbortController();
    closing.abort();
    const dispatcher = this.#dispatcher;
    this.#dispatcher = undefined;
    // destroy, not close: close waits for every queued request, and undici keeps a request
    // that never got a connection queued past its abort (below, #send).
    if (dispatcher && dispatcher !== this.#options.dispatcher) await dispatcher.destroy();
    this.#node?.close();
    this.#node = undefined;
  }

  /** One attempt, through Node's https module or undici (see `transport`). */
  async #send(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: string | UndiciFormData | FormData | undefined,
    signal: AbortSignal,
  ): Promise<NodeResponse> {
    if (this.#usesNodeHttps() && (body === undefined || typeof body === 'string')) {
      if (!this.#node) {
        const { NodeHttpsTransport } = await import('./node-https.js');
        this.#node = new NodeHttpsTransport({
          tls: this.#tlsSettings(),
          connectMs: this.#timeouts.connectMs,
          headersMs: this.#timeouts.headersMs,
          bodyMs: this.#timeouts.bodyMs,
        });
      }
      return this.#node.send({ url, method, headers, body, signal });
    }
    const undici = await import('./undici.js');
    const dispatcher = await this.#getDispatcher();
    return untilAborted(
      undici.request(url, {
        dispatcher,
        method: method as Dispatcher.HttpMethod,
        headers,
        body: body as Dispatcher.RequestOptions['body'],
        headersTimeout: this.#timeouts.headersMs,
        bodyTimeout: this.#timeouts.bodyMs,
        signal,
      }),
      signal,
    );
  }

  #usesNodeHttps(): boolean {
    return (
      this.#options.transport === 'node-https' &&
      this.#options.dispatcher === undefined &&
      proxySettingsFor(this.baseUrl, this.#options.env ?? process.env) === undefined
    );
  }

  /** The TLS settings of either transport: the CA, verification, and the names to verify. */
  #tlsSettings(): NodeTlsSettings {
    const { servername } = this.#options;
    return {
      ca: this.#options.ca,
      rejectUnauthorized: this.#options.insecure !== true,
      // The CA file lists what the user trusts: any certificate in it is an anchor, a leaf too
      // (the one `ctl auth trust` pins, or what `openssl s_client` saved), not only a root.
      ...(this.#options.ca ? { allowPartialTrustChain: true } : {}),
      // Node verifies against `servername` when it is set; checkServerIdentity makes that
      // explicit and lets the service's other names pass too.
      ...(servername
        ? {
            servername,
            checkServerIdentity: verifyNames([servername, ...(this.#options.alternativeNames ?? [])]),
          }
        : {}),
    };
  }

  async #wait(
    delay: number,
    deadline: number,
    label: string,
    signal: { all: AbortSignal; closing: AbortSignal; caller: AbortSignal | undefined },
    cause: unknown,
  ): Promise<void> {
    if (this.#clock.now() + delay > deadline) throw this.#deadlineError(label, cause);
    this.#log(1, `${label}: retrying in ${delay} ms`);
    try {
      await this.#clock.sleep(delay, signal.all);
    } catch (error) {
      // A wait cut short, said as an attempt cut short is (request, above): the caller's own
      // abort as it is, close() and the deadline in ctl's words.
      if (!signal.all.aborted || signal.caller?.aborted) throw error;
      if (signal.closing.aborted)
        throw new OperationError(`${label}: stopped, the connection was closed`, { cause: error });
      throw this.#deadlineError(label, cause ?? error);
    }
  }

  #deadlineError(label: string, cause: unknown): OperationError {
    return new OperationError(
      `${label}: no answer within ${this.#timeouts.totalMs / 1000} s from ${this.baseUrl}`,
      {
        hint: 'Check that the API is reachable and not overloaded, then run the command again.',
        cause,
      },
    );
  }

  /** A TLS failure as exit 1; a wrong name through a servername says which names were expected. */
  #tlsError(failure: { code: string; message: string }, cause: unknown): OperationError {
    const { servername, pinnedCaFile } = this.#options;
    if (!servername || !WRONG_NAME_CODES.has(failure.code)) {
      const error = tlsError(failure, this.baseUrl, cause);
      return pinnedCaFile && isUntrustedCertificate(cause) ? withPinChangedHint(error, pinnedCaFile) : error;
    }
    const names = [servername, ...(this.#options.alternativeNames ?? [])];
    return new OperationError(
      `TLS: the certificate of ${this.baseUrl} (verified as ${servername}) names none of ${names.join(', ')} (${failure.message})`,
      {
        hint: `The management API's certificate should list the cluster's service name (${names.join(' or ')}). Otherwise reach the API by a name it lists with --api-url (e.g. after ${this.#options.portForwardCommand ?? 'kubectl port-forward'}), or, knowingly, --insecure.`,
        cause,
      },
    );
  }

  async #getDispatcher(): Promise<Dispatcher> {
    if (this.#dispatcher) return this.#dispatcher;
    const { Agent } = await import('./undici.js');
    const tls = this.#tlsSettings();
    const agentOptions = {
      connect: { ...tls, timeout: this.#timeouts.connectMs },
      headersTimeout: this.#timeouts.headersMs,
      bodyTimeout: this.#timeouts.bodyMs,
    };
    const env = this.#options.env ?? process.env;
    const proxy = proxySettingsFor(this.baseUrl, env);
    // Node 20's fetch ignores HTTPS_PROXY; EnvHttpProxyAgent honours it and NO_PROXY. Through a
    // proxy the origin's TLS settings travel as requestTls.
    this.#dispatcher = proxy
      ? (await import('./proxy-agent.js')).proxyAgent({ ...agentOptions, ...proxy, requestTls: tls })
      : new Agent(agentOptions);
    return this.#dispatcher;
  }

  #log(level: 1 | 2, message: string): void {
    this.#options.log?.debug(level, message);
  }
}

const WRONG_NAME_CODES = new Set(['ERR_TLS_CERT_ALTNAME_INVALID', 'HOSTNAME_MISMATCH']);

/**
 * A checkServerIdentity that accepts a certificate naming any of `names` (whatever host the
 * socket connected to); the error for the first name otherwise.
 */
export function verifyNames(names: string[]): (host: string, cert: PeerCertificate) => Error | undefined {
  return (_host, cert) => {
    let first: Error | undefined;
    for (const name of names) {
      const error = checkServerIdentity(name, cert);
      if (!error) return undefined;
      first ??= error;
    }
    return first ?? new Error('no host name to verify the certificate against');
  };
}

export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy: string;
}

/**
 * Proxy variables as EnvHttpProxyAgent reads them (lowercase wins), or undefined when none;
 * whether one applies to a URL is {@link proxySettingsFor}'s question.
 */
export function proxySettings(env: NodeJS.ProcessEnv): ProxySettings | undefined {
  const httpProxy = env.http_proxy ?? env.HTTP_PROXY;
  const httpsProxy = env.https_proxy ?? env.HTTPS_PROXY;
  if (!httpProxy && !httpsProxy) return undefined;
  const settings: ProxySettings = {
    noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
  };
  if (httpProxy) settings.httpProxy = httpProxy;
  if (httpsProxy) settings.httpsProxy = httpsProxy;
  return settings;
}

/**
 * The proxy for one URL, chosen as Go's net/http (kubectl, helm) and curl choose it: HTTPS_PROXY
 * for https and HTTP_PROXY for http, never HTTP_PROXY for https (undici's EnvHttpProxyAgent falls
 * back to it: "httpsProxy ... falls back to httpProxy if not set", undici
 * docs/api/EnvHttpProxyAgent.md), and no proxy for this machine's own addresses (localhost,
 * 127.0.0.0/8, ::1, as golang.org/x/net/http/httpproxy's useProxy), which a proxy elsewhere
 * cannot reach: `kubectl port-forward` listens there. NO_PROXY is left to EnvHttpProxyAgent.
 * Undefined when the URL goes direct.
 */
export function proxySettingsFor(url: string, env: NodeJS.ProcessEnv): ProxySettings | undefined {
  const all = proxySettings(env);
  if (!all) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (isLoopbackHost(parsed.hostname)) return undefined;
  if (parsed.protocol === 'https:' && all.httpsProxy)
    return { httpsProxy: all.httpsProxy, noProxy: all.noProxy };
  if (parsed.protocol === 'http:' && all.httpProxy) return { httpProxy: all.httpProxy, noProxy: all.noProxy };
  return undefined;
}

/** localhost, 127.0.0.0/8 and ::1 (a URL's hostname, IPv6 in brackets or not). */
export function isLoopbackHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(?:\.\d{1,3}){3}$/.test(bare);
}

/**
 * The request's promise, or its signal's reason as soon as the signal aborts. undici honours an
 * abort only once the request has a connection: one that never gets one (a proxy that closes
 * each tunnel it is asked for: undici connects again at once, for ever) stays queued past every
 * deadline. An answer that comes after all is dropped.
 */
function untilAborted<T extends { body: { destroy(): unknown } }>(
  request: Promise<T>,
  signal: AbortSignal,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason);
      request.then(
        (late) => late.body.destroy(),
        () => undefined,
      );
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    request.then(
      (answer) => {
        signal.removeEventListener('abort', onAbort);
        resolve(answer);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** An answer ctl will not read; its message says why. */
class RefusedAnswer extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }

  toOperationError(): OperationError {
    return new OperationError(this.message, { hint: this.hint });
  }
}

/**
 * The body as text, refusing what ctl did not ask for: a compressed body (ctl sends no
 * accept-encoding, and never inflates one, so a gzip bomb stays a few bytes) and more than
 * `max` bytes, counted as they arrive. The call's deadline aborts a body that drips.
 */
async function readBody(
  raw: {
    headers: Record<string, string | string[] | undefined>;
    body: AsyncIterable<Buffer> & { destroy(): unknown };
  },
  label: string,
  max: number,
): Promise<string> {
  const encoding = String(raw.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity' && encoding !== '') {
    raw.body.destroy();
    throw new RefusedAnswer(
      `${label}: the answer is compressed (content-encoding ${oneLine(encoding.slice(0, 40))}), which ctl did not ask for`,
      'The management API answers uncompressed JSON; check that --api-url points at it and not at a proxy that compresses.',
    );
  }
  const tooLarge = () =>
    new RefusedAnswer(
      `${label}: the answer is larger than ${Math.round(max / 1024 / 1024)} MiB; ctl stopped reading it`,
      'Check that --api-url points at the management API; a list this large is not one of its answers.',
    );
  const declared = Number(raw.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) {
    raw.body.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of raw.body) {
    size += chunk.length;
    if (size > max) {
      raw.body.destroy();
      throw tooLarge();
    }
    if (size > LARGE_ANSWER_BYTES) boundYoungGeneration();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(text: string, label: string): unknown {
  if (text === '') return undefined;
  // Refused, not taken for text, nor asked again: what is done with an answer recurses
  // (src/json-read.ts).
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    const refused = jsonTooDeep(label);
    throw new RefusedAnswer(refused.message, refused.hint ?? '');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Tokens and passwords in bodies are masked here too, not only by the Io redactor: it skips very
 * short secrets, and a token is logged before anyone could register it.
 */
function redactSecrets(text: string): string {
  return text.replace(/("(?:access_token|password)"\s*:\s*")(?:[^"\\]|\\.)*"/g, '$1[REDACTED]"');
}

function errorCode(error: unknown): string | undefined {
  return errorWithCode(error)?.code;
}

/** The first error in `error`'s causes with a code (that code, when given). */
function errorWithCode(error: unknown, wanted?: string): { code: string; message?: string } | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 6; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (wanted === undefined || code === wanted))
      return current as { code: string; message?: string };
    const inner = (current as { errors?: unknown[] }).errors;
    if (Array.isArray(inner) && inner.length > 0) current = inner[0];
    else current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * What a network error's code means, in words, for the people who read it (the code stays
 * beside it, for searching); undefined for a code without a plain meaning here.
 */
function networkCodeMeaning(code: string, connectMs: number, error: unknown): string | undefined {
  switch (code) {
    case 'ECONNREFUSED':
      return 'nothing accepts connections at that address and port';
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `no connection within ${connectMs / 1000} s`;
    case 'ETIMEDOUT':
      return 'the connection timed out';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'no such host name';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'no route to that host';
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return 'the connection was closed before an answer';
    case PROXY_HUNG_UP:
      // Its message names the proxy and the place (without the proxy's credentials).
      return errorWithCode(error, code)?.message ?? 'the proxy hung up instead of opening a tunnel';
    default:
      return undefined;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
