/**
 * Step `cluster`: start the cluster's rolling upgrade by setting the image spec's `versionTag`
 * of the cluster resource (`kubectl edit rec`, redis-facts.md §3), as a merge patch that sets
 * only `versionTag` (repository and imagePullPolicy stay). Image specs pinned in the spec
 * (rigger, bootstrapper, call-home client) carry the operator's version and follow it in the
 * same patch. The plan and the run build that patch with one function
 * (src/planning/cluster-patch.ts), which refuses a digest-pinned image whose target digest ctl
 * does not know, instead of writing a new tag next to an old digest.
 *
 * With auto-upgrade on, the operator changes the tag itself once it runs the new version: ctl
 * changes nothing, and waits until the operator has started (or already did) the upgrade.
 *
 * Idempotent: the patch is made only when the live tag differs, so a resumed run never patches
 * a cluster that is already upgrading to the target (state `Upgrade`). Following the rolling
 * upgrade to its end is the `monitor` step's work.
 */

import { dialectFields } from '../release/dialect.js';
import { OperationError } from '../errors.js';
import type { KubeObject } from '../kube/reads.js';
import { CLUSTER_RESOURCE } from '../kube/reads.js';
import { waitForObject } from '../kube/watch.js';
import { describeRef, mergePatch, readObject } from '../kube/write.js';
import { kubectlMergePatch } from '../planning/equivalent-commands.js';
import { buildClusterPatch } from '../planning/cluster-patch.js';
import { type ClusterSnapshot, toCluster } from '../planning/snapshot.js';
import { UpgradeDeps, UpgradeStep } from './deps.js';
import type { StepContext, StepResult } from '../run/step.js';
import { type PlanContext, type StepPlan, action } from '../planning/plan.js';
import { compareImageTags, parseImageTag } from '../release/versions.js';
import { REDIS_API_GROUP, READ_VERBS, type StepPermission } from '../planning/permissions.js';

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

export const CLUSTER_KIND = 'RedisEnterpriseCluster';

async function upgradeCluster(
  ctx: StepContext<UpgradeDeps>,
  wait: typeof waitForObject,
): Promise<StepResult> {
  const { deps, io, dryRun } = ctx;
  const { snapshot, plan, kube } = deps;
  const tag = plan.target.clusterVersion;
  if (!tag) return { skipped: 'no target cluster version: pass --cluster-version' };
  const known = snapshot.cluster;
  if (!known) throw new OperationError('no cluster resource was found', { hint: 'Pass --cluster <name>.' });
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
      hint: `Check kubectl get rec -n ${known.namespace}; nothing was changed.`,
    });
  }
  const live = toCluster(object, snapshot.dialect, known.namespace);
  const liveTag = live.image.versionTag;
  const tagField = [...fields.imageSpecPath.slice(1), 'versionTag'].join('.');

  if (live.autoUpgrade) return followAutoUpgrade(ctx, wait, live, tag);

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
  if (live.state === 'Upgrade') {
    throw new OperationError(`the cluster is already upgrading (to ${liveTag ?? 'the operator default'})`, {
      hint: `The operator starts no new upgrade during one. Wait until kubectl get rec ${live.name} -n ${live.namespace} shows Running, then run ctl again.`,
    });
  }
  const patch = buildClusterPatch(live, snapshot.dialect, tag, plan.target.operator);
  if (patch.kind === 'refuse') {
    // Before any change: never a new tag next to an old digest (src/planning/cluster-patch.ts).
    throw new OperationError(`not upgrading ${describeRef(ref)}: ${patch.message}`, { hint: patch.fix });
  }
  const pinned = patch.moves.slice(1);
  const body = patch.body;
  await ctx.recordIntent({
    from: liveTag ?? null,
    to: tag,
    patch: body,
    fromGeneration: live.generation ?? null,
  });
  ctx.progress(`setting ${tagField} of ${describeRef(ref)} from ${liveTag ?? '(default)'} to ${tag}`);
  await mergePatch(kube, ref, body, { dryRun, io });
  if (dryRun) return { outcome: { dryRun: true, versionTag: tag, previous: liveTag ?? null } };

  const after = await readObject(kube, ref);
  const afterTag = after ? toCluster(after, snapshot.dialect, known.namespace).image.versionTag : undefined;
  if (afterTag !== tag) {
    throw new OperationError(
      `${tagField} of ${describeRef(ref)} is ${afterTag ?? '(unset)'} after setting it to ${tag}`,
      {
        hint: 'Something else (a GitOps tool, an admission policy) may be rewriting the cluster resource. Check its managed fields (kubectl get rec -o yaml --show-managed-fields), then run ctl again.',
      },
    );
  }
  return {
    outcome: {
      versionTag: tag,
      previous: liveTag ?? null,
      pinnedImages: pinned.map((move) => move.field),
      generation: after?.metadata?.generation ?? null,
    },
  };
}

