/**
 * How the monitor step fails when the roll does not end well, and what it tells the user to do:
 * the operator refused the upgrade (state InvalidUpgrade, exit 1: its warnings and the fix), the
 * rollout made no progress for --stall-timeout or the whole wait passed --timeout (exit 6: what
 * it saw last, and where to look). Messages only; when to fail is the follower's
 * (./monitor-follower.ts).
 */

import { oneLine } from '../io/safe-text.js';
import { type DialectFields, dialectFields } from '../release/dialect.js';
import { describeImagePullFailure, type ImagePullFailure, imagePullHint } from './monitor-image-pull.js';
import { OperationError, TimeoutError } from '../errors.js';
import type { KubeClients } from '../kube/client.js';
import type { KubeObject } from '../kube/reads.js';
import { formatDuration, listCollection } from '../kube/watch.js';
import { kubectl, type KubeTarget, kubectlMergePatch, patchAt } from '../planning/equivalent-commands.js';
import type { UpgradeDeps } from './deps.js';
import { type KubeEvent, podCreationRefusal, refusalHint } from './monitor-failed-create.js';
import type { Target } from './monitor-view.js';
import { getPath, str } from '../json-read.js';
import { licenseFix } from '../planning/checks/license-valid.js';
import type { ClusterSnapshot } from '../planning/snapshot.js';

/** Where the cluster resource, the rollout and the operator's log are read, and how to go on. */
export function lookHint(
  target: Pick<Target, 'name' | 'namespace'>,
  operatorNamespace: string,
  kube: KubeTarget,
): string {
  const { name, namespace } = target;
  return (
    `Look at ${kubectl(kube, 'get', 'rec', name, '-n', namespace)}, ${kubectl(kube, 'rollout', 'status', `sts/${name}`, '-n', namespace)} ` +
    `and the operator's log: ${kubectl(kube, 'logs', 'deploy/redis-enterprise-operator', '-n', operatorNamespace)}; ` +
    'once it moves again, run ctl again to resume (or pass a longer --stall-timeout/--timeout).'
  );
}

/**
 * The Events about the objects named like the cluster (the cluster resource, its StatefulSet),
 * read fresh when the step fails; none when they cannot be read (the failure is said anyway).
 */
export function eventsAbout(
  kube: KubeClients,
  target: Pick<Target, 'name' | 'namespace'>,
  signal: AbortSignal,
): Promise<KubeEvent[]> {
  return listCollection<KubeEvent>(
    kube,
    `/api/v1/namespaces/${target.namespace}/events`,
    { fieldSelector: `involvedObject.name=${target.name}` },
    signal,
  ).then(
    (list) => list.items,
    () => [],
  );
}

/** The whole wait passed --timeout. */
export function overallTimeoutError(
  target: Target,
  timeoutMs: number,
  lastMessage: string | undefined,
  operatorNamespace: string,
  kube: KubeTarget,
): TimeoutError {
  return new TimeoutError(
    `timed out after ${formatDuration(timeoutMs)} waiting for the upgrade of ${target.name} to ${target.tag} (last seen: ${lastMessage ?? 'nothing yet'})`,
    { hint: lookHint(target, operatorNamespace, kube) },
  );
}

/**
 * No progress for the stall limit. A StatefulSet that cannot create pods (OpenShift SCC
 * admission) says why in its FailedCreate Warning, a real Kubernetes Event
 * (./monitor-failed-create.ts): the refusal is named, with its fix for the pods' service account.
 * A new pod that cannot pull an image (./monitor-image-pull.ts) is named with the image and
 * what to do about it.
 */
export function stalledError(
  target: Target,
  stallTimeoutMs: number,
  lastMessage: string | undefined,
  events: KubeEvent[],
  sts: KubeObject | undefined,
  operatorNamespace: string,
  kube: KubeTarget,
  pulls: { failure: ImagePullFailure; fields: DialectFields } | undefined = undefined,
): TimeoutError {
  const { name, namespace } = target;
  const refusal = podCreationRefusal(events);
  const refusalFix = refusal && refusalHint(refusal, serviceAccountOf(sts, name), namespace, kube);
  const pullFix = pulls && imagePullHint(pulls.failure, target, pulls.fields, kube);
  const look = lookHint(target, operatorNamespace, kube);
  const fixes = [refusalFix, pullFix].filter((fix): fix is string => Boolean(fix));
  return new TimeoutError(
    `the upgrade of ${name} to ${target.tag} made no progress for ${formatDuration(stallTimeoutMs)} (last seen: ${lastMessage ?? 'nothing yet'})` +
      (refusal ? `; the StatefulSet cannot create pods: ${refusal}` : '') +
      (pulls ? `; ${describeImagePullFailure(pulls.failure)}` : ''),
    { hint: [...fixes, look].join(' ') },
  );
}

/** The pods' service account, from the StatefulSet's template (the cluster's name by default). */
function serviceAccountOf(sts: KubeObject | undefined, clusterName: string): string {
  const name = getPath(sts, ['spec', 'template', 'spec', 'serviceAccountName']);
  return typeof name === 'string' ? name : clusterName;
}

