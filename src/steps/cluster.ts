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
 */

import { dialectFields } from '../release/dialect.js';
import { OperationError } from '../errors.js';
import type { KubeObject } from '../kube/reads.js';
import { CLUSTER_CRD_NAME, CLUSTER_RESOURCE } from '../kube/reads.js';
import { clusterCrdFacts, declaresUserDefinedModulesAt } from '../planning/cluster-crd.js';
import { waitForObject } from '../kube/watch.js';
import { describeRef, readObject } from '../kube/write.js';
import { curlApi, kubectl, kubectlMergePatch, mergeBodies } from '../planning/equivalent-commands.js';
import { imageAtTarget } from './image-at-target.js';
import { nodeImageOf } from './roll-facts.js';
import { buildClusterPatch, digestPinnedSpecs } from '../planning/cluster-patch.js';
import { installedOlmDigests, type OlmDigestSource } from './olm-digests.js';
import { type OlmSnapshot, plannedOlmDigests } from '../planning/olm.js';
import { type ClusterSnapshot, type Snapshot, toCluster } from '../planning/snapshot.js';
import { UpgradeDeps, UpgradeStep } from './deps.js';
import type { StepContext, StepResult } from '../run/step.js';
import { type PlanContext, type StepPlan, action } from '../planning/plan.js';
import { compareImageTags, parseImageTag } from '../release/versions.js';
import { REDIS_API_GROUP, READ_VERBS, type StepPermission } from '../planning/permissions.js';
import { targetHasUserDefinedModulesField } from '../planning/module-fix.js';
import { operatorStepInstallsClusterCrd } from '../planning/user-defined-modules-field.js';
import {
  listsEveryModule,
  mergedUserDefinedModules,
  type UserDefinedModule,
} from '../planning/user-defined-modules-patch.js';

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

export const CLUSTER_KIND = 'RedisEnterpriseCluster';

async function upgradeCluster(
  ctx: StepContext<UpgradeDeps>,
  wait: typeof waitForObject,
): Promise<StepResult> {
  const { deps } = ctx;
  const { snapshot, plan, kube, kubeWriter } = deps;
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
    await verifyModules(kube, ref, modules);
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
      hint: `The operator starts no new upgrade during one. Wait until kubectl get rec ${live.name} -n ${live.namespace} shows Running, then run ctl again.`,
    });
  }
  // Under OLM a pinned digest follows the target CSV's relatedImages (olm-digests.ts).
  const olmDigests =
    deps.resolved.method === 'olm' && snapshot.olm && digestPinnedSpecs(live, snapshot.dialect).length > 0
      ? await installedOlmDigests(kube, olmDigestSource(snapshot, plan.target.operator, snapshot.olm))
      : undefined;
  const patch = buildClusterPatch(live, snapshot.dialect, tag, plan.target.operator, olmDigests?.digestOf);
  if (patch.kind === 'refuse') {
    // Before any change: never a new tag next to an old digest (src/planning/cluster-patch.ts).
    const from = olmDigests ? ` (${olmDigests.csv} spec.relatedImages has no digest for it)` : '';
    throw new OperationError(`not upgrading ${describeRef(ref)}: ${patch.message}${from}`, {
      hint: patch.fix,
    });
  }
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
        hint: 'Something else (a GitOps tool, an admission policy) may be rewriting the cluster resource. Check its managed fields (kubectl get rec -o yaml --show-managed-fields), then run ctl again.',
      },
    );
  }
  if (modulesBody) await verifyModules(kube, ref, modules);
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
 * The modules of --user-defined-modules, where this hop's target cluster resource has the field:
 * the one rule for the plan and the run.
 */
function modulesToSet(operator: string, modules: UserDefinedModule[] | undefined): UserDefinedModule[] {
  return targetHasUserDefinedModulesField(operator) ? (modules ?? []) : [];
}

/**
 * The merge patch that adds the given modules to spec.userDefinedModules, keeping the live
 * entries; undefined when the live list already holds every one (the run and its plan share it).
 */
function userDefinedModulesBody(live: unknown, modules: readonly UserDefinedModule[]) {
  return modules.length > 0 && !listsEveryModule(live, modules)
    ? { spec: { userDefinedModules: mergedUserDefinedModules(live, modules) } }
    : undefined;
}

/**
 * Refuses, before the patch, where the cluster resource's CRD does not declare
 * spec.userDefinedModules (src/planning/cluster-crd.ts): the patch would set the versionTag and
 * lose the list. A CRD that cannot be read is left to the read-back below.
 */
