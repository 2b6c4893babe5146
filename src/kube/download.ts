/**
 * What ctl downloads or reads by location (a release catalog, an operator bundle and the files
 * next to it, a helm repository's index): each with a size limit and a deadline, and transport
 * rules (issue 35).
 *
 * - Size: the body is counted as it streams and dropped past the limit, so an endless answer
 *   costs its limit in memory, not more. A file is measured before it is read.
 * - Time: one deadline for the whole read, headers and body.
 * - Files: only regular files (a FIFO would wait for a writer, a device may never end), as every
 *   other file ctl reads (src/io/paths.ts).
 * - Transport: redirects are followed by hand (at most 5), never from https to http; an http
 *   location is read only when it stays on this machine (a loopback address) or when the user
 *   allowed plain http (`--allow-http`, CTL_ALLOW_HTTP=1). The location the body came from is
 *   returned, for the plan to name.
 * - Credentials in a location (`user:pass@`, query values such as `?token=` or a presigned
 *   signature) are never printed: {@link displayLocation} shows them as `***`, and
 *   {@link locationSecrets} gives them to the redactor.
 */

import { fileURLToPath } from 'node:url';
import { isLoopbackHost } from '../api/http.js';
import { OperationError } from '../errors.js';
import {
  FileTooLargeError,
  formatBytes,
  formatSizeOver,
  NotRegularFileError,
  readBoundedText,
} from '../io/bounded-file.js';
import type { Io } from '../io/io.js';

export const MIB = 1024 * 1024;

export interface DownloadLimits {
  /** What it is, for messages: `--catalog`, `the bundle`, `the helm index`. */
  what: string;
  maxBytes: number;
  deadlineMs: number;
}

export interface DownloadOptions {
  signal?: AbortSignal | undefined;
  io?: Io | undefined;
  /** For tests; default `process.env` (proxy variables, CTL_ALLOW_HTTP). */
  env?: NodeJS.ProcessEnv | undefined;
  /** A hint for a file that cannot be read or a download that fails. */
  hint?: string | undefined;
  /** The hint for an HTTP 404. */
  notFoundHint?: string | undefined;
}

export interface Downloaded {
  text: string;
  /** Where the text came from: the file, or the URL the redirects ended at (credentials kept). */
  origin: string;
}

let plainHttpAllowed = false;

/** `--allow-http`: this process may read http:// locations that are not on this machine. */
export function allowPlainHttp(allowed: boolean): void {
  plainHttpAllowed = allowed;
}

