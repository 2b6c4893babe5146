/**
 * How the snapshot reads (./snapshot.ts): reads that fail without ending it, the one read that
 * ends it (the cluster resources), and lists across the watched namespaces in a bounded number
 * of requests.
 */

import { AuthError, CtlError, OperationError } from '../errors.js';
import { describeKubeError, isForbidden } from '../kube/errors.js';
import {
  CLUSTER_RESOURCE,
  type ClusterReads,
  type CustomResourceType,
  type KubeObject,
} from '../kube/reads.js';
import { MAX_NAMESPACED_LISTS, READ_CONCURRENCY } from './snapshot-model.js';
import { DEFAULT_KUBE_TARGET, kubectlCommand } from '../kube/kube-target.js';

/** Reads that failed without stopping the snapshot, e.g. `list namespaces: forbidden`. */
export class ErrorLog {
  readonly messages: string[] = [];

  /** Awaits a read; on failure records `what: message` and returns the fallback. */
  async guard<T, F>(what: string, read: Promise<T>, fallback: F): Promise<T | F> {
    try {
      return await read;
    } catch (error) {
      this.messages.push(`${what}: ${describeKubeError(error).message}`);
      return fallback;
    }
  }
}

/** The cluster resources of the namespace: the one read whose failure ends the snapshot. */
export async function readClusterResources(kube: ClusterReads, namespace: string): Promise<KubeObject[]> {
  try {
    return await kube.listCustomObjects(CLUSTER_RESOURCE, namespace);
  } catch (error) {
    const info = describeKubeError(error);
    if (info.code === 401) {
      throw new AuthError(`the Kubernetes API refused the credentials: ${info.message}`, {
        hint: 'Refresh the kubeconfig credentials (log in again), or pass --kubeconfig/--context.',
        cause: error,
      });
    }
    if (info.code === 404) {
      // The CRD is not installed: no operator here. The cluster-found check explains it.
      return [];
    }
    if (info.code === 403) {
      // CLI.md: 401 and 403 are exit 4, authentication or authorization.
      throw new AuthError(
        `not allowed to list the cluster resources in namespace ${namespace}: ${info.message}`,
        {
          hint: `Ask for read access: ${kubectlCommand(kube.selection ?? DEFAULT_KUBE_TARGET, 'auth', 'can-i', 'list', 'redisenterpriseclusters.app.redislabs.com', '-n', namespace)}`,
          cause: error,
        },
      );
    }
    // A failure that says what to do itself (a credential plugin's, a deadline's) keeps its hint.
    const own = error instanceof CtlError ? error.hint : undefined;
    throw new OperationError(`cannot list the cluster resources in namespace ${namespace}: ${info.message}`, {
      hint:
        own ??
        `Check that the Kubernetes API is reachable: ${kubectlCommand(kube.selection ?? DEFAULT_KUBE_TARGET, 'get', 'rec', '-n', namespace)}.`,
      cause: error,
    });
  }
}

export function pickCluster(clusters: KubeObject[], requested: string | undefined): KubeObject | undefined {
  if (requested !== undefined) return clusters.find((c) => c.metadata?.name === requested);
  return clusters.length === 1 ? clusters[0] : undefined;
}

/**
 * Lists a database kind in every watched namespace. A few namespaces: one list each. Many: one
 * cluster-wide list filtered here, unless that is forbidden, then one list each after all.
 * Either way the count depends on namespaces, never on databases.
 */
export async function listAcrossNamespaces(
  kube: ClusterReads,
  type: CustomResourceType,
  namespaces: string[],
  errors: ErrorLog,
): Promise<KubeObject[]> {
  if (namespaces.length > MAX_NAMESPACED_LISTS) {
    try {
      const wanted = new Set(namespaces);
      const all = await kube.listCustomObjects(type, 'all');
      return all.filter((o) => wanted.has(o.metadata?.namespace ?? ''));
    } catch (error) {
      if (!isForbidden(error)) {
        errors.messages.push(`list ${type.plural} in all namespaces: ${describeKubeError(error).message}`);
        return [];
      }
    }
  }
  const lists = await mapWithLimit(namespaces, READ_CONCURRENCY, (ns) =>
    errors.guard(`list ${type.plural} -n ${ns}`, kube.listCustomObjects(type, ns), [] as KubeObject[]),
  );
  return lists.flat();
}

/** `fn` over `items`, at most `limit` at a time, the answers in the order of the items. */
export async function mapWithLimit<T, R>(
  items: T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
