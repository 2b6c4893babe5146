/**
 * Whether a pod is ready: its condition of type `Ready` has status `True`. A pod's status carries
 * an array of conditions whose status is "True", "False" or "Unknown" (kubernetes.io, "Pod
 * Conditions"); `Ready` is the last of the lifecycle conditions the kubelet sets, the one
 * `kubectl wait --for=condition=Ready` waits for. Untyped on purpose: ctl reads pods as plain
 * objects, and a pod without a status, or without a list of conditions, is not ready.
 */
export function isPodReady(pod: unknown): boolean {
  const status = field(pod, 'status');
  const conditions = field(status, 'conditions');
  return (
    Array.isArray(conditions) &&
    conditions.some(
      (condition) => field(condition, 'type') === 'Ready' && field(condition, 'status') === 'True',
    )
  );
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}