export function isUrl(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

const MAX_REDIRECTS = 5;

/** The text of a file or an http(s) URL within `limits`; OperationError with the reason otherwise. */
export async function download(
  location: string,
  limits: DownloadLimits,
  options: DownloadOptions = {},
): Promise<Downloaded> {
  if (!isUrl(location)) return { text: await readBoundedFile(location, limits, options), origin: location };
  return fetchBounded(location, limits, options);
}

async function readBoundedFile(
  location: string,
  limits: DownloadLimits,
  options: DownloadOptions,
): Promise<string> {
  const path = location.startsWith('file:') ? fileURLToPath(location) : location;
  const fail = (reason: string, cause?: unknown): OperationError =>
    new OperationError(`cannot read ${path}: ${reason}`, {
      hint: options.hint ?? `Give ${limits.what} as a regular file or an https URL.`,
      ...(cause ? { cause } : {}),
    });
  try {
    // A regular file within the limit, read without waiting on it (src/io/bounded-file.ts).
    return await readBoundedText(path, limits.maxBytes);
  } catch (error) {
    if (error instanceof NotRegularFileError) {
      throw fail(
        `it is ${error.kind}, not a regular file (a FIFO would wait for a writer, a device may never end; save it to a file first)`,
      );
    }
    if (error instanceof FileTooLargeError) throw fail(tooLarge(limits, error.size));
    const code = (error as NodeJS.ErrnoException).code;
    throw fail(code === 'ENOENT' ? 'no such file' : (error as Error).message, error);
  }
}

function tooLarge(limits: DownloadLimits, size?: number): string {
  return `${size === undefined ? 'it is' : `it is ${formatSizeOver(size, limits.maxBytes)},`} larger than ${formatBytes(limits.maxBytes)}, the limit for ${limits.what}`;
}

async function fetchBounded(
  first: string,
  limits: DownloadLimits,
  options: DownloadOptions,
): Promise<Downloaded> {
  const env = options.env ?? process.env;
  const { fetch } = await import('../api/undici.js');
  // Each hop's own: a redirect may lead from a host behind HTTPS_PROXY to one that is not.
  const { HopDispatchers } = await import('../api/hop-dispatchers.js');
  const dispatchers = new HopDispatchers(env);
  const deadline = AbortSignal.timeout(limits.deadlineMs);
  const signal = AbortSignal.any([deadline, ...(options.signal ? [options.signal] : [])]);
  const shown = displayLocation(first);
  const hint = options.hint ?? `Check the network (and HTTPS_PROXY) and ${limits.what}'s location.`;
  let url = first;
  try {
    for (let hop = 0; ; hop++) {
      checkTransport(url, first, limits, env);
      options.io?.debug(1, `GET ${displayLocation(url)}`);
      const { url: bare, headers } = credentialsAsHeader(url);
      const response = await fetch(bare, {
        dispatcher: dispatchers.for(url),
        signal,
        redirect: 'manual',
        headers,
      });
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel().catch(() => undefined);
        if (hop >= MAX_REDIRECTS) {
          throw new OperationError(
            `cannot download ${limits.what} ${shown}: more than ${MAX_REDIRECTS} redirects`,
            { hint },
          );
        }
        url = redirectTarget(url, location, limits.what);
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new OperationError(
          `cannot download ${limits.what} ${displayLocation(url)}: HTTP ${response.status}`,
          {
            hint:
              response.status === 404
                ? (options.notFoundHint ?? `Check the location of ${limits.what}.`)
                : hint,
          },
        );
      }
      const declared = Number(response.headers.get('content-length'));
      if (Number.isFinite(declared) && declared > limits.maxBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw new OperationError(
          `cannot download ${limits.what} ${displayLocation(url)}: ${tooLarge(limits, declared)}`,
          { hint },
        );
      }
      const text = await readBody(response.body, limits, displayLocation(url), hint);
      return { text, origin: url };
    }
  } catch (error) {
    if (error instanceof OperationError) throw error;
    if (options.signal?.aborted) throw error;
    if (deadline.aborted) {
      throw new OperationError(
        `cannot download ${limits.what} ${shown}: no complete answer within ${limits.deadlineMs / 1000} s, the limit for ${limits.what}`,
        { hint, cause: error },
      );
    }
    throw new OperationError(`cannot download ${limits.what} ${shown}: ${describeFetchError(error)}`, {
      hint,
      cause: error,
    });
  } finally {
    await dispatchers.close();
  }
}

/**
 * A URL's user information (`user:pass@`) as the HTTP Basic Authorization header it stands for,
 * and the URL without it: fetch refuses a URL that holds credentials ("Request cannot be
 * constructed from a URL that includes credentials", the Fetch standard), where curl, kubectl
 * and Node's http send them as Basic (RFC 9110 11.2; RFC 3986 3.2.1 userinfo, percent-decoded).
 * A redirect to another origin does not carry them: `redirectTarget` resolves a relative
 * location against the URL with them, an absolute one has its own (or none).
 */
export function credentialsAsHeader(location: string): { url: string; headers: Record<string, string> } {
  const url = new URL(location);
  if (!url.username && !url.password) return { url: location, headers: {} };
  const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = '';
  url.password = '';
  return {
    url: url.href,
    headers: { authorization: `Basic ${Buffer.from(pair, 'utf8').toString('base64')}` },
  };
}

/** Where a redirect from `current` to `location` leads; never from https to anything else. */
export function redirectTarget(current: string, location: string, what: string): string {
  const next = new URL(location, current).toString();
  if (new URL(current).protocol === 'https:' && new URL(next).protocol !== 'https:') {
    throw new OperationError(
      `cannot download ${what}: ${displayLocation(current)} redirects to ${displayLocation(next)}, from https to plain http; ctl does not follow it`,
      { hint: `Use the https location of ${what}, or download it yourself and give the file.` },
    );
  }
  return next;
}

