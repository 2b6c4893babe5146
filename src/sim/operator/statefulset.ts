import {
  containersOf,
  controlledBy,
  isPodReady,
  podFromTemplate,
  runningPodStatus,
} from '../kube/controllers/pods.js';
import { clone, type KubeObject } from '../kube/types.js';
import { NODE_CONTAINER, revisionOf } from './cluster-objects.js';
import { type KubeAccess, specOf, statusOf } from './kube-access.js';

/**
 * The cluster's StatefulSet as the real StatefulSet controller keeps it, for the one the
 * operator rolls itself: pods named by ordinal, labelled with their template's revision, and
 * the status fields `kubectl rollout status` reads (observedGeneration, readyReplicas,
 * updatedReplicas, currentRevision/updateRevision).
 */

export const REVISION_LABEL = 'controller-revision-hash';

export function templateOf(statefulSet: KubeObject): Record<string, unknown> {
  const template = specOf(statefulSet).template;
  return template && typeof template === 'object' ? (template as Record<string, unknown>) : {};
}

export function updateRevisionOf(statefulSet: KubeObject): string {
  return revisionOf(statefulSet.metadata.name ?? '', templateOf(statefulSet));
}

export function replicasOf(statefulSet: KubeObject): number {
  const replicas = specOf(statefulSet).replicas;
  return typeof replicas === 'number' ? replicas : 1;
}

/** The node container's image in the pod template: what the cluster is (being) upgraded to. */
export function nodeImageOf(template: unknown): string | undefined {
  const node = containersOf(template).find((c) => c.name === NODE_CONTAINER);
  return typeof node?.image === 'string' ? node.image : undefined;
}

/** The StatefulSet's pods by ordinal. */
export function podsByOrdinal(kube: KubeAccess, statefulSet: KubeObject): Map<number, KubeObject> {
  const name = statefulSet.metadata.name ?? '';
  const result = new Map<number, KubeObject>();
  for (const pod of kube.list('v1', 'Pod', statefulSet.metadata.namespace)) {
    if (!controlledBy(pod, statefulSet)) continue;
    const ordinal = Number((pod.metadata.name ?? '').slice(name.length + 1));
    if (Number.isInteger(ordinal)) result.set(ordinal, pod);
  }
  return result;
}

/** A pod of the StatefulSet for `ordinal` at the current template (unready until the caller says). */
export function createPod(
  kube: KubeAccess,
  statefulSet: KubeObject,
  ordinal: number,
  ready: boolean,
): KubeObject {
  const name = `${statefulSet.metadata.name}-${ordinal}`;
  const pod = podFromTemplate(
    templateOf(statefulSet),
    name,
    statefulSet.metadata.namespace ?? 'default',
    {
      [REVISION_LABEL]: updateRevisionOf(statefulSet),
      'statefulset.kubernetes.io/pod-name': name,
      'apps.kubernetes.io/pod-index': String(ordinal),
    },
    statefulSet,
  );
  const created = kube.create(pod);
  return setPodReady(kube, created, ready, ordinal);
}

export function setPodReady(kube: KubeAccess, pod: KubeObject, ready: boolean, ordinal: number): KubeObject {
  const next = clone(pod);
  return kube.patchStatus(next, runningPodStatus(next, ready, ordinal));
}

/**
 * Recomputes the status from the pods, as the StatefulSet controller does after every pod
 * change. currentRevision moves to the update revision only once every pod is updated and ready.
 */
export function writeStatefulSetStatus(kube: KubeAccess, statefulSet: KubeObject): KubeObject {
  const pods = [...podsByOrdinal(kube, statefulSet).values()];
  const replicas = replicasOf(statefulSet);
  const updateRevision = updateRevisionOf(statefulSet);
  const previous = statusOf(statefulSet);
  const ready = pods.filter(isPodReady).length;
  const updated = pods.filter((pod) => pod.metadata.labels?.[REVISION_LABEL] === updateRevision).length;
  const finished = updated === replicas && ready === replicas && pods.length === replicas;
  // Under OnDelete the StatefulSet controller never promotes currentRevision, even when every
  // pod runs the update revision (kubernetes/kubernetes #73492, #106055).
  const onDelete = (specOf(statefulSet).updateStrategy as { type?: string } | undefined)?.type === 'OnDelete';
  const currentRevision =
    typeof previous.currentRevision !== 'string' || (finished && !onDelete)
      ? updateRevision
      : previous.currentRevision;
  const current = pods.filter((pod) => pod.metadata.labels?.[REVISION_LABEL] === currentRevision).length;
  return kube.patchStatus(statefulSet, {
    observedGeneration: statefulSet.metadata.generation,
    replicas: pods.length,
    readyReplicas: ready,
    currentReplicas: current,
    updatedReplicas: updated,
    availableReplicas: ready,
    currentRevision,
    updateRevision,
    collisionCount: 0,
  });
}
