import { UsageError } from '../errors.js';

export const MIN_TTL = 1;
export const MAX_TTL = 86400;
export const DEFAULT_TTL = 300;

const UNIT_SECONDS: Record<string, number> = { h: 3600, m: 60, s: 1 };

/**
 * `--ttl`: seconds from 1 to 86400, as plain digits (`600`, what CLI.md fixes) or, as `--timeout`
 * takes it, a duration in whole hours, minutes and seconds (`10m`, `1h30m`, `90s`; issue 38).
 * Anything else ("", "1.5", "300ms", " 300", "-1") is a usage error, raised before any request.
 */
export function parseTtl(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TTL;
  const ttl = /^[0-9]+$/.test(value) ? Number(value) : durationSeconds(value);
  if (!Number.isSafeInteger(ttl) || ttl < MIN_TTL || ttl > MAX_TTL) {
    throw new UsageError(
      `--ttl must be from ${MIN_TTL} to ${MAX_TTL} seconds (a whole number, or a duration such as 10m), not "${value}"`,
      {
        hint: `For example --ttl 600 or --ttl 10m; without --ttl the token lives ${DEFAULT_TTL} s.`,
      },
    );
  }
  return ttl;
}

/** `1h30m` -> 5400; NaN unless the whole text is hours, minutes and seconds in that order. */
function durationSeconds(value: string): number {
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(value);
  if (!match || value === '') return Number.NaN;
  const [, h, m, sec] = match;
  return Number(h ?? 0) * UNIT_SECONDS.h! + Number(m ?? 0) * UNIT_SECONDS.m! + Number(sec ?? 0);
}
