/**
 * The commands a person could run instead of ctl, for plan actions and check fixes. They follow
 * the upstream docs (redis-facts.md §3) and are quoted for a POSIX shell.
 */

import type { FieldPath } from '../dialect.js';

/** Quotes a word for sh when it needs it: `it's` -> `'it'\''s'`. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** `{"spec":{"x":{"y":value}}}` from a field path. */
export function patchAt(path: FieldPath, value: unknown): Record<string, unknown> {
  let body: unknown = value;
  for (const key of [...path].reverse()) body = { [key]: body };
  return body as Record<string, unknown>;
}

/** Deep-merges patch bodies built with patchAt, so one command sets several fields. */
export function mergeBodies(...bodies: Record<string, unknown>[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const body of bodies) {
    for (const [key, value] of Object.entries(body)) {
      const existing = out[key];
      out[key] = isPlainObject(existing) && isPlainObject(value) ? mergeBodies(existing, value) : value;
    }
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `kubectl patch <kind> <name> -n <ns> --type merge -p '<json>'` */
export function kubectlMergePatch(kind: string, name: string, namespace: string, body: unknown): string {
  return `kubectl patch ${kind} ${shellQuote(name)} -n ${shellQuote(namespace)} --type merge -p ${shellQuote(JSON.stringify(body))}`;
}

export function kubectl(...words: string[]): string {
  return ['kubectl', ...words.map(quoteUnlessPlaceholder)].join(' ');
}

/**
 * Words with a `<placeholder>` for the reader to fill in stay unquoted, as in the upstream docs
 * (`--from-file=license=<license-file>`): quoting them would only hide the placeholder.
 */
function quoteUnlessPlaceholder(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]*(<[a-z0-9._-]+>[A-Za-z0-9_@%+=:,./-]*)+$/.test(word)
    ? word
    : shellQuote(word);
}

/** A curl call to the management API, with the credential placeholders the docs use. */
export function curlApi(method: 'GET' | 'POST', path: string, extra: string[] = []): string {
  const words = [
    'curl',
    '-sfk',
    '-u',
    '<username>:<password>',
    '-X',
    method,
    ...extra,
    `https://localhost:9443${path}`,
  ];
  return words.map(quoteUnlessPlaceholder).join(' ');
}
