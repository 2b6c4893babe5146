/**
 * Step `cluster`: start the cluster's rolling upgrade by setting the image spec's `versionTag`
 * of the cluster resource (`kubectl edit rec`, redis-facts.md §3), as a merge patch that sets
 * only `versionTag` (repository and imagePullPolicy stay). Image specs pinned in the spec
 * (rigger, bootstrapper, call-home client) carry the operator's version and follow it in the
 * same patch. The plan and the run build that patch with one function
 * (src/planning/cluster-patch.ts), which refuses a digest-pinned image whose target digest ctl
 * does not know, instead of writing a new tag next to an old digest.
 *
 * With auto-upgrade on, the operator upgrades the cluster itself once it runs the new version:
 * ctl changes nothing, and waits until the operator has started (or already did) the upgrade,
 * seen on the cluster resource (state Upgrade) or on the pods' image: nothing documents that the
 * operator writes versionTag into the spec (redis-facts.md §12).
 *
 * Idempotent: the patch is made only when the live tag differs, so a resumed run never patches
 * a cluster that is already upgrading to the target (state `Upgrade`). Following the rolling
 * upgrade to its end is the `monitor` step's work.
 *
 * Split by what each part decides:
 * - this module: the step (its permissions, its run: the versionTag patch and its read-back);
 * - ./cluster-auto-upgrade.ts: the wait for the operator's own upgrade under auto-upgrade;
 * - ./cluster-user-defined-modules.ts: --user-defined-modules, set in the same patch;
 * - ./cluster-plan.ts: the step's plan.
 */

import { dialectFields } from '../release/dialect.js';
import { OperationError } from '../errors.js';
import { waitForObject } from '../kube/watch.js';
import { describeRef, readObject } from '../kube/write.js';
import { ctlTargetOf, kubectl, mergeBodies } from '../planning/equivalent-commands.js';
import { buildClusterPatch, digestPinnedSpecs, type ImageMove } from '../planning/cluster-patch.js';
import { installedOlmDigests, type OlmDigestSource } from './olm-digests.js';
import { olmDigestGap, type OlmSnapshot } from '../planning/olm.js';
import { type ClusterSnapshot, type Snapshot, toCluster } from '../planning/snapshot.js';
import type { UpgradeDeps, UpgradeStep } from './deps.js';
import type { StepContext, StepResult } from '../run/step.js';
import { compareImageTags, parseImageTag } from '../release/versions.js';
import { REDIS_API_GROUP, READ_VERBS, type StepPermission } from '../planning/permissions.js';
import { operatorStepInstallsClusterCrd } from '../planning/user-defined-modules-field.js';
import { followAutoUpgrade } from './cluster-auto-upgrade.js';
import { planCluster } from './cluster-plan.js';
import {
  assertCrdKeepsModules,
  modulesToSet,
  userDefinedModulesBody,
  verifyModules,
} from './cluster-user-defined-modules.js';

/** The Kubernetes permissions this step needs; the plan's `permissions` check reviews them. */
const PERMISSIONS: readonly StepPermission[] = [
  {
    group: REDIS_API_GROUP,
    resource: 'redisenterpriseclusters',
    verbs: [...READ_VERBS, 'patch'],
    scope: 'namespace',
    when: 'always',
    why: 'read the cluster resource and set its image tag',
  },
  {
    group: 'apps',
    resource: 'statefulsets',
    verbs: READ_VERBS,
    scope: 'namespace',
    when: 'always',
    why: "see that the operator has started an automatic upgrade (the pods' image moves)",
  },
  {
    group: 'apiextensions.k8s.io',
    resource: 'customresourcedefinitions',
    verbs: ['get'],
    scope: 'cluster',
    when: 'user-defined-modules',
    why: "read the cluster resource's CRD: spec.userDefinedModules is kept only where it is declared (--user-defined-modules)",
  },
];

export interface ClusterStepOptions {
  wait?: typeof waitForObject;
}

export function createClusterStep(options: ClusterStepOptions = {}): UpgradeStep<'cluster'> {
  const wait = options.wait ?? waitForObject;
  return {
    id: 'cluster',
    title: 'Upgrade the cluster',
    permissions: PERMISSIONS,
    plan: planCluster,
    run: (ctx) => upgradeCluster(ctx, wait),
  };
}

export const clusterStep = createClusterStep();

const CLUSTER_KIND = 'RedisEnterpriseCluster';