/** InvalidUpgrade: the operator refused the upgrade; say why (its warnings) and how to fix it. */
export function invalidUpgradeError(
  rec: KubeObject | undefined,
  events: KubeEvent[],
  target: { name: string; namespace: string },
  dialect: UpgradeDeps['snapshot']['dialect'],
  kube: KubeTarget,
  cluster?: ClusterSnapshot,
): OperationError {
  const fields = dialectFields(dialect);
  const warnings = events
    .filter((e) => e.type === 'Warning')
    .sort((a, b) => order(a) - order(b))
    .slice(-5)
    .map((e) => `  ${oneLine(e.reason ?? 'Warning')}: ${oneLine(e.message ?? '')}`);
  const autoUpgrade = getPath(rec, fields.autoUpgradePath) === true;
  const digest = str(getPath(rec, [...fields.imageSpecPath, 'digestHash']));
  const license = licenceNotValid(rec);
  const { name, namespace } = target;
  const autoField = fields.autoUpgradePath.slice(1).join('.');
  const digestField = [...fields.imageSpecPath.slice(1), 'digestHash'].join('.');
  let hint: string;
  if (autoUpgrade && digest) {
    hint =
      `${autoField} is true and ${digestField} is set; automatic upgrades cannot use a digest. Turn auto-upgrade off: ` +
      `${kubectlMergePatch(kube, 'rec', name, namespace, patchAt(fields.autoUpgradePath, false))} ` +
      `or remove the digest: ${kubectlMergePatch(kube, 'rec', name, namespace, patchAt([...fields.imageSpecPath, 'digestHash'], null))}; then run ctl again.`;
  } else if (license !== undefined) {
    hint = `The cluster's licence is ${license} (status.licenseStatus.licenseState): ${licenceFixOf(target, cluster, kube)}; then run ctl again: it resumes the upgrade where it stopped.`;
  } else {
    hint = `Read the operator's reason with ${kubectl(kube, 'describe', 'rec', name, '-n', namespace)}, fix the spec, then run ctl again.`;
  }
  return new OperationError(
    `the operator refused the upgrade of ${name}: state InvalidUpgrade` +
      (warnings.length > 0 ? `\nrecent warnings:\n${warnings.join('\n')}` : ' (no Warning events found)'),
    { hint },
  );
}

/** Order of events: their resourceVersion (etcd's revision) when numeric, else their time. */
function order(event: KubeEvent): number {
  const rv = Number(event.metadata?.resourceVersion);
  if (Number.isFinite(rv)) return rv;
  const time =
    event.lastTimestamp ?? event.eventTime ?? event.firstTimestamp ?? event.metadata?.creationTimestamp;
  return time ? new Date(time).getTime() : 0;
}

/**
 * The licence the cluster resource reports (status.licenseStatus.licenseState) when it is not
 * Valid, on one line and at most 80 characters (it is the cluster's text: a hostile status
 * must not fill the screen nor move the cursor); undefined when it is Valid or not text.
 */
export function licenceNotValid(rec: KubeObject | undefined): string | undefined {
  const state = str(getPath(rec, ['status', 'licenseStatus', 'licenseState']));
  if (state === undefined || state === 'Valid') return undefined;
  const shown = oneLine(state);
  return shown.length > 80 ? `${shown.slice(0, 77)}...` : shown;
}

/**
 * The licence is not Valid and the roll has not begun (nor anything moved) for the licence grace
 * (./monitor-timing.ts licenceGraceMs): what the licence says, and the license-valid check's fix
 * (where the licence lives decides it), then run ctl again, which resumes.
 */
export function licenceStopError(
  target: Target,
  licence: string,
  rec: KubeObject | undefined,
  graceMs: number,
  cluster: ClusterSnapshot | undefined,
  kube: KubeTarget,
): OperationError {
  const expires = str(getPath(rec, ['status', 'licenseStatus', 'expirationDate']));
  const fix = licenceFixOf(target, cluster, kube);
  return new OperationError(
    `the cluster's licence is ${licence} (status.licenseStatus.licenseState${expires ? `, expires ${oneLine(expires).slice(0, 40)}` : ''}) ` +
      `and the upgrade of ${target.name} to ${target.tag} has not begun in ${formatDuration(graceMs)}: ` +
      'the operator does not upgrade a cluster without a valid licence',
    { hint: `${fix}; then run ctl again: it resumes the upgrade where it stopped.` },
  );
}

/**
 * The license-valid check's fix, where the licence lives deciding it (spec.license or the
 * Secret spec.licenseSecretName names: src/planning/checks/license-valid.ts), from the plan's
 * snapshot of the cluster; a plain sentence without it.
 */
function licenceFixOf(
  target: Pick<Target, 'name' | 'namespace'>,
  cluster: ClusterSnapshot | undefined,
  kube: KubeTarget,
): string {
  return cluster
    ? licenseFix(kube, cluster)
    : `Install a valid licence in the cluster resource ${target.namespace}/${target.name} (the Secret spec.licenseSecretName names, or spec.license)`;
}