async function assertCrdKeepsModules(
  kube: StepContext<UpgradeDeps>['deps']['kube'],
  ref: Parameters<typeof readObject>[1],
  moduleNames: string,
): Promise<void> {
  const crd = await readObject(kube, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    name: CLUSTER_CRD_NAME,
  }).catch(() => undefined);
  if (!crd) return;
  const facts = clusterCrdFacts(crd);
  if (facts.read && declaresUserDefinedModulesAt(facts, ref.apiVersion) !== false) return;
  throw new OperationError(
    `not upgrading ${describeRef(ref)}: the CRD ${CLUSTER_CRD_NAME} does not declare spec.userDefinedModules, so the API server would drop the list (${moduleNames}) set with the new versionTag; nothing was changed`,
    {
      hint: `Let the operator step install the target's CRD (run without --skip operator), or apply the CRD of an operator from 8.0.6-8, then run ctl again.`,
    },
  );
}

/**
 * The API server keeps a field only where the cluster resource's CRD declares it: an older CRD
 * (an operator before 8.0.6-8) prunes spec.userDefinedModules without an error.
 */
async function verifyModules(
  kube: StepContext<UpgradeDeps>['deps']['kube'],
  ref: Parameters<typeof readObject>[1],
  modules: UserDefinedModule[],
): Promise<void> {
  const after = await readObject(kube, ref);
  const kept = (after?.spec as Record<string, unknown> | undefined)?.userDefinedModules;
  if (listsEveryModule(kept, modules)) return;
  throw new OperationError(
    `spec.userDefinedModules of ${describeRef(ref)} does not list ${modules.map((m) => m.name).join(', ')} after setting it`,
    {
      hint: `The cluster resource's CRD may be older than operator 8.0.6-8 (the API server drops fields it does not declare): check kubectl get crd redisenterpriseclusters.app.redislabs.com -o yaml | grep userDefinedModules, let the operator step finish, then run ctl again.`,
    },
  );
}

function pinnedImages(cluster: ClusterSnapshot): [string, ClusterSnapshot['image']][] {
  return Object.entries(cluster.otherImages).filter(([, image]) => image.versionTag !== undefined);
}

/**
 * Auto-upgrade: the operator upgrades the cluster itself once it runs the new version; wait until
 * it has started (or already finished) the upgrade. Nothing documents that it writes the spec's
 * versionTag (redis-facts.md §12), so a spec write is not awaited: the cluster resource going to
 * state `Upgrade` (or its versionTag changing), or the StatefulSet's node image moving (to the
 * target, or away from what it was), each says the operator has begun. The monitor step then
 * judges the roll by the pods and the nodes.
 */
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
  const ns = live.namespace;
  const operatorNs = snapshot.operator?.namespace ?? ns;
  const hint =
    `Look at the operator's log: ${kubectl('logs', 'deploy/redis-enterprise-operator', '-n', operatorNs)}, ` +
    `at ${kubectl('get', 'rec', live.name, '-n', ns)} and at the nodes' versions (${curlApi('GET', '/v1/nodes')}). ` +
    'Or turn auto-upgrade off and run ctl again.';
  const facts = { tag, oldDigest: live.image.versionTag !== tag ? live.image.digestHash : undefined };
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  let startImage: string | undefined | null = null;
  const common = {
    kube,
    signal: stop.signal,
    timeoutMs: settings.timeoutMs,
    stallTimeoutMs: settings.stallTimeoutMs,
    hint,
    onProgress: (message: string) => ctx.progress(message),
  };
  const byResource = wait<KubeObject>({
    ...common,
    path: `/apis/${CLUSTER_RESOURCE.group}/${live.apiVersion.split('/')[1] ?? CLUSTER_RESOURCE.version}/namespaces/${ns}/${CLUSTER_RESOURCE.plural}`,
    name: live.name,
    description: `the operator to start the upgrade of ${live.name} (auto-upgrade)`,
    check: (object) => {
      if (!object) throw new OperationError(`the cluster resource ${live.name} was deleted`);
      const now = toCluster(object, snapshot.dialect, ns);
      // The operator has answered, with a refusal: the monitor step fails on it with the
      // operator's warning and the fix, which this wait does not collect.
      if (now.state === 'InvalidUpgrade') return true;
      if (
        now.state === 'Upgrade' ||
        (now.image.versionTag !== undefined && now.image.versionTag !== startTag)
      ) {
        return true;
      }
      return `cluster state ${now.state ?? 'unknown'}, versionTag ${now.image.versionTag ?? '(default)'}`;
    },
  }).then((object): Answer => ({ by: 'resource', object }));
  const byPods = wait<KubeObject>({
    ...common,
    path: `/apis/apps/v1/namespaces/${ns}/statefulsets`,
    name: live.name,
    description: `the operator to roll the pods of ${live.name} (auto-upgrade)`,
    check: (object) => {
      if (!object) return `StatefulSet ${live.name} not found yet`;
      const image = nodeImageOf(object, ['spec', 'template', 'spec']);
      if (startImage === null) startImage = image;
      if (image === undefined) return `StatefulSet ${live.name} has no node container`;
      // At the target: started, or already done (the monitor step tells which).
      if (imageAtTarget(image, facts)) return true;
      if (image !== startImage) return true;
      return `the pods' image is ${image}`;
    },
  }).then((object): Answer => ({ by: 'pods', object }));
  let answer: Answer;
  try {
    answer = await firstOf([byResource, byPods], stop);
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
  }
  if (answer.by === 'pods') {
    const image = nodeImageOf(answer.object, ['spec', 'template', 'spec']) ?? '';
    if (!imageAtTarget(image, facts)) {
      ctx.warn(`the operator rolls the pods to ${image}, not to ${tag}`, { image });
    }
    return { skipped: `${reason} (it rolls the pods to ${image})` };
  }
  const answered = toCluster(answer.object, snapshot.dialect, ns);
  if (answered.state === 'InvalidUpgrade') {
    ctx.warn(
      `the operator refused the upgrade of ${live.name} (state InvalidUpgrade): the monitor step shows why`,
    );
    return { skipped: `${reason}, but it answered with state InvalidUpgrade` };
  }
  const chosen = answered.image.versionTag;
  if (chosen !== undefined && chosen !== startTag && chosen !== tag) {
    ctx.warn(`the operator chose versionTag ${chosen}, not ${tag}`, { versionTag: chosen });
  }
  if (chosen === tag) return { skipped: `${reason} (it has set versionTag ${tag})` };
  return { skipped: `${reason} (it has started: state ${answered.state ?? 'unknown'})` };
}

