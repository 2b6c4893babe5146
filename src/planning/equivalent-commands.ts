/**
 * The commands a person could run instead of ctl, for plan actions and check fixes. They follow
 * the upstream docs (redis-facts.md §3) and are quoted for a POSIX shell.
 */

import type { FieldPath } from '../release/dialect.js';

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

/**
 * ctl's server-side apply, as kubectl flags: forced, field manager `ctl` (FIELD_MANAGER of
 * src/kube/write.ts; a test keeps the two equal).
 */
export const SERVER_SIDE_APPLY_FLAGS = ['--server-side', '--force-conflicts', '--field-manager=ctl'];

/** `kubectl apply --server-side --force-conflicts --field-manager=ctl [-n <ns>] -f <file>` */
export function kubectlApply(file: string, namespace?: string, binary = 'kubectl'): string {
  const words = ['apply', ...SERVER_SIDE_APPLY_FLAGS, ...(namespace ? ['-n', namespace] : []), '-f', file];
  return [binary, ...words.map(quoteUnlessPlaceholder)].join(' ');
}

/** Prints a manifest to stdout: `curl -fsSL <url>` for a URL, `cat <file>` for a file. */
export function printManifest(location: string): string {
  return /^https?:\/\//i.test(location)
    ? `curl -fsSL ${quoteUnlessPlaceholder(location)}`
    : `cat ${quoteUnlessPlaceholder(location)}`;
}

export interface HelmUpgrade {
  release: string;
  namespace: string;
  /** As helm gets it: a bare chart name when `repo` is set. */
  chart: string;
  repo: string | undefined;
  chartVersion: string;
  openshift: boolean;
  /** Further `--set` values (`operator.image.tag=<target>` over a pinned tag; src/planning/helm-values.ts). */
  set?: string[] | undefined;
}

/**
 * `helm upgrade <release> <chart> --version <v> --namespace <ns> [--repo <url>]
 * [--set openshift.mode=true] --reset-then-reuse-values`: the arguments, in the order, of the
 * operator step (src/steps/operator-helm.ts). On helm older than 3.14 the step leaves out
 * `--reset-then-reuse-values` and warns.
 */
export function helmUpgradeCommand(upgrade: HelmUpgrade): string {
  return ['helm', ...helmUpgradeArgv(upgrade, true)].map(quoteUnlessPlaceholder).join(' ');
}

/** The arguments of that `helm upgrade`, as the operator step runs it and the plan shows it. */
export function helmUpgradeArgv(upgrade: HelmUpgrade, resetThenReuseValues: boolean): string[] {
  return [
    'upgrade',
    upgrade.release,
    upgrade.chart,
    '--version',
    upgrade.chartVersion,
    '--namespace',
    upgrade.namespace,
    ...(upgrade.repo ? ['--repo', upgrade.repo] : []),
    ...(upgrade.openshift ? ['--set', 'openshift.mode=true'] : []),
    ...(upgrade.set ?? []).flatMap((value) => ['--set', value]),
    ...(resetThenReuseValues ? ['--reset-then-reuse-values'] : []),
  ];
}
