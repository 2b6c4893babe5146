/**
 * The commands a person could run instead of ctl, for plan actions and check fixes. They follow
 * the upstream docs (redis-facts.md §3) and are quoted for a POSIX shell.
 *
 * Every kubectl, oc and helm command names the kubeconfig and context the person chose for ctl
 * (a KubeTarget, src/kube/kube-target.ts): pasted, it acts on the cluster ctl read, not on the
 * default kubeconfig's current context. The `ctl upgrade plan/run --to` a fix proposes names
 * the `-n` and `--cluster` given too (a CtlTarget). curl commands go to the management API ctl
 * reached and name no kubeconfig.
 */

import { shellQuote } from '../io/shell-words.js';
import { quoteJsonBody } from './json-shell-variables.js';
import { commandFor, invocation, type KubeTarget } from '../kube/kube-target.js';
import type { FieldPath } from '../release/dialect.js';

export type { KubeTarget } from '../kube/kube-target.js';

export { shellQuote } from '../io/shell-words.js';

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

/**
 * `kubectl patch <kind> <name> -n <ns> --type merge -p '<json>'`; a value of the body that the
 * command takes from a shell variable (fromShellVariable) is spliced in as `"'"${NAME:?}"'"`.
 */
export function kubectlMergePatch(
  target: KubeTarget,
  kind: string,
  name: string,
  namespace: string,
  body: unknown,
): string {
  return `${invocation('kubectl', target)} patch ${kind} ${shellQuote(name)} -n ${shellQuote(namespace)} --type merge -p ${quoteJsonBody(body)}`;
}

/** `kubectl <words>`, each word quoted (a placeholder is a plain capital word: src/io/shell-words.ts). */
export function kubectl(target: KubeTarget, ...words: string[]): string {
  return commandFor('kubectl', target, ...words);
}

/** `oc <words>`: OpenShift's client, for what kubectl has no verb for (`oc adm policy`) and OLM. */
export function oc(target: KubeTarget, ...words: string[]): string {
  return commandFor('oc', target, ...words);
}

/**
 * `ctl <words>` for the same cluster: ctl takes kubectl's `--kubeconfig` and `--context`, and
 * reads KUBECONFIG as kubectl does.
 */
export function ctlCommand(target: KubeTarget, ...words: string[]): string {
  return commandFor('ctl', target, ...words);
}

/**
 * The cluster a `ctl upgrade plan/run` that ctl proposes acts on: the kubeconfig and context
 * chosen (a KubeTarget), and the `-n` and `--cluster` ctl was given. Each is named only when it
 * was given, as the KubeTarget's are: without `-n` ctl used the context's namespace and without
 * `--cluster` the only cluster resource there, and so does the pasted command.
 */
export interface CtlTarget extends KubeTarget {
  /** `-n` as given; unset when ctl used the context's namespace (or `default`). */
  readonly namespace?: string | undefined;
  /** `--cluster` as given; unset when ctl took the only cluster resource of the namespace. */
  readonly cluster?: string | undefined;
}

/** A CtlTarget from the KubeTarget and the `-n`/`--cluster` values as given (unset or empty: not given). */
export function ctlTarget(
  kube: KubeTarget,
  given: { namespace?: string | undefined; cluster?: string | undefined },
): CtlTarget {
  return {
    ...kube,
    ...(given.namespace ? { namespace: given.namespace } : {}),
    ...(given.cluster ? { cluster: given.cluster } : {}),
  };
}

/** The CtlTarget of a snapshot: its KubeTarget, and the `-n`/`--cluster` it was read with. */
export function ctlTargetOf(snapshot: {
  kubeTarget: KubeTarget;
  requestedNamespace?: string | undefined;
  requestedCluster?: string | undefined;
}): CtlTarget {
  return ctlTarget(snapshot.kubeTarget, {
    namespace: snapshot.requestedNamespace,
    cluster: snapshot.requestedCluster,
  });
}

/**
 * `ctl upgrade <verb> <what> [-n <ns>] [--cluster <name>] [words]`, `what` being `--to <version>`
 * or `--plan <file>`, every word shell-quoted (a namespace or a plan file read back from a state
 * named `<x>` stays one argument). Before `words`, whose last one may take a value the caller
 * writes after the command (`--module-file` and what to give it).
 */