interface Answer {
  by: 'resource' | 'pods';
  object: KubeObject;
}

/**
 * The first of several waits to succeed; the others are stopped. A failure (a timeout, a
 * deleted resource) ends the wait at once unless one of them has already succeeded.
 */
function firstOf<T>(waits: Promise<T>[], stop: AbortController): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    for (const waiting of waits) {
      waiting.then(
        (value) => {
          if (done) return;
          done = true;
          stop.abort();
          resolve(value);
        },
        (error: unknown) => {
          if (done) return;
          done = true;
          stop.abort();
          reject(error);
        },
      );
    }
  });
}

// ---- plan: pure, from the snapshot and the target (the run half re-reads live state)

function planCluster({ snapshot, target, resolved }: PlanContext, cluster: ClusterSnapshot): StepPlan {
  const tag = resolved.clusterTag.target;
  if (!tag) return { skip: 'no target cluster version: pass --cluster-version' };
  if (cluster.image.versionTag === tag) {
    // --user-defined-modules on a cluster at the tag: the run half sets the list alone (runCluster),
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
          kubectlMergePatch('rec', cluster.name, cluster.namespace, listBody),
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
    resolved.method === 'olm' && snapshot.olm ? plannedOlmDigests(snapshot.olm, target.operator) : undefined;
  const patch = buildClusterPatch(cluster, snapshot.dialect, tag, target.operator, olmDigests);
  if (patch.kind === 'refuse') return { skip: `refused (auto-upgrade-digest): ${patch.message}` };
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
      ? ', each digestHash to the digest the target CSV relates (read after the operator step)'
      : '';
  return {
    actions: [
      action(
        `Set ${fields.imageSpecPath.slice(1).join('.')}.versionTag from ${cluster.image.versionTag ?? '(default)'} to ${tag}${also}${digests}`,
        kubectlMergePatch('rec', cluster.name, cluster.namespace, body),
      ),
    ],
  };
}

function olmDigestSource(snapshot: Snapshot, operatorTarget: string, olm: OlmSnapshot): OlmDigestSource {
  return {
    olm,
    namespace: snapshot.operator?.namespace ?? snapshot.namespace,
    operatorTarget,
    platform: snapshot.platform,
    currentTag: snapshot.cluster?.image.versionTag,
  };
}
