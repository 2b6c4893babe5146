/**
 * Whether a file the run will fetch exists, asked before the change window (the plan's
 * `target-available` check): a bundle file or URL, or a helm repository's index.yaml. Each
 * request has a short deadline of its own; an answer that is not "there" or "not there" (no
 * network, a proxy in the way) is reported as unknown, never as missing.
 */

import { stat } from 'node:fs/promises';
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
      const { readFile } = await import('node:fs/promises');
      return { found: true, detail: `${path} exists`, text: await readFile(path, 'utf8') };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT'
        ? { found: false, detail: `no such file ${path}` }
        : { found: undefined, detail: `cannot read ${path}: ${(error as Error).message}` };
    }
  }
  const { fetch, Agent, EnvHttpProxyAgent } = await import('../api/undici.js');
  const proxy = proxySettings(options.env ?? process.env);
  const dispatcher = proxy ? new EnvHttpProxyAgent(proxy) : new Agent();
  const ask = async (method: 'HEAD' | 'GET') => {
    options.io?.debug(1, `${method} ${location}`);
    const response = await fetch(location, {
      method,
      dispatcher,
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      redirect: 'follow',
    });
    const text = method === 'GET' && options.body ? await response.text() : undefined;
    if (text === undefined) await response.body?.cancel().catch(() => undefined);
    return { status: response.status, text };
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
    const cause = (error as { cause?: { code?: string } }).cause;
    const why =
      (error as Error).name === 'TimeoutError'
        ? `no answer in ${PROBE_TIMEOUT_MS / 1000} s`
        : (cause?.code ?? (error as Error).message);
    return { found: undefined, detail: `${location}: ${why}` };
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}
