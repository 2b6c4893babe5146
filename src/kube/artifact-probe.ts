/**
 * Whether a file the run will fetch exists, asked before the change window (the plan's
 * `target-available` check): a bundle file or URL, or a helm repository's index.yaml. Each
 * request has a short deadline of its own; an answer that is not "there" or "not there" (no
 * network, a proxy in the way) is reported as unknown, never as missing.
 */

import { stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { fileURLToPath } from 'node:url';
import type { HopDispatchers } from '../api/hop-dispatchers.js';
import { proxySettingsFor } from '../api/http.js';
import { describeKind, FileTooLargeError, NotRegularFileError, readBoundedText } from '../io/bounded-file.js';
import type { Io } from '../io/io.js';
import { credentialsAsHeader, downloadRefusal } from './download.js';

/** Long enough for a slow registry, short enough that a plan never hangs on one. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * A body larger than the caller's bound is "cannot tell", never read whole: by default 16 MiB, the
 * bound of the helm index's own read (HELM_INDEX_LIMITS in src/planning/helm-index.ts).
 */
const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

class BodyTooLarge extends Error {
  constructor(maxBytes: number) {
    super(`the answer is larger than ${maxBytes / 1024 / 1024} MiB`);
  }
}

export interface ProbeAnswer {
  /** true: it is there; false: the server or the file system says it is not; undefined: no answer. */
  found: boolean | undefined;
  /** What was asked and answered, for the check's message. */
  detail: string;
  /** The body, when asked for (a repository index). */
  text?: string | undefined;
  /** With `downloadRules`: why ctl's download would refuse it (found is then false), and what to do. */
  refused?: { reason: string; hint: string } | undefined;
}

export interface ProbeOptions {
  env?: NodeJS.ProcessEnv;
  io?: Io | undefined;
  /** GET the body too (HEAD otherwise, falling back to GET where HEAD is refused). */
  body?: boolean;
  /** The most of a body (or a local file) read; more is answered "cannot tell". */
  maxBodyBytes?: number;
  /**
   * The location is read by ctl's own download (src/kube/download.ts) in the run: a location or
   * redirect it refuses (plain http elsewhere without --allow-http, https to http, more than 5
   * redirects) is answered not there, with `refused`, never found.
   */
  downloadRules?: boolean;
}

function isUrl(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

/** Asks whether `location` (a path, file: URL or http(s) URL) exists. Never throws. */
export async function probeLocation(location: string, options: ProbeOptions = {}): Promise<ProbeAnswer> {
  if (!isUrl(location)) {
    const path = location.startsWith('file:') ? fileURLToPath(location) : location;
    try {
      if (!options.body) {
        const info = await stat(path);
        return info.isFile()
          ? { found: true, detail: `${path} exists` }
          : { found: false, detail: `${path} is ${describeKind(info)}, not a regular file` };
      }
      // A regular file within the bound, read without waiting on it (src/io/bounded-file.ts).
      const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
      return { found: true, detail: `${path} exists`, text: await readBoundedText(path, maxBytes) };
    } catch (error) {
      if (error instanceof NotRegularFileError) return { found: false, detail: error.message };
      if (error instanceof FileTooLargeError)
        return { found: undefined, detail: `${path}: ${new BodyTooLarge(error.maxBytes).message}` };
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT'
        ? { found: false, detail: `no such file ${path}` }
        : { found: undefined, detail: `cannot read ${path}: ${(error as Error).message}` };
    }
  }
  const env = options.env ?? process.env;
  // A bundle is read by ctl's own download: what it would refuse is not there for the run.
  const refusal = options.downloadRules ? downloadRefusal(location, env) : undefined;
  if (refusal) return refusedAnswer(location, refusal);
  const asker = new HopAsker(env);
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const ask = async (method: 'HEAD' | 'GET'): Promise<Answer> => {
    options.io?.debug(1, `${method} ${location}`);
    const readBody = method === 'GET' && options.body === true ? maxBytes : undefined;
    const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
    let url = location;
    for (let hop = 0; ; hop++) {
      const answer = await asker.ask(url, method, readBody, signal);
      if (!REDIRECTS.has(answer.status) || answer.location === undefined) return answer;
      const next = new URL(answer.location, url).href;
      if (options.downloadRules) {
        const refused = downloadRefusal(next, env, { url, hop });
        if (refused) throw new RefusedRedirect(refused);
      } else if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
      url = next;
    }
  };
  try {
    let answer = await ask(options.body ? 'GET' : 'HEAD');
    // Some servers (presigned object-store URLs) refuse HEAD but serve GET.
    if (!options.body && (answer.status === 405 || answer.status === 403)) answer = await ask('GET');
    if (answer.status >= 200 && answer.status < 300)
      return { found: true, detail: `${location}: HTTP ${answer.status}`, text: answer.text };
    if (answer.status === 404 || answer.status === 410)
      return { found: false, detail: `${location}: HTTP ${answer.status}` };
    return { found: undefined, detail: `${location}: HTTP ${answer.status}` };
  } catch (error) {
    if (error instanceof RefusedRedirect) return refusedAnswer(location, error.refusal);
    // fetch wraps the transport's error (its code in `cause`); Node's http gives it as is.
    const cause = (error as { cause?: { code?: string } }).cause;
    const why =
      (error as Error).name === 'TimeoutError'
        ? `no answer in ${PROBE_TIMEOUT_MS / 1000} s`
        : (cause?.code ?? (error as { code?: string }).code ?? (error as Error).message);
    return { found: undefined, detail: `${location}: ${why}` };
  } finally {
    await asker.close();
  }
}

class RefusedRedirect extends Error {
  constructor(readonly refusal: { reason: string; hint: string }) {
    super(refusal.reason);
  }
}

function refusedAnswer(location: string, refusal: { reason: string; hint: string }): ProbeAnswer {
  return { found: false, detail: `${location}: ${refusal.reason}`, refused: refusal };
}

interface Answer {
  status: number;
  text: string | undefined;
  location: string | undefined;
}

/** fetch's redirect statuses, and its limit (`redirect: 'follow'`, the Fetch standard's 20). */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;

/**
 * One request of a probe, not following redirects (the probe follows them, hop by hop): with
 * Node's own http(s) when no proxy applies to the URL, else through undici's EnvHttpProxyAgent
 * with the proxy for the URL's scheme (never for this machine: proxySettingsFor), which honours
 * NO_PROXY. Without a proxy undici is not loaded: a plan probes once or twice, and undici is
 * ~1 MB of code a plan would load for it (docs/performance.md, issue 39).
 */
class HopAsker {
  #dispatchers: HopDispatchers | undefined;

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** `readBody`: the most of the body to read, or undefined to read none. */
  async ask(
    url: string,
    method: 'HEAD' | 'GET',
    readBody: number | undefined,
    signal: AbortSignal,
  ): Promise<Answer> {
    const proxy = proxySettingsFor(url, this.env);
    if (!proxy) return askOnce(url, method, readBody, signal);
    const { fetch } = await import('../api/undici.js');
    const { HopDispatchers } = await import('../api/hop-dispatchers.js');
    this.#dispatchers ??= new HopDispatchers(this.env);
    const dispatcher = this.#dispatchers.for(url);
    // fetch refuses a URL with `user:pass@`: sent as the Basic header Node's http sends for it.
    const { url: bare, headers } = credentialsAsHeader(url);
    const response = await fetch(bare, { method, headers, dispatcher, signal, redirect: 'manual' });
    const location = response.headers.get('location') ?? undefined;
    if (readBody === undefined || REDIRECTS.has(response.status)) {
      await response.body?.cancel().catch(() => undefined);
      return { status: response.status, location, text: undefined };
    }
    return { status: response.status, location, text: await boundedText(response, readBody) };
  }

  async close(): Promise<void> {
    await this.#dispatchers?.close();
  }
}

/** One request with Node's http(s), its redirect not followed; the probe's deadline. */
function askOnce(
  url: string,
  method: 'HEAD' | 'GET',
  readBody: number | undefined,
  signal: AbortSignal,
): Promise<Answer> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    // No agent: nothing is kept open after the probe.
    const req = send(
      url,
      { method, signal, agent: false, headers: { accept: '*/*', 'user-agent': 'ctl' } },
      (res) => {
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        if (readBody === undefined || REDIRECTS.has(status)) {
          res.destroy();
          resolve({ status, location, text: undefined });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > readBody) {
            res.destroy();
            reject(new BodyTooLarge(readBody));
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', (error) => reject(signal.aborted ? signal.reason : error));
        // As fetch's text(): UTF-8, a byte order mark dropped.
        res.on('end', () =>
          resolve({ status, location, text: new TextDecoder().decode(Buffer.concat(chunks)) }),
        );
      },
    );
    req.on('error', (error) => reject(signal.aborted ? signal.reason : error));
    req.end();
  });
}

/** fetch's text() of at most `maxBytes`: the stream is cancelled past it. */
async function boundedText(response: Response, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.length;
    if (size > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new BodyTooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  // As text(): UTF-8, a byte order mark dropped.
  return new TextDecoder().decode(Buffer.concat(chunks));
}