function ctlUpgrade(target: CtlTarget, verb: 'plan' | 'run', what: string[], words: string[]): string {
  const given = [
    ...(target.namespace ? ['-n', shellQuote(target.namespace)] : []),
    ...(target.cluster ? ['--cluster', shellQuote(target.cluster)] : []),
  ];
  return [
    ctlCommand(target, 'upgrade', verb),
    ...what.map(shellQuote),
    ...given,
    ...words.map(shellQuote),
  ].join(' ');
}

/**
 * `ctl upgrade plan --to <version> [-n <ns>] [--cluster <name>] [words]` for the same cluster:
 * the target a check's fix proposes.
 */
export function ctlPlanTo(target: CtlTarget, version: string, ...words: string[]): string {
  return ctlUpgrade(target, 'plan', ['--to', version], words);
}

/**
 * `ctl upgrade plan [-n <ns>] [--cluster <name>]` for the same cluster: the list of the targets
 * it can reach, each judged with its hops.
 */
export function ctlPlanTargets(target: CtlTarget): string {
  return ctlUpgrade(target, 'plan', [], []);
}

/**
 * `ctl upgrade run --to <version> [-n <ns>] [--cluster <name>] [words]` for the same cluster:
 * the run a fix proposes first.
 */
export function ctlRunTo(target: CtlTarget, version: string, ...words: string[]): string {
  return ctlUpgrade(target, 'run', ['--to', version], words);
}

/**
 * `ctl upgrade run --plan <file> [-n <ns>] [--cluster <name>]` for the same cluster: the run of a
 * plan saved with `--out` (the plan fixes the target; the cluster is named as for the plan).
 */
export function ctlRunPlan(target: CtlTarget, file: string): string {
  return ctlUpgrade(target, 'run', ['--plan', file], []);
}

/** A curl call to the management API; the reader puts the credentials for USERNAME:PASSWORD. */
export function curlApi(method: 'GET' | 'POST', path: string, extra: string[] = []): string {
  const words = [
    'curl',
    '-sfk',
    '-u',
    'USERNAME:PASSWORD',
    '-X',
    method,
    ...extra,
    `https://localhost:9443${path}`,
  ];
  return words.map(shellQuote).join(' ');
}

/**
 * ctl's server-side apply, as kubectl flags: forced, field manager `ctl` (FIELD_MANAGER of
 * src/kube/write.ts; a test keeps the two equal).
 */
export const SERVER_SIDE_APPLY_FLAGS = ['--server-side', '--force-conflicts', '--field-manager=ctl'];

/** `kubectl apply --server-side --force-conflicts --field-manager=ctl [-n <ns>] -f <file>` */
export function kubectlApply(
  target: KubeTarget,
  file: string,
  namespace?: string,
  binary: 'kubectl' | 'oc' = 'kubectl',
): string {
  const words = ['apply', ...SERVER_SIDE_APPLY_FLAGS, ...(namespace ? ['-n', namespace] : []), '-f', file];
  return commandFor(binary, target, ...words);
}

/** Prints a manifest to stdout: `curl -fsSL <url>` for a URL, `cat <file>` for a file. */
export function printManifest(location: string): string {
  return /^https?:\/\//i.test(location)
    ? `curl -fsSL ${shellQuote(location)}`
    : `cat ${shellQuote(location)}`;
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
 * `helm [--kubeconfig <file>] [--kube-context <name>] upgrade <release> <chart> --version <v>
 * --namespace <ns> [--repo <url>] [--set openshift.mode=true] --reset-then-reuse-values`: the
 * arguments, in the order, of the operator step (src/steps/operator-helm.ts; src/exec/helm.ts
 * puts the same target flags first, from the same helmTargetArgs). On helm older than 3.14 the
 * step leaves out `--reset-then-reuse-values` and warns.
 */
export function helmUpgradeCommand(target: KubeTarget, upgrade: HelmUpgrade): string {
  return helmCommand(target, ...helmUpgradeArgv(upgrade, true));
}

/** `helm <words>` for the target (helm's spelling: `--kube-context`). */
export function helmCommand(target: KubeTarget, ...words: string[]): string {
  return commandFor('helm', target, ...words);
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
