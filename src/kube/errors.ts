/**
 * Reading client-node errors. An ApiException carries the HTTP status in `.code` and the
 * response body as a STRING in `.body` (feasibility.md §3, surprise 4): parse it to get the
 * Kubernetes Status `reason` and `message`.
 */

import { oneLine } from '../io/safe-text.js';

export interface KubeErrorInfo {
  /** HTTP status, or undefined for a transport error (refused, TLS, reset). */
  code: number | undefined;
  /** Status.reason, e.g. NotFound, Forbidden, Conflict. */
  reason: string | undefined;
  message: string;
}

export function describeKubeError(error: unknown): KubeErrorInfo {
  const candidate = error as { code?: unknown; body?: unknown; message?: unknown } | null;
  const code = typeof candidate?.code === 'number' ? candidate.code : undefined;
  const status = parseStatusBody(candidate?.body);
  const message =
    status?.message ??
    (typeof candidate?.message === 'string' ? candidate.message : String(error ?? 'unknown error'));
  // The API server's message can be a webhook's, written by whoever deployed it: one safe line.
  return {
    code,
    reason: status?.reason === undefined ? undefined : oneLine(status.reason),
    message: oneLine(message),
  };
}

function parseStatusBody(body: unknown): { reason?: string; message?: string } | undefined {
  if (body && typeof body === 'object') return body as { reason?: string; message?: string };
  if (typeof body !== 'string' || body === '') return undefined;
  try {
    const parsed = JSON.parse(body) as unknown;
    return parsed && typeof parsed === 'object'
      ? (parsed as { reason?: string; message?: string })
      : undefined;
  } catch {
    return undefined;
  }
}

export function isNotFound(error: unknown): boolean {
  return describeKubeError(error).code === 404;
}

export function isForbidden(error: unknown): boolean {
  return describeKubeError(error).code === 403;
}

/** Runs a read that may legitimately find nothing: 404 becomes undefined, anything else throws. */
export async function orUndefinedIfNotFound<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
