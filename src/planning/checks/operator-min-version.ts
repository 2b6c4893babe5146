/**
 * `operator-min-version`: the operator (and the cluster) are new enough to upgrade to the target:
 * reads the operator Deployment's image version and the cluster's RS version against the catalog's
 * minimum for the target. Too old fails with the two-hop fix; an operator not ready warns.
 */

import { clusterTagFor, minimumOperatorFor, RHEL9_TARGETS_FROM } from '../../release/catalog.js';
import { compareOperatorVersions, compareReleases, parseOperatorVersion } from '../../release/versions.js';
import { ctlRunTo, ctlTargetOf, kubectl } from '../equivalent-commands.js';
import { newestReleaseBelow } from '../hops.js';
import { formatRs, type ResolvedUpgrade } from '../resolve.js';
import { type Check, type CheckInput, fail, type Outcome, pass, warn } from './check.js';

function checkOperatorMinVersion({ snapshot, target, resolved }: CheckInput): Outcome {
  const operator = snapshot.operator;
  if (!operator) {
    return fail(
      `no operator Deployment redis-enterprise-operator in namespace ${snapshot.namespace}`,
      `Pass -n NAMESPACE, the operator's; find it with: ${kubectl(snapshot.kubeTarget, 'get', 'deployment', '-A', '-l', 'name=redis-enterprise-operator')}`,
    );
  }
  if (!operator.version) {
    return warn(
      `cannot read the operator version from its image ${operator.image}`,
      'Make sure the operator image has a version tag (redislabs/operator:VERSION).',
    );
  }
  const minimum = minimumOperatorFor(target.operator);
  const current = parseOperatorVersion(operator.version);
  const min = minimum ? parseOperatorVersion(minimum) : undefined;
  if (current && min && compareOperatorVersions(current, min) < 0) {
    const hop = newestReleaseBelow(RHEL9_TARGETS_FROM, minimum ?? '');
    return fail(
      `operator ${operator.version} is older than ${minimum}, the oldest that may upgrade to ${target.operator}`,
      `Upgrade in two hops: first ${ctlRunTo(ctlTargetOf(snapshot), (hop ?? minimum)!)}, then --to ${target.operator}.`,
    );
  }
  const clusterBelow = clusterBelowMinimum(resolved, minimum);
  if (clusterBelow) {
    // The CLUSTER too, not only the operator: "Your Redis Enterprise clusters must be running
    // version 7.4.2-2 or later" (DOCS kubernetes/upgrade/openshift-cli.md; 7-8-2-releases/_index.md).
    const hop = newestReleaseBelow(RHEL9_TARGETS_FROM, minimum ?? '');
    return fail(
      `the cluster runs RS ${clusterBelow}, older than ${minimum}, the oldest cluster version that may upgrade to ${target.operator} (operator ${operator.version})`,
      `Upgrade in two hops: first ${ctlRunTo(ctlTargetOf(snapshot), (hop ?? minimum)!)} (it upgrades the cluster to ${hop ? (clusterTagFor(hop, snapshot.platform) ?? 'its image') : 'a 7.4 image'}), then --to ${target.operator}.`,
    );
  }
  if (operator.readyReplicas < operator.replicas) {
    return warn(
      `operator ${operator.version} is not ready (${operator.readyReplicas}/${operator.replicas})`,
      `Check it: ${kubectl(snapshot.kubeTarget, 'rollout', 'status', `deployment/${operator.deploymentName}`, '-n', operator.namespace)}`,
    );
  }
  return pass(`operator ${operator.version}${minimum ? ` (at least ${minimum} needed)` : ''}`);
}

/** The cluster's RS release (`7.2.4`) when it is older than the minimum operator's release; else undefined. */
function clusterBelowMinimum(resolved: ResolvedUpgrade, minimum: string | undefined): string | undefined {
  const min = minimum ? parseOperatorVersion(minimum) : undefined;
  if (!min || !resolved.currentRs) return undefined;
  return compareReleases(resolved.currentRs, min.release) < 0 ? formatRs(resolved.currentRs) : undefined;
}

export const operatorMinVersionCheck = {
  id: 'operator-min-version',
  run: checkOperatorMinVersion,
} as const satisfies Check;