function pinnedImages(cluster: ClusterSnapshot): [string, ClusterSnapshot['image']][] {
  return Object.entries(cluster.otherImages).filter(([, image]) => image.versionTag !== undefined);
}

/** Auto-upgrade: the operator sets the tag itself; wait until it has started the upgrade. */
async function followAutoUpgrade(
  ctx: StepContext<UpgradeDeps>,
  wait: typeof waitForObject,
  live: ClusterSnapshot,
  tag: string,
): Promise<StepResult> {
  const reason = 'auto-upgrade is on: the operator upgrades the cluster';
  const startTag = ctx.deps.snapshot.cluster?.image.versionTag;
  if (live.image.versionTag === tag) return { skipped: `${reason} (it has set versionTag ${tag})` };
  if (ctx.dryRun) return { skipped: reason };
  ctx.progress(`${reason}; waiting for it to start`);
  const { kube, settings, snapshot } = ctx.deps;
  const started = await wait<KubeObject>({
    kube,
    path: `/apis/${CLUSTER_RESOURCE.group}/${live.apiVersion.split('/')[1] ?? CLUSTER_RESOURCE.version}/namespaces/${live.namespace}/${CLUSTER_RESOURCE.plural}`,
    name: live.name,
    signal: ctx.signal,
    timeoutMs: settings.timeoutMs,
    stallTimeoutMs: settings.stallTimeoutMs,
    description: `the operator to start the upgrade of ${live.name} (auto-upgrade)`,
    hint: `Check the operator's events: kubectl get events -n ${live.namespace} --field-selector involvedObject.name=${live.name}. Or turn auto-upgrade off and run ctl again.`,
    check: (object) => {
      if (!object) throw new OperationError(`the cluster resource ${live.name} was deleted`);
      const now = toCluster(object, snapshot.dialect, live.namespace);
      // The operator has answered, with a refusal: the monitor step fails on it with the
      // operator's Warning events and the fix, which this wait does not collect.
      if (now.state === 'InvalidUpgrade') return true;
      if (
        now.state === 'Upgrade' ||
        (now.image.versionTag !== undefined && now.image.versionTag !== startTag)
      ) {
        return true;
      }
      return `cluster state ${now.state ?? 'unknown'}, versionTag ${now.image.versionTag ?? '(default)'}`;
    },
    onProgress: (message) => ctx.progress(message),
  });
  const answered = toCluster(started, snapshot.dialect, live.namespace);
  if (answered.state === 'InvalidUpgrade') {
    ctx.warn(
      `the operator refused the upgrade of ${live.name} (state InvalidUpgrade): the monitor step shows why`,
    );
    return { skipped: `${reason}, but it answered with state InvalidUpgrade` };
  }
  const chosen = answered.image.versionTag;
  if (chosen !== undefined && chosen !== tag) {
    ctx.warn(`the operator chose versionTag ${chosen}, not ${tag}`, { versionTag: chosen });
  }
  return { skipped: `${reason} (it has set versionTag ${chosen ?? tag})` };
}

// ---- plan: pure, from the snapshot and the target (the run half re-reads live state)

function planCluster({ snapshot, target, resolved }: PlanContext, cluster: ClusterSnapshot): StepPlan {
  const tag = resolved.clusterTag.target;
  if (!tag) return { skip: 'no target cluster version: pass --cluster-version' };
  if (cluster.image.versionTag === tag) return { skip: `the cluster already runs ${tag}` };
  const current = cluster.image.versionTag ? parseImageTag(cluster.image.versionTag) : undefined;
  const wanted = parseImageTag(tag);
  if (current && wanted && compareImageTags(current, wanted) > 0) {
    return { skip: `the cluster runs ${cluster.image.versionTag}, newer than ${tag}` };
  }
  if (cluster.autoUpgrade) return { skip: 'auto-upgrade is on: the operator upgrades the cluster' };
  const fields = dialectFields(snapshot.dialect);
  const patch = buildClusterPatch(cluster, snapshot.dialect, tag, target.operator);
  if (patch.kind === 'refuse') return { skip: `refused (auto-upgrade-digest): ${patch.message}` };
  // Image specs pinned in the spec (rigger, bootstrapper, call-home client) carry the operator's version.
  const pinned = patch.moves.slice(1);
  const body = patch.body;
  const also =
    pinned.length > 0 ? ` and ${pinned.map((move) => move.field).join(', ')} to ${target.operator}` : '';
  return {
    actions: [
      action(
        `Set ${fields.imageSpecPath.slice(1).join('.')}.versionTag from ${cluster.image.versionTag ?? '(default)'} to ${tag}${also}`,
        kubectlMergePatch('rec', cluster.name, cluster.namespace, body),
      ),
    ],
  };
}
