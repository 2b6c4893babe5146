/**
 * `upgrade-path`: the RS upgrade from the cluster's version to the target's is a supported path:
 * reads the operator and cluster versions and the catalog's path table. A downgrade, a RHEL7
 * cluster going past its last RHEL7 release, or a path the table refuses fails, with the hop to
 * take.
 */

import { checkUpgradePath, rhel7HopFor } from '../../release/catalog.js';
import { compareOperatorVersions, parseOperatorVersion } from '../../release/versions.js';
import { ctlRunTo, ctlTargetOf } from '../equivalent-commands.js';
import { formatRs } from '../resolve.js';
import { type Check, type CheckInput, fail, failFirm, type Outcome, pass, warn } from './check.js';

function checkUpgradePathOf({ snapshot, target, resolved }: CheckInput): Outcome {
  const current = snapshot.operator?.version ? parseOperatorVersion(snapshot.operator.version) : undefined;
  const wanted = parseOperatorVersion(target.operator);
  if (current && wanted && compareOperatorVersions(current, wanted) > 0) {
    // Firm: ignored, the run would still go down no release (the operator and cluster steps
    // refuse), so no hint offers --ignore-check for it.
    return failFirm(
      `operator ${snapshot.operator?.version} is newer than --to ${target.operator}: downgrades are not supported`,
      `Pass --to ${snapshot.operator?.version} or newer.`,
      'ctl takes no cluster down a release: the operator step keeps a newer operator and the cluster step refuses an older versionTag',
    );
  }
  const rhel7 = rhel7HopFor(target.operator, snapshot.cluster?.image.versionTag);
  if (rhel7) {
    // DOCS kubernetes/7.4.6/upgrade/openshift-cli.md: RHEL7 clusters keep RHEL7 images up to
    // 7.2.4-2 and only then move to RHEL8; 7.2.4-15 notes: RHEL7 images are no longer available.
    return fail(
      `the cluster runs the RHEL7 image ${snapshot.cluster?.image.versionTag ?? ''}; operator ${target.operator} has no RHEL7 image, and RHEL7 clusters move to RHEL8 only from ${rhel7.operator}`,
      `Upgrade in two hops: first ${ctlRunTo(ctlTargetOf(snapshot), rhel7.operator, '--cluster-version', rhel7.clusterTag)}, then --to ${target.operator}.`,
    );
  }
  if (!resolved.targetRs)
    return warn(
      `cannot read an RS version from the target tag ${resolved.clusterTag.target ?? '(none)'}`,
      'Pass --cluster-version IMAGE_TAG.',
    );
  if (!resolved.currentRs)
    return warn(
      'cannot tell which RS version the cluster runs',
      'Make the management API reachable (api-reachable) or set the image versionTag.',
    );
  const path = checkUpgradePath(resolved.currentRs, resolved.targetRs);
  const route = `RS ${formatRs(resolved.currentRs)} -> ${formatRs(resolved.targetRs)}`;
  if (path.supported) return pass(`${route} is a supported upgrade path`);
  const fix = path.via
    ? `Upgrade in two hops: first ${ctlRunTo(ctlTargetOf(snapshot), path.via)}, then --to ${target.operator}.`
    : 'Pick a target the current version may upgrade to (redis.io: supported upgrade paths).';
  if (!path.known) return warn(`${route}: ${path.reason ?? 'not in the documented table'}`, fix);
  return fail(`${route}: ${path.reason ?? 'not supported'}`, fix);
}

export const upgradePathCheck = {
  id: 'upgrade-path',
  needsCluster: true,
  run: checkUpgradePathOf,
} as const satisfies Check;