/** The body, counted as it streams; cancelled past the limit. */
async function readBody(
  body: ReadableStream<Uint8Array> | null,
  limits: DownloadLimits,
  shown: string,
  hint: string,
): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limits.maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new OperationError(`cannot download ${limits.what} ${shown}: ${tooLarge(limits)}`, { hint });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** http only to this machine, or when allowed; nothing but http and https. */
function checkTransport(url: string, first: string, limits: DownloadLimits, env: NodeJS.ProcessEnv): void {
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new OperationError(
      `cannot download ${limits.what} ${displayLocation(first)}: ${parsed.protocol} is not http or https`,
      {
        hint: `Give ${limits.what} as an https URL or a file.`,
      },
    );
  }
  if (plainHttpRefused(url, env)) {
    throw new OperationError(`refusing ${limits.what} ${displayLocation(url)}: ${PLAIN_HTTP_REFUSED}`, {
      hint: PLAIN_HTTP_HINT,
    });
  }
}

const PLAIN_HTTP_REFUSED = 'plain http can be read and changed on the way';
const PLAIN_HTTP_HINT = 'Use an https location, or, knowingly, pass --allow-http (env CTL_ALLOW_HTTP=1).';

/** An http URL to another machine while plain http is not allowed. */
function plainHttpRefused(url: string, env: NodeJS.ProcessEnv): boolean {
  const parsed = new URL(url);
  return (
    parsed.protocol === 'http:' &&
    !isLoopbackHost(parsed.hostname) &&
    !plainHttpAllowed &&
    !isTruthy(env.CTL_ALLOW_HTTP)
  );
}

/**
 * Why {@link download} would refuse a location or one of its redirects, before reading it: for
 * the plan, which asks whether the run's download can succeed (src/kube/artifact-probe.ts).
 * `from`: the URL that redirected to `url`, if any. Undefined: the rules let it through.
 */
export function downloadRefusal(
  url: string,
  env: NodeJS.ProcessEnv,
  from?: { url: string; hop: number },
): { reason: string; hint: string } | undefined {
  if (from && from.hop >= MAX_REDIRECTS)
    return {
      reason: `more than ${MAX_REDIRECTS} redirects (the most ctl follows)`,
      hint: 'Give the location the redirects end at, or download it yourself and give the file.',
    };
  // A plan's probe asks before anything parses the location: it answers, never throws.
  if (!URL.canParse(url))
    return {
      reason: 'is not a URL',
      hint: 'Give the location as an https URL or a file.',
    };
  const protocol = new URL(url).protocol;
  if (from && new URL(from.url).protocol === 'https:' && protocol !== 'https:')
    return {
      reason: `redirects to ${displayLocation(url)}, from https to plain http, which ctl does not follow`,
      hint: 'Use the https location the redirects should end at, or download it yourself and give the file.',
    };
  if (protocol !== 'https:' && protocol !== 'http:')
    return { reason: `${protocol} is not http or https`, hint: 'Give an https URL or a file.' };
  if (plainHttpRefused(url, env)) return { reason: PLAIN_HTTP_REFUSED, hint: PLAIN_HTTP_HINT };
  return undefined;
}

function isTruthy(value: string | undefined): boolean {
  return value !== undefined && ['1', 'true', 'yes'].includes(value.toLowerCase());
}

function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { message?: string; code?: string } }).cause;
  if (cause?.code) return `${cause.code}${cause.message ? ` (${cause.message})` : ''}`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * A location as ctl prints or saves it: a URL's user information and every query value shown
 * as `***` (`?token=***&X-Amz-Signature=***`), and no fragment; a file path as it is.
 */
export function displayLocation(location: string): string {
  if (!isUrl(location)) return location;
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    // Up to the last `@` of the authority: a password may hold one.
    return location.replace(/\/\/[^/?#]*@/, '//***@').replace(/\?.*$/s, '?***');
  }
  const user = url.username || url.password ? '***@' : '';
  const query = [...url.searchParams.keys()].map((key) => `${encodeURIComponent(key)}=***`).join('&');
  return `${url.protocol}//${user}${url.host}${url.pathname}${query ? `?${query}` : ''}`;
}

/** The secret parts of a location (password, user, query values), for the redactor. */
export function locationSecrets(location: string): string[] {
  if (!isUrl(location)) return [];
  try {
    const url = new URL(location);
    const parts = [
      url.password,
      decodeURIComponent(url.password),
      url.username,
      ...url.searchParams.values(),
    ];
    // The raw (percent-encoded) query values too: an error may quote the URL as given.
    for (const pair of url.search.replace(/^\?/, '').split('&')) {
      const value = pair.split('=').slice(1).join('=');
      if (value) parts.push(value);
    }
    return [...new Set(parts.filter((part) => part.length > 0))];
  } catch {
    return [];
  }
}
