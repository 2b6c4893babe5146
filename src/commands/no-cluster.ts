import { UsageError } from '../errors.js';
import { oneLine } from '../io/safe-text.js';
import type { ClusterReads } from '../kube/reads.js';
import { type KubeTarget, kubectl } from '../planning/equivalent-commands.js';
import type { Snapshot } from '../planning/snapshot.js';
import { compareText } from '../io/text-order.js';

/**
 * No cluster resource where one was asked for (`-n nope`, a `--cluster` that is not there, or
 * several and no `--cluster`): a few lines, as kubectl would say it, instead of a plan of
 * skipped steps. Exit 2 (usage), like `ctl auth` and the connection flags for the same mistake
 * (docs/exit-codes.md): the command line points at the wrong place, nothing in the cluster needs
 * fixing, so no check is to be ignored. Names the clusters found in other namespaces, when the
 * user may list them (a refused cluster-wide list only leaves them out).
 */
export async function noClusterError(reads: ClusterReads, snapshot: Snapshot): Promise<UsageError> {
  const { namespace, clusterCandidates: here, requestedCluster } = snapshot;
  const everywhere = await listEverywhere(reads);
  const found = everywhere.length > 0 ? everywhere : here.map((name) => `${namespace}/${name}`);
  const foundLine = found.length > 0 ? `\n  found: ${found.map(oneLine).join(', ')}` : '';
  if (requestedCluster === undefined && here.length > 1) {
    return new UsageError(`${here.length} cluster resources in namespace ${namespace}${foundLine}`, {
      hint: `Pass --cluster with one of: ${here.join(', ')}.`,
    });
  }
  const what =
    requestedCluster === undefined
      ? `No resources found in ${namespace} namespace: no RedisEnterpriseCluster to upgrade`
      : `redisenterpriseclusters.app.redislabs.com "${requestedCluster}" not found in namespace ${namespace}`;
  return new UsageError(`${what}${foundLine}`, {
    hint: hintFor(found, requestedCluster, snapshot.kubeTarget),
  });
}

function hintFor(found: string[], requested: string | undefined, kube: KubeTarget): string {
  const first = found.find((f) => requested === undefined || f.endsWith(`/${requested}`)) ?? found[0];
  if (!first)
    return `Check the context and namespace: ${kubectl(kube, 'get', 'rec', '-A')} lists the clusters this kubeconfig can see.`;
  const [ns, name] = first.split('/');
  return `Pass -n ${ns} --cluster ${name}${found.length > 1 ? ' (or another of those found)' : ''}.`;
}

async function listEverywhere(reads: ClusterReads): Promise<string[]> {
  const { CLUSTER_RESOURCE } = await import('../kube/reads.js');
  try {
    const objects = await reads.listCustomObjects(CLUSTER_RESOURCE, 'all');
    return objects.map((o) => `${o.metadata?.namespace ?? '?'}/${o.metadata?.name ?? '?'}`).sort(compareText);
  } catch {
    // Not allowed to list across namespaces (or no CRD): the namespace's own list is all there is.
    return [];
  }
}
