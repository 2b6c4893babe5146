/**
 * When to try a request again, and after how long (reliability.md §3): exponential backoff with
 * full jitter; Retry-After honoured on 429/503 up to a cap; connection errors retried only when
 * a repeat cannot do a change twice.
 */

import { PROXY_HUNG_UP } from './proxy-hung-up.js';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the call fails and says so. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
};

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** Statuses that say "not done, try later": safe to repeat for any method. */
const TRY_LATER_STATUSES = new Set([429, 503]);
/** Gateway and server failures: the request may have been acted on, so idempotent calls only. */
const TRANSIENT_STATUSES = new Set([500, 502, 504]);

/** The connection never got to carry the request: no server saw it, any method may retry. */
const NOT_SENT_ERRORS = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETDOWN',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  // The proxy hung up instead of opening a tunnel (./proxy-agent.ts).
  PROXY_HUNG_UP,
]);
/** The connection broke after the request may have left: only idempotent calls repeat. */
const BROKEN_ERRORS = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

export function isIdempotentMethod(method: string): boolean {
  return IDEMPOTENT_METHODS.has(method.toUpperCase());
}

export function shouldRetryStatus(status: number, idempotent: boolean): boolean {
  return TRY_LATER_STATUSES.has(status) || (idempotent && TRANSIENT_STATUSES.has(status));
}

export function shouldRetryError(code: string | undefined, idempotent: boolean): boolean {
  if (code === undefined) return false;
  return NOT_SENT_ERRORS.has(code) || (idempotent && BROKEN_ERRORS.has(code));
}

/** Full jitter: uniform in [0, min(max, base * 2^retry)]. `retry` counts from 0. */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/** Retry-After as delta-seconds or an HTTP date, in ms from `now`; undefined when absent or bad. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
