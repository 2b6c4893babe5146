/**
 * The monitor's judgement of one view of the roll: from the cluster resource, its StatefulSet
 * and the StatefulSet's pods as last seen, is the rolling upgrade done, and if not, what is it
 * waiting for (the progress line the user reads)? Pure: the follower (./monitor-follower.ts)
 * feeds it the live objects, the dry run one read of them (./monitor.ts).
 *
 * Each pod is judged by itself (./roll-facts.ts): on the update revision
 * (`controller-revision-hash`), ready, its node container on the target image (a digest-pinned
 * old image never counts, ./image-at-target.ts). Never by `status.currentRevision` alone:
 * Kubernetes does not promote it under `OnDelete` (kubernetes #73492, #106055).
 */

import { imageAtTarget } from './image-at-target.js';
import { isOnDelete, nodeImageOf, type NodeVersions } from './roll-facts.js';
import type { DialectFields } from '../release/dialect.js';
import { isPodReady } from '../kube/pod-ready.js';
import type { KubeObject } from '../kube/reads.js';
import { getPath, num, str } from '../json-read.js';
import { compareNatural } from '../io/text-order.js';

/** What the monitor follows: the cluster resource's name and place, and the tag it goes to. */
export interface Target {
  name: string;
  namespace: string;
  tag: string;
  recApiVersion: string;
  /** The digestHash pinned before the upgrade (another tag's image): never counts as upgraded. */
  oldDigest?: string | undefined;
}

/** The pod label that names the StatefulSet revision a pod was made from. */
const REVISION_LABEL = 'controller-revision-hash';

/** One judgement of the roll: done or not, and the progress line that says why not. */
export interface View {
  done: boolean;
  state: string | undefined;
  message: string;
  replicas: number;
  updateRevision: string | undefined;
  /** Everything else is done but the spec's tag (auto-upgrade): the nodes' versions decide. */
  needsNodes: boolean;
  /**
   * The operator has begun the roll: the StatefulSet's pod template runs the target image.
   * Before that, nothing of the cluster has moved toward the target.
   */
  rollStarted: boolean;
}

/** `key=value,...` of the StatefulSet's pod selector; undefined until it is known. */
export function podSelectorOf(sts: KubeObject | undefined): string | undefined {
  const labels = getPath(sts, ['spec', 'selector', 'matchLabels']);
  if (!labels || typeof labels !== 'object') return undefined;
  const selector = Object.entries(labels as Record<string, string>)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  return selector === '' ? undefined : selector;
}

/**
 * How many pods run the StatefulSet's update revision and are ready, counted from the pods
 * themselves; undefined while that cannot be known honestly: the pods are not listed yet, or
 * the StatefulSet controller has not observed the current spec (its updateRevision is then the
 * previous one, and pods of the old template would count as upgraded). Never from
 * status.updatedReplicas: that also counts pods that are not ready, and lags behind the pods.
 *
 * `upgraded` remembers the pods once seen ready on the update revision (`<revision>/<pod>`): a
 * pod that is upgraded stays counted while it keeps that revision, even when its readiness
 * flickers, so the count only goes down when the StatefulSet starts another rollout.
 */
export function countUpgradedPods(
  sts: KubeObject,
  pods: ReadonlyMap<string, KubeObject> | undefined,
  upgraded: Set<string> = new Set(),
): number | undefined {
  const status = (sts.status ?? {}) as Record<string, unknown>;
  const updateRevision = str(status.updateRevision);
  const observed = (num(status.observedGeneration) ?? 0) >= (sts.metadata?.generation ?? 0);
  if (!pods || !observed || updateRevision === undefined) return undefined;
  let count = 0;
  for (const pod of pods.values()) {
    if (pod.metadata?.labels?.[REVISION_LABEL] !== updateRevision) continue;
    const key = `${updateRevision}/${pod.metadata?.name ?? ''}`;
    if (isPodReady(pod) && !(pod.metadata as { deletionTimestamp?: string }).deletionTimestamp)
      upgraded.add(key);
    if (upgraded.has(key)) count += 1;
  }
  return count;
}

/** What the monitor knows of the nodes' versions (GET /v1/nodes); undefined until it asks. */
export type NodesSeen = NodeVersions | undefined;

/**
 * Done when the state is Running, every pod is upgraded (countUpgradedPods, and each pod named
 * below), the pod template is at the target, and the spec's versionTag is the target; with
 * auto-upgrade, when every node reports the target's version instead (`nodes`).
 */
