import { UsageError } from '../errors.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `90s`, `15m`, `1h`, `1h30m` -> milliseconds; anything else is a usage error naming the flag. */
export function parseDuration(value: string, flag: string): number {
  const text = value.trim();
  const parts = [...text.matchAll(/(\d+)(ms|s|m|h)/g)];
  const total = parts.reduce((sum, [, n, unit]) => sum + Number(n) * UNITS[unit!]!, 0);
  if (text === '' || parts.map((p) => p[0]).join('') !== text || total <= 0 || !Number.isSafeInteger(total)) {
    throw new UsageError(`${flag}: "${value}" is not a duration`, {
      hint: `Use e.g. ${flag} 90s, 15m or 1h.`,
    });
  }
  return total;
}

/** A whole number within bounds, for flags like --max-parallel. */
export function parseCount(value: string, flag: string, min: number, max: number): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`${flag}: "${value}" is not a whole number from ${min} to ${max}`, {
      hint: `Use e.g. ${flag} ${min}.`,
    });
  }
  return Number(value);
}
