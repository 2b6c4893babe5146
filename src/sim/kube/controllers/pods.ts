import { createHash } from 'node:crypto';
import { nowTimestamp } from '../store.js';
import { clone, isRecord, type KubeObject } from '../types.js';

const HASH_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** A short, stable, DNS-safe hash of a pod template, like pod-template-hash / controller-revision-hash. */
export function templateHash(template: unknown, length = 10): string {
  const digest = createHash('sha256')
    .update(JSON.stringify(template ?? {}))
    .digest();
  let hash = '';
  for (let i = 0; i < length; i++) hash += HASH_ALPHABET[digest[i]! % HASH_ALPHABET.length];
  return hash;
}

export function containersOf(template: unknown): Record<string, unknown>[] {
  if (!isRecord(template) || !isRecord(template.spec) || !Array.isArray(template.spec.containers)) return [];
  return template.spec.containers.filter(isRecord);
}

/** The status of a pod that the simulated kubelet runs; `ready` decides the Ready condition. */
export function runningPodStatus(pod: KubeObject, ready: boolean, podIndex: number): Record<string, unknown> {
  const now = nowTimestamp();
  const previous = isRecord(pod.status) ? pod.status : {};
  const started = typeof previous.startTime === 'string' ? previous.startTime : now;
  const readyText = ready ? 'True' : 'False';
  const condition = (type: string, status: string) => ({
    type,
    status,
    lastProbeTime: null,
    lastTransitionTime: started,
  });
  return {
    phase: 'Running',
    conditions: [
      condition('PodReadyToStartContainers', 'True'),
      condition('Initialized', 'True'),
      condition('Ready', readyText),
      condition('ContainersReady', readyText),
      condition('PodScheduled', 'True'),
    ],
    hostIP: '10.0.0.1',
    podIP: `10.244.0.${(podIndex % 250) + 2}`,
    podIPs: [{ ip: `10.244.0.${(podIndex % 250) + 2}` }],
    startTime: started,
    qosClass: 'Burstable',
    containerStatuses: containersOf({ spec: pod.spec }).map((c) => ({
      name: c.name,
      image: c.image,
      imageID: `${String(c.image)}@sha256:${createHash('sha256').update(String(c.image)).digest('hex')}`,
      ready,
      started: true,
      restartCount: 0,
      state: { running: { startedAt: started } },
    })),
  };
}

export function podFromTemplate(
  template: unknown,
  name: string,
  namespace: string,
  extraLabels: Record<string, string>,
  owner: KubeObject,
): KubeObject {
  const t = isRecord(template) ? clone(template) : {};
  const meta = isRecord(t.metadata) ? t.metadata : {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      labels: { ...(isRecord(meta.labels) ? (meta.labels as Record<string, string>) : {}), ...extraLabels },
      annotations: isRecord(meta.annotations) ? (meta.annotations as Record<string, string>) : undefined,
      ownerReferences: [ownerReference(owner)],
    },
    spec: isRecord(t.spec) ? t.spec : {},
  };
}

export function ownerReference(owner: KubeObject): {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller: boolean;
  blockOwnerDeletion: boolean;
} {
  return {
    apiVersion: owner.apiVersion ?? '',
    kind: owner.kind ?? '',
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

export function controlledBy(object: KubeObject, owner: KubeObject): boolean {
  return (object.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === owner.metadata.uid);
}

export function isPodReady(pod: KubeObject): boolean {
  const status = isRecord(pod.status) ? pod.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isRecord) : [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}