async function upgradeCluster(
  ctx: StepContext<UpgradeDeps>,
  wait: typeof waitForObject,
): Promise<StepResult> {
  const { deps } = ctx;
  const { snapshot, plan, kube, kubeWriter } = deps;
  const tag = plan.target.clusterVersion;
  if (!tag) return { skipped: 'no target cluster version: pass --cluster-version' };
  const known = snapshot.cluster;
  if (!known) throw new OperationError('no cluster resource was found', { hint: 'Pass --cluster NAME.' });
  const ref = {
    apiVersion: known.apiVersion,
    kind: CLUSTER_KIND,
    name: known.name,
    namespace: known.namespace,
  };
  const fields = dialectFields(snapshot.dialect);

  const object = await readObject(kube, ref);
  if (!object) {
    throw new OperationError(`the cluster resource ${known.name} no longer exists in ${known.namespace}`, {
      hint: `Check ${kubectl(snapshot.kubeTarget, 'get', 'rec', '-n', known.namespace)}; nothing was changed.`,
    });
  }
  const live = toCluster(object, snapshot.dialect, known.namespace);
  const liveTag = live.image.versionTag;
  const tagField = [...fields.imageSpecPath.slice(1), 'versionTag'].join('.');

  if (live.autoUpgrade) return followAutoUpgrade(ctx, wait, live, tag);

  // --user-defined-modules: set with the tag, in the same patch (src/planning/user-defined-modules.ts).
  const modules = modulesToSet(plan.target.operator, plan.target.selection?.userDefinedModules);
  const liveModules = (object.spec as Record<string, unknown> | undefined)?.userDefinedModules;
  const modulesBody = userDefinedModulesBody(liveModules, modules);
  const setNames = modules.map((m) => m.name);
  const moduleNames = setNames.join(', ');

  // Before any write: the list is kept only where the CRD live now declares it (the plan's check
  // modules-compatible says so too; this holds where preflight did not run: --only, --skip). A
  // dry run refuses the same way, as the run would, where the CRD live now is the one the run
  // writes through; where this run's operator step installs the target's CRD first, the dry run
  // did not, and the CRD it would replace says nothing of the run.
  if (modulesBody && (!ctx.dryRun || !operatorStepInstallsClusterCrd(deps.target, deps.resolved)))
    await assertCrdKeepsModules(kube, ref, moduleNames);

  if (liveTag === tag && modulesBody) {
    // The tag is already there (set by hand, or by a run that stopped before this one did the
    // modules): the modules alone, so a resumed run ends with both.
    await ctx.recordIntent({ to: tag, patch: modulesBody, fromGeneration: live.generation ?? null });
    ctx.progress(
      `setting spec.userDefinedModules (${moduleNames}) of ${describeRef(ref)} (${tagField} is already ${tag})`,
    );
    await kubeWriter.mergePatch(ref, modulesBody);
    if (ctx.dryRun) return { outcome: { dryRun: true, versionTag: tag, userDefinedModules: setNames } };
    await verifyModules(kube, ref, modules, snapshot.kubeTarget);
    return {
      outcome: { versionTag: tag, previous: liveTag, userDefinedModules: setNames },
    };
  }

  if (liveTag === tag) {
    const pinned = pinnedImages(live).filter(([, image]) => image.versionTag !== plan.target.operator);
    if (pinned.length > 0) {
      ctx.warn(
        `${pinned.map(([field]) => field).join(', ')} still pin${pinned.length === 1 ? 's' : ''} another version than operator ${plan.target.operator}`,
      );
    }
    return {
      skipped:
        live.state === 'Upgrade'
          ? `${tagField} is already ${tag}: the upgrade is in progress`
          : `${tagField} is already ${tag}`,
    };
  }
  // Never a downgrade, whatever the plan's checks said: with `--ignore-check upgrade-path` (which a
  // blocked plan's hint offers) a run to an older release set the older tag here, although the
  // plan half skips a newer cluster (planCluster) and the operator step skips a newer operator.
  const running = liveTag ? parseImageTag(liveTag) : undefined;
  const wanted = parseImageTag(tag);
  if (running && wanted && compareImageTags(running, wanted) > 0) {
    throw new OperationError(
      `not downgrading ${describeRef(ref)}: it runs ${liveTag}, newer than ${tag}; Redis Enterprise documents upgrades only`,
      {
        hint: `Nothing was changed in the cluster resource. Pass a --to whose cluster version is ${liveTag} or newer.`,
      },
    );
  }
  if (live.state === 'Upgrade') {
    throw new OperationError(`the cluster is already upgrading (to ${liveTag ?? 'the operator default'})`, {
      hint: `The operator starts no new upgrade during one. Wait until ${kubectl(snapshot.kubeTarget, 'get', 'rec', live.name, '-n', live.namespace)} shows Running, then run ctl again.`,
    });
  }
  // Under OLM a pinned digest follows the target CSV's relatedImages (olm-digests.ts).
  const olmDigests =
    deps.resolved.method === 'olm' && snapshot.olm && digestPinnedSpecs(live, snapshot.dialect).length > 0
      ? await installedOlmDigests(kube, {
          ...olmDigestSource(snapshot, plan.target.operator, snapshot.olm),
          onTheWayTo: deps.target.onTheWayTo,
        })
      : undefined;
  const patch = buildClusterPatch(
    snapshot.kubeTarget,
    live,
    snapshot.dialect,
    tag,
    plan.target.operator,
    olmDigests?.digestOf,
  );
  if (patch.kind === 'refuse') {
    // Before any change: never a new tag next to an old digest (src/planning/cluster-patch.ts).
    const from = olmDigests ? ` (${olmDigestGap(olmDigests, tag, patch.pinned)})` : '';
    throw new OperationError(`not upgrading ${describeRef(ref)}: ${patch.message}${from}`, {
      hint: patch.fix,
    });
  }
  if (olmDigests) warnOtherRepositoryDigests(ctx, live, patch.moves, olmDigests);
  const pinned = patch.moves.slice(1);
  const body = modulesBody ? mergeBodies(patch.body, modulesBody) : patch.body;
  await ctx.recordIntent({
    from: liveTag ?? null,
    to: tag,
    patch: body,
    fromGeneration: live.generation ?? null,
  });
  const withModules = modulesBody ? ` and spec.userDefinedModules (${moduleNames})` : '';
  ctx.progress(
    `setting ${tagField} of ${describeRef(ref)} from ${liveTag ?? '(default)'} to ${tag}${withModules}`,
  );
  await kubeWriter.mergePatch(ref, body);
  const setModules = modulesBody ? { userDefinedModules: setNames } : {};
  // Nothing was patched in dry-run, so there is nothing to verify or wait for.
  if (ctx.dryRun)
    return { outcome: { dryRun: true, versionTag: tag, previous: liveTag ?? null, ...setModules } };

  const after = await readObject(kube, ref);
  const afterTag = after ? toCluster(after, snapshot.dialect, known.namespace).image.versionTag : undefined;
  if (afterTag !== tag) {
    throw new OperationError(
      `${tagField} of ${describeRef(ref)} is ${afterTag ?? '(unset)'} after setting it to ${tag}`,
      {
        hint: `Something else (a GitOps tool, an admission policy) may be rewriting the cluster resource. Check its managed fields (${kubectl(snapshot.kubeTarget, 'get', 'rec', known.name, '-n', known.namespace, '-o', 'yaml', '--show-managed-fields')}), then run ctl again.`,
      },
    );
  }
  if (modulesBody) await verifyModules(kube, ref, modules, snapshot.kubeTarget);
  return {
    outcome: {
      versionTag: tag,
      previous: liveTag ?? null,
      pinnedImages: pinned.map((move) => move.field),
      generation: after?.metadata?.generation ?? null,
      ...setModules,
    },
  };
}

