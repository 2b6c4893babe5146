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
import { proxySettings } from '../api/http.js';
import type { Io } from '../io/io.js';

/** Long enough for a slow registry, short enough that a plan never hangs on one. */
const PROBE_TIMEOUT_MS = 10_000;

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
      return { found: true, detail: `${path} exists`, text: await readFile(path, 'utf8') };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT'
        ? { found: false, detail: `no such file ${path}` }
        : { found: undefined, detail: `cannot read ${path}: ${(error as Error).message}` };
    }
  }
  const proxy = proxySettings(options.env ?? process.env);
  // Without a proxy, Node's own http(s) asks: a plan probes once or twice, and undici is ~1 MB
  // of code a plan would load for it (docs/performance.md, issue 39). Through a proxy, undici's
  // EnvHttpProxyAgent, which honours HTTPS_PROXY and NO_PROXY.
  const asker = proxy ? await askThroughProxy(proxy) : { ask: askDirectly, close: async () => undefined };
  const ask = async (method: 'HEAD' | 'GET') => {
    options.io?.debug(1, `${method} ${location}`);
    return asker.ask(location, method, method === 'GET' && options.body === true);
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
async function askDirectly(location: string, method: 'HEAD' | 'GET', readBody: boolean): Promise<Answer> {
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
  readBody: boolean,
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
        if (!readBody || REDIRECTS.has(status)) {
          res.destroy();
          resolve({ status, location, text: undefined });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
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
async function askThroughProxy(proxy: NonNullable<ReturnType<typeof proxySettings>>): Promise<{
  ask: (location: string, method: 'HEAD' | 'GET', readBody: boolean) => Promise<Answer>;
  close: () => Promise<void>;
}> {
  const { fetch, EnvHttpProxyAgent } = await import('../api/undici.js');
  const dispatcher = new EnvHttpProxyAgent(proxy);
  return {
    ask: async (location, method, readBody) => {
      const response = await fetch(location, {
        method,
        dispatcher,
        signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
        redirect: 'follow',
      });
      const text = readBody ? await response.text() : undefined;
      if (text === undefined) await response.body?.cancel().catch(() => undefined);
      return { status: response.status, text };
    },
    close: () => dispatcher.close(),
  };
}
