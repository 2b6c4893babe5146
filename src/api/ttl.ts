import { UsageError } from '../errors.js';

export const MIN_TTL = 1;
export const MAX_TTL = 86400;
export const DEFAULT_TTL = 300;

/**
 * `--ttl`: an integer number of seconds from 1 to 86400, written as plain digits. Anything else
 * ("", "1.5", "300s", " 300", "-1") is a usage error, raised before any request.
 */
export function parseTtl(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TTL;
  const ttl = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(ttl) || ttl < MIN_TTL || ttl > MAX_TTL) {
    throw new UsageError(
      `--ttl must be a whole number of seconds from ${MIN_TTL} to ${MAX_TTL}, not "${value}"`,
      {
        hint: `For example --ttl 600; without --ttl the token lives ${DEFAULT_TTL} s.`,
      },
    );
  }
  return ttl;
}