export function judge(
  rec: KubeObject | undefined,
  sts: KubeObject | undefined,
  /** The StatefulSet's pods; undefined while they are not listed yet. */
  pods: ReadonlyMap<string, KubeObject> | undefined,
  target: Target,
  fields: Pick<DialectFields, 'imageSpecPath' | 'autoUpgradePath'>,
  upgraded?: Set<string>,
  nodes?: NodesSeen,
): View {
  const { imageSpecPath } = fields;
  const state = str(getPath(rec, ['status', 'state']));
  const specTag = str(getPath(rec, [...imageSpecPath, 'versionTag']));
  const autoUpgrade = getPath(rec, fields.autoUpgradePath) === true;
  if (!sts) {
    return {
      done: false,
      state,
      message: `cluster ${state ?? 'unknown'}, StatefulSet ${target.name} not found`,
      replicas: 0,
      updateRevision: undefined,
      needsNodes: false,
      rollStarted: false,
    };
  }
  const status = (sts.status ?? {}) as Record<string, unknown>;
  const replicas = num(getPath(sts, ['spec', 'replicas'])) ?? num(status.replicas) ?? 1;
  const updateRevision = str(status.updateRevision);
  const currentRevision = str(status.currentRevision);
  const generation = sts.metadata?.generation ?? 0;
  const observed = num(status.observedGeneration) ?? 0;
  const facts = {
    tag: target.tag,
    oldDigest: target.oldDigest,
    specDigest: str(getPath(rec, [...imageSpecPath, 'digestHash'])),
  };
  const atTarget = imageAtTarget(nodeImageOf(sts, ['spec', 'template', 'spec']), facts);

  const count = countUpgradedPods(sts, pods, upgraded);
  // Each pod, judged by itself: the update revision, ready, the target image (a digest-pinned
  // old image never counts). Highest ordinal first is the operator's order; names sort here.
  const waiting: string[] = [];
  let podsAtTarget = count !== undefined && pods !== undefined;
  if (count !== undefined && pods) {
    const byName = new Map([...pods.values()].map((pod) => [pod.metadata?.name ?? '', pod]));
    const names = new Set([
      ...Array.from({ length: replicas }, (_, i) => `${target.name}-${i}`),
      ...byName.keys(),
    ]);
    for (const name of [...names].sort(compareNatural)) {
      const pod = byName.get(name);
      const gone = (pod?.metadata as { deletionTimestamp?: string } | undefined)?.deletionTimestamp;
      if (!pod) waiting.push(`${name} missing`);
      else if (pod.metadata?.labels?.[REVISION_LABEL] !== updateRevision) waiting.push(`${name} old`);
      else if (!imageAtTarget(nodeImageOf(pod, ['spec']), facts))
        waiting.push(`${name} not on the target image`);
      else if (!isPodReady(pod) || gone)
        waiting.push(`${name} ${upgraded?.has(`${updateRevision}/${name}`) ? 'not ready' : 'starting'}`);
    }
    podsAtTarget = waiting.length === 0 && byName.size === replicas;
  }
  // Kubernetes promotes currentRevision at the end of a RollingUpdate, never under OnDelete
  // (kubernetes #73492, #106055): there, the pods alone say that the roll is over.
  const revisionSettled =
    isOnDelete(sts) ||
    currentRevision === undefined ||
    updateRevision === undefined ||
    currentRevision === updateRevision;
  const rolled = observed >= generation && podsAtTarget && atTarget && revisionSettled;
  // With auto-upgrade the operator may roll to its own default without writing the spec's
  // versionTag (nothing documents that it writes it, redis-facts.md §12): then every node must
  // report the target's version in the management API instead.
  const bySpec = specTag === target.tag;
  const needsNodes = !bySpec && autoUpgrade && rolled && state === 'Running';
  const nodesDone = nodes?.atTarget === true;

  // The count, once it is known (countUpgradedPods); until then the number of pods alone, never
  // "?/3" (it read as a broken count).
  const counted =
    count !== undefined
      ? `pods ${count}/${replicas} upgraded`
      : observed < generation
        ? `${replicas} pods (the StatefulSet controller has not picked up the new spec yet)`
        : `${replicas} pods`;
  const tagNote = bySpec
    ? ''
    : `, versionTag ${specTag ?? '(default)'}${autoUpgrade ? ' (auto-upgrade)' : ''}`;
  const imageNote = atTarget ? '' : ', pod template not yet at the target';
  const detail = waiting.length > 0 && waiting.length <= 5 ? ` (${waiting.join(', ')})` : '';
  const nodeNote =
    needsNodes && nodes && !nodes.atTarget
      ? `, nodes not yet at ${target.tag}: ${nodes.behind.slice(0, 5).join(', ') || 'none listed'}`
      : '';
  const message = `cluster ${state ?? 'unknown'}${tagNote}, ${counted}${detail}${imageNote}${nodeNote}`;
  return {
    done: state === 'Running' && rolled && (bySpec || (autoUpgrade && nodesDone)),
    state,
    message,
    replicas,
    updateRevision,
    needsNodes,
    rollStarted: atTarget,
  };
}
