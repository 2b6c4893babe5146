import { OperationError } from './errors.js';

/**
 * Reading fields of Kubernetes objects and API answers, which arrive as untyped JSON: each
 * reader answers undefined (or empty) for a missing or mistyped value instead of throwing.
 */
export function getPath(root: unknown, path: readonly string[]): unknown {
  let value: unknown = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
export const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
export const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
export const array = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/**
 * How deep ctl reads JSON from outside (a Kubernetes or management API answer, a state file or
 * ConfigMap, a saved plan, helm's output). JSON.parse reads any depth, but what ctl then does with
 * the value recurses (JSON.stringify for `-o json`, the state file and the report; YAML output;
 * the schema checks), and Node's stack ends at a few thousand levels: a hostile answer nested
 * 20,000 deep (40 KB, well within the size bounds) ended `ctl upgrade status -o json` with
 * "unexpected failure: Maximum call stack size exceeded". No Kubernetes object (a CRD's schema
 * included), API answer or file of ctl's comes near this bound.
 */
export const MAX_JSON_DEPTH = 512;

/** JSON from outside nested deeper than MAX_JSON_DEPTH (exit 1), naming where it came from. */
export class JsonTooDeepError extends OperationError {}

/**
 * JSON.parse(text), refusing a document nested deeper than MAX_JSON_DEPTH before it is parsed;
 * `source` names it for the error (`GET /v1/bdbs`, `the state file <path>`). A text that is not
 * JSON throws JSON.parse's SyntaxError, as before.
 */
export function parseJson(text: string, source: string): unknown {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw jsonTooDeep(source);
  return JSON.parse(text) as unknown;
}

export function jsonTooDeep(source: string): JsonTooDeepError {
  return new JsonTooDeepError(
    `${source}: the JSON is nested deeper than ${MAX_JSON_DEPTH} levels, far deeper than any Kubernetes object, management API answer or file of ctl's; ctl does not read it`,
    {
      hint: 'Look at what wrote it (a proxy or server in between, or an edited file): ctl reads nothing from it, and changed nothing because of it.',
    },
  );
}

/**
 * Whether the brackets and braces of a JSON text, outside its strings, open more than `max`
 * levels at once. One pass, no allocation; each string is skipped with indexOf (a native
 * search) rather than a character at a time: a Kubernetes list is mostly strings, and the
 * character loop cost 40-55 % of JSON.parse's time on 10,000 databases' list (6 MB: 28 ms
 * against 50-75 ms), the skip half of that. A text too short to hold that many is not looked at.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = closingQuote(text, i);
      if (i < 0) return false; // an unterminated string: JSON.parse says so
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** The index of the quote that ends the string opened at `open`, or -1: one not escaped. */
function closingQuote(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return -1;
    // Escaped when an odd number of backslashes stand right before it.
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}