/**
 * A digest taken from the CSV's entry of another repository than the image spec names (the
 * relatedImages name decides, olm.ts relatedImageLookup: a mirror keeps the digests of what it
 * mirrors). The nodes pull `<spec repository>@<digest>`: a repository that is no mirror of the
 * CSV's (Docker Hub's builds beside Red Hat's certified ones) has no such manifest, and the new
 * pods wait in ImagePullBackOff (the monitor names them). Said before the patch, once per image.
 */
function warnOtherRepositoryDigests(
  ctx: StepContext<UpgradeDeps>,
  cluster: ClusterSnapshot,
  moves: readonly ImageMove[],
  digests: Awaited<ReturnType<typeof installedOlmDigests>>,
): void {
  for (const move of moves) {
    if (move.digestHash === undefined) continue;
    const node = move.node === true;
    const repository = node ? cluster.image.repository : cluster.otherImages[move.field]?.repository;
    const source = digests.repositoryOf(repository, move.to, { field: move.field, node });
    if (repository === undefined || source === undefined || source === repository) continue;
    ctx.warn(
      `${move.field}.digestHash gets the digest of ${source}:${move.to} (${digests.csv} spec.relatedImages), but ${move.field}.repository is ${repository}: ` +
        `the nodes will pull ${repository}@<that digest>, which exists only if ${repository} mirrors ${source}; if not, the new pods stay in ImagePullBackOff`,
    );
  }
}

function pinnedImages(cluster: ClusterSnapshot): [string, ClusterSnapshot['image']][] {
  return Object.entries(cluster.otherImages).filter(([, image]) => image.versionTag !== undefined);
}

function olmDigestSource(snapshot: Snapshot, operatorTarget: string, olm: OlmSnapshot): OlmDigestSource {
  return {
    olm,
    namespace: snapshot.operator?.namespace ?? snapshot.namespace,
    operatorTarget,
    platform: snapshot.platform,
    currentTag: snapshot.cluster?.image.versionTag,
    ctlTarget: ctlTargetOf(snapshot),
  };
}
