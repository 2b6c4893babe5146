/**
 * Whether a file the run will fetch exists, asked before the change window (the plan's
 * `target-available` check): a bundle file or URL, or a helm repository's index.yaml. Each
 * request has a short deadline of its own; an answer that is not "there" or "not there" (no
 * network, a proxy in the way) is reported as unknown, never as missing.
 */

import { readFile, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { fileURLToPath } from 'node:url';
import { proxySettingsFor, type ProxySettings } from '../api/http.js';
import type { Io } from '../io/io.js';
import { credentialsAsHeader } from './download.js';

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
}

export interface ProbeOptions {
  env?: NodeJS.ProcessEnv;
  io?: Io | undefined;
  /** GET the body too (HEAD otherwise, falling back to GET where HEAD is refused). */
  body?: boolean;
  /** The most of a body (or a local file) read; more is answered "cannot tell". */
  maxBodyBytes?: number;
}

function isUrl(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

/** Asks whether `location` (a path, file: URL or http(s) URL) exists. Never throws. */
export async function probeLocation(location: string, options: ProbeOptions = {}): Promise<ProbeAnswer> {
  if (!isUrl(location)) {
    const path = location.startsWith('file:') ? fileURLToPath(location) : location;
    try {
      const info = await stat(path);
      if (!info.isFile()) return { found: false, detail: `${path} is not a file` };
      if (!options.body) return { found: true, detail: `${path} exists` };
      const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
      if (info.size > maxBytes)
        return { found: undefined, detail: `${path}: ${new BodyTooLarge(maxBytes).message}` };
      return { found: true, detail: `${path} exists`, text: await readFile(path, 'utf8') };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT'
        ? { found: false, detail: `no such file ${path}` }
        : { found: undefined, detail: `cannot read ${path}: ${(error as Error).message}` };
    }
  }
  const proxy = proxySettingsFor(location, options.env ?? process.env);
  // Without a proxy, Node's own http(s) asks: a plan probes once or twice, and undici is ~1 MB
  // of code a plan would load for it (docs/performance.md, issue 39). Through a proxy (the one
  // for the location's scheme, never for this machine: proxySettingsFor), undici's
  // EnvHttpProxyAgent, which honours NO_PROXY.
  const asker = proxy ? await askThroughProxy(proxy) : { ask: askDirectly, close: async () => undefined };
  const ask = async (method: 'HEAD' | 'GET') => {
    options.io?.debug(1, `${method} ${location}`);
    const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    return asker.ask(location, method, method === 'GET' && options.body === true ? maxBytes : undefined);
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
    // fetch wraps the transport's error (its code in `cause`); Node's http gives it as is.
    const cause = (error as { cause?: { code?: string } }).cause;
    const why =
      (error as Error).name === 'TimeoutError'
        ? `no answer in ${PROBE_TIMEOUT_MS / 1000} s`
        : (cause?.code ?? (error as { code?: string }).code ?? (error as Error).message);
    return { found: undefined, detail: `${location}: ${why}` };
  } finally {
    await asker.close().catch(() => undefined);
  }
}

interface Answer {
  status: number;
  text: string | undefined;
}

/** fetch's redirect statuses, and its limit (`redirect: 'follow'`, the Fetch standard's 20). */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;

/** One probe request with Node's http(s), following redirects as fetch does; its own deadline. */
/** `readBody`: the most of the body to read, or undefined to read none. */
async function askDirectly(
  location: string,
  method: 'HEAD' | 'GET',
  readBody: number | undefined,
): Promise<Answer> {
  const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  let url = location;
  for (let hop = 0; ; hop++) {
    const answer = await askOnce(url, method, readBody, signal);
    if (!REDIRECTS.has(answer.status) || answer.location === undefined) return answer;
    if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
    url = new URL(answer.location, url).href;
  }
}

function askOnce(
  url: string,
  method: 'HEAD' | 'GET',
  readBody: number | undefined,
  signal: AbortSignal,
): Promise<Answer & { location: string | undefined }> {
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

/** The same probe through undici's EnvHttpProxyAgent (HTTPS_PROXY, HTTP_PROXY, NO_PROXY). */
async function askThroughProxy(proxy: ProxySettings): Promise<{
  ask: (location: string, method: 'HEAD' | 'GET', readBody: number | undefined) => Promise<Answer>;
  close: () => Promise<void>;
}> {
  const { fetch, EnvHttpProxyAgent } = await import('../api/undici.js');
  const dispatcher = new EnvHttpProxyAgent(proxy);
  return {
    ask: async (location, method, readBody) => {
      // fetch refuses a URL with `user:pass@`: sent as the Basic header Node's http sends for it.
      const { url, headers } = credentialsAsHeader(location);
      const response = await fetch(url, {
        method,
        headers,
        dispatcher,
        signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
        redirect: 'follow',
      });
      const text = readBody === undefined ? undefined : await boundedText(response, readBody);
      if (text === undefined) await response.body?.cancel().catch(() => undefined);
      return { status: response.status, text };
    },
    close: () => dispatcher.close(),
  };
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
