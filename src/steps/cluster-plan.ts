/**
 * The cluster step's plan, pure, from the snapshot and the target (the run half re-reads live
 * state): the merge patch of the cluster resource's versionTag (with the pinned image specs and
 * --user-defined-modules), or why there is none.
 */

import { dialectFields } from '../release/dialect.js';
import { kubectlMergePatch, mergeBodies } from '../planning/equivalent-commands.js';
import { buildClusterPatch, digestPinnedSpecs } from '../planning/cluster-patch.js';
import { olmDigestGap, plannedOlmDigests } from '../planning/olm.js';
import type { ClusterSnapshot } from '../planning/snapshot.js';
import { type PlanContext, type StepPlan, action, operatorNamespace } from '../planning/plan.js';
import { compareImageTags, parseImageTag } from '../release/versions.js';
import { modulesToSet, userDefinedModulesBody } from './cluster-user-defined-modules.js';

export function planCluster({ snapshot, target, resolved }: PlanContext, cluster: ClusterSnapshot): StepPlan {
  const tag = resolved.clusterTag.target;
  if (!tag) return { skip: 'no target cluster version: pass --cluster-version' };
  if (cluster.image.versionTag === tag) {
    // --user-defined-modules on a cluster at the tag: the run half sets the list alone (upgradeCluster),
    // so the plan says so, and the run is not taken for one with nothing to do.
    const listed = modulesToSet(target.operator, target.userDefinedModules);
    const listBody = cluster.autoUpgrade
      ? undefined
      : userDefinedModulesBody(cluster.userDefinedModuleEntries, listed);
    if (!listBody) return { skip: `the cluster already runs ${tag}` };
    return {
      actions: [
        action(
          `List ${listed.map((m) => m.name).join(', ')} in spec.userDefinedModules (versionTag is already ${tag})`,
          kubectlMergePatch(snapshot.kubeTarget, 'rec', cluster.name, cluster.namespace, listBody),
        ),
      ],
    };
  }
  const current = cluster.image.versionTag ? parseImageTag(cluster.image.versionTag) : undefined;
  const wanted = parseImageTag(tag);
  if (current && wanted && compareImageTags(current, wanted) > 0) {
    return { skip: `the cluster runs ${cluster.image.versionTag}, newer than ${tag}` };
  }
  if (cluster.autoUpgrade) return { skip: 'auto-upgrade is on: the operator upgrades the cluster' };
  const fields = dialectFields(snapshot.dialect);
  const olmDigests =
    resolved.method === 'olm' && snapshot.olm
      ? plannedOlmDigests(snapshot.olm, target.operator, {
          kube: snapshot.kubeTarget,
          namespace: operatorNamespace(snapshot),
          platform: snapshot.platform,
          currentTag: snapshot.cluster?.image.versionTag,
        })
      : undefined;
  const patch = buildClusterPatch(
    snapshot.kubeTarget,
    cluster,
    snapshot.dialect,
    tag,
    target.operator,
    olmDigests?.digestOf,
  );
  if (patch.kind === 'refuse') {
    // As the run stops (src/steps/cluster.ts), with its reason when the plan already knows it.
    const gap = olmDigests ? ` (${olmDigestGap(olmDigests, tag, patch.pinned)})` : '';
    return { skip: `refused (auto-upgrade-digest): ${patch.message}${gap}` };
  }
  // Image specs pinned in the spec (rigger, bootstrapper, call-home client) carry the operator's version.
  const pinned = patch.moves.slice(1);
  const modules = modulesToSet(target.operator, target.userDefinedModules);
  const modulesBody = userDefinedModulesBody(cluster.userDefinedModuleEntries, modules);
  const body = modulesBody ? mergeBodies(patch.body, modulesBody) : patch.body;
  const also =
    (pinned.length > 0 ? ` and ${pinned.map((move) => move.field).join(', ')} to ${target.operator}` : '') +
    (modulesBody ? `; list ${modules.map((m) => m.name).join(', ')} in spec.userDefinedModules` : '');
  const digests =
    olmDigests && digestPinnedSpecs(cluster, snapshot.dialect).length > 0
      ? `, each digestHash to the digest the target CSV relates (read from ${olmDigests.csv} after the operator step)`
      : '';
  // The digests' variables are set first on the same line (`NAME=$(kubectl get csv ...) && ...`).
  const patchCommand = [
    ...(olmDigests?.assignments ?? []),
    kubectlMergePatch(snapshot.kubeTarget, 'rec', cluster.name, cluster.namespace, body),
  ].join(' && ');
  return {
    actions: [
      action(
        `Set ${fields.imageSpecPath.slice(1).join('.')}.versionTag from ${cluster.image.versionTag ?? '(default)'} to ${tag}${also}${digests}`,
        patchCommand,
      ),
    ],
  };
}
