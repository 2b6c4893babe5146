/**
 * `cluster-found`: the cluster resource ctl will upgrade exists, and is one: reads the namespace's
 * RedisEnterpriseClusters (and --cluster). Fails when there is none, or several and no --cluster;
 * the fix names the flag or how to find the namespace. Never to be ignored: without a cluster
 * there is nothing to upgrade.
 */

import { kubectl } from '../equivalent-commands.js';
import { type Check, type CheckInput, failFirm, type Outcome, pass } from './check.js';

/** Why --ignore-check cannot get past it. */
const NOTHING_TO_UPGRADE = 'without the one cluster resource there is nothing to upgrade';

function checkClusterFound({ snapshot }: CheckInput): Outcome {
  const { namespace, clusterCandidates: found, requestedCluster } = snapshot;
  if (snapshot.cluster) {
    return pass(
      `cluster resource ${snapshot.cluster.name} in namespace ${namespace} (${snapshot.dialect} dialect, ${snapshot.platform})`,
    );
  }
  if (requestedCluster !== undefined) {
    return failFirm(
      `no cluster resource named ${requestedCluster} in namespace ${namespace}` +
        (found.length > 0 ? `; found: ${found.join(', ')}` : ''),
      found.length > 0
        ? `Pass --cluster ${found[0]}.`
        : `Find it with: ${kubectl(snapshot.kubeTarget, 'get', 'rec', '-A')}, then pass -n NAMESPACE.`,
      NOTHING_TO_UPGRADE,
    );
  }
  if (found.length === 0) {
    return failFirm(
      `no RedisEnterpriseCluster in namespace ${namespace}`,
      `Find it with: ${kubectl(snapshot.kubeTarget, 'get', 'rec', '-A')}, then pass -n NAMESPACE.`,
      NOTHING_TO_UPGRADE,
    );
  }
  return failFirm(
    `${found.length} cluster resources in namespace ${namespace}: ${found.join(', ')}`,
    `Pass --cluster NAME, e.g. --cluster ${found[0]}.`,
    NOTHING_TO_UPGRADE,
  );
}

export const clusterFoundCheck = {
  id: 'cluster-found',
  run: checkClusterFound,
} as const satisfies Check;
