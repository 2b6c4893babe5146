/**
 * `auto-upgrade-digest`: the operator will accept the image change: reads auto-upgrade, the upgrade
 * policy and the digestHash of the four image specs (and, under OLM, the target CSV's
 * relatedImages). Auto-upgrade with a digest fails (InvalidUpgrade); a cluster patch the target
 * cannot build fails.
 */

import { dialectFields } from '../../release/dialect.js';
import { buildClusterPatch, digestPinnedSpecs } from '../cluster-patch.js';
import { kubectlMergePatch, mergeBodies, patchAt } from '../equivalent-commands.js';
import { olmDigestGap, olmRoute, plannedOlmDigests } from '../olm.js';
import { type Check, type CheckInput, clusterOf, fail, type Outcome, pass, warn } from './check.js';

function checkAutoUpgradeDigest(input: CheckInput): Outcome {
  const rec = clusterOf(input);
  const fields = dialectFields(input.snapshot.dialect);
  const autoField = fields.autoUpgradePath.join('.');
  // A digestHash in ANY of the four image specs invalidates the spec with auto-upgrade on
  // (DOCS kubernetes/upgrade/upgrade-redis-cluster.md; redis-facts.md §12).
  const digests = digestPinnedSpecs(rec, input.snapshot.dialect);
  if (rec.autoUpgrade && digests.length > 0) {
    const names = digests.map((d) => `${d.field}.digestHash`).join(', ');
    const remove = mergeBodies(...digests.map((d) => patchAt([...d.path, 'digestHash'], null)));
    return fail(
      `${autoField} is true and ${names} ${digests.length === 1 ? 'is' : 'are'} set: the operator refuses the upgrade (InvalidUpgrade)`,
      `Turn auto-upgrade off: ${kubectlMergePatch(input.snapshot.kubeTarget, 'rec', rec.name, rec.namespace, patchAt(fields.autoUpgradePath, false))} — or remove the digest${digests.length === 1 ? '' : 's'}: ${kubectlMergePatch(input.snapshot.kubeTarget, 'rec', rec.name, rec.namespace, remove)}`,
    );
  }
  const tag = input.resolved.clusterTag.target;
  if (!rec.autoUpgrade && tag && rec.image.versionTag !== tag) {
    // Under OLM the target CSV's relatedImages name the target images by digest: the cluster
    // step reads them once OLM has installed it (and stops with the fix if one is missing).
    const olm = input.resolved.method === 'olm' ? input.snapshot.olm : undefined;
    const planned = olm
      ? plannedOlmDigests(olm, input.target.operator, {
          kube: input.snapshot.kubeTarget,
          namespace: input.snapshot.operator?.namespace ?? input.snapshot.namespace,
          platform: input.snapshot.platform,
          currentTag: rec.image.versionTag,
        })
      : undefined;
    const digests = planned?.digestOf;
    const patch = buildClusterPatch(
      input.snapshot.kubeTarget,
      rec,
      input.snapshot.dialect,
      tag,
      input.target.operator,
      digests,
    );
    if (patch.kind === 'refuse') {
      // Under OLM the run stops with this reason (src/steps/cluster.ts): the plan says it first.
      const gap = planned ? ` (${olmDigestGap(planned, tag, patch.pinned)})` : '';
      return fail(`${patch.message}${gap}`, patch.fix);
    }
    const pinned = digestPinnedSpecs(rec, input.snapshot.dialect);
    if (digests && pinned.length > 0) {
      return pass(
        `${pinned.map((d) => `${d.field}.digestHash`).join(', ')} will follow the target: the digest comes from the spec.relatedImages of ${olmRoute(olm ?? { csv: '', installPlans: [] }, input.target.operator).targetCsv}`,
      );
    }
  }
  if (rec.autoUpgrade && rec.upgradePolicy) {
    return warn(
      `auto-upgrade with ${fields.upgradePolicyPath.join('.')}=${rec.upgradePolicy} can upgrade databases unexpectedly`,
      `Consider turning auto-upgrade off: ${kubectlMergePatch(input.snapshot.kubeTarget, 'rec', rec.name, rec.namespace, patchAt(fields.autoUpgradePath, false))}`,
    );
  }
  return pass(rec.autoUpgrade ? 'auto-upgrade on, no digest hash' : 'auto-upgrade off');
}

export const autoUpgradeDigestCheck = {
  id: 'auto-upgrade-digest',
  needsCluster: true,
  run: checkAutoUpgradeDigest,
} as const satisfies Check;
