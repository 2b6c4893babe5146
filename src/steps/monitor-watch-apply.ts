/**
 * How the monitor keeps its copy of the objects it watches up to date from a watch's events: a
 * SYNC (the list the watch starts and restarts from) replaces the copy, ADDED/MODIFIED put the
 * object, DELETED drops it. The watch itself (reconnects, resourceVersion) is ../kube/watch.ts.
 */

import type { KubeObject } from '../kube/reads.js';
import type { CollectionEvent } from '../kube/watch.js';

/** One named object (the cluster resource, its StatefulSet): undefined while it does not exist. */
export function applyOne(
  current: KubeObject | undefined,
  event: CollectionEvent<KubeObject>,
  name: string,
): KubeObject | undefined {
  if (event.type === 'SYNC') return event.objects.find((o) => o.metadata?.name === name);
  if (event.object.metadata?.name !== name) return current;
  return event.type === 'DELETED' ? undefined : event.object;
}

/** Many objects (the pods), by uid (by name when an object has none). */
export function applyMany<T extends { metadata?: { name?: string; uid?: string } }>(
  map: Map<string, T>,
  event: CollectionEvent<KubeObject>,
): void {
  const keyOf = (o: T): string => o.metadata?.uid ?? o.metadata?.name ?? '';
  if (event.type === 'SYNC') {
    map.clear();
    for (const object of event.objects as unknown as T[]) map.set(keyOf(object), object);
    return;
  }
  const object = event.object as unknown as T;
  if (event.type === 'DELETED') map.delete(keyOf(object));
  else map.set(keyOf(object), object);
}
