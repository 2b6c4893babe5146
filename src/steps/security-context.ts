/**
 * Step `security-context` (before the cluster step): keeps the cluster's pods admitted on
 * OpenShift while they roll. What happens to `redis-enterprise-scc-v2` is decided in
 * security-context-decision.ts:
 *
 * - keep (targets before 7.22.0-6, or allowAutoAdjustment): the target release's
 *   `openshift/scc.yaml` is re-applied and the SCC bound to the cluster's service account
 *   (`oc apply -f openshift/scc.yaml`; `oc adm policy add-scc-to-user`, i.e. ClusterRole and
 *   RoleBinding `system:openshift:scc:<scc>`) when it is not bound yet, by users or RBAC.
 * - remove after the roll (7.22.0-6 and later): nothing is removed here. The old pods still run
 *   the privileged template until the cluster has rolled, so the SCC must stay; when it is
 *   already gone before the roll (a `helm upgrade` to chart 7.22.0-11 or later, whose
 *   `openshift.scc.install` defaults to false, deleted it) it is re-applied and bound, so an old
 *   pod that restarts before the roll is still admitted. The removal itself runs after the
 *   monitor step (security-context-removal.ts).
 *
 * `--keep-scc` leaves the SCC alone.
 */

import { OperationError } from '../errors.js';
import { loadManifests } from '../kube/bundle.js';
import { readObject } from '../kube/write.js';
import { APPLY_VERBS, type StepPermission } from '../planning/permissions.js';
import { type ClusterSnapshot, toCluster } from '../planning/snapshot.js';
import type { PlanContext, StepPlan } from '../planning/plan.js';
import { requiresUnprivileged } from '../release/catalog.js';
import type { StepContext, StepResult } from '../run/step.js';
import type { UpgradeDeps, UpgradeStep } from './deps.js';
import { releaseFileToRead } from './release-files.js';
import { planSccBeforeRoll, sccPlanInput } from './security-context-plan.js';
import { decideScc, SCC_NAME, type SccDecision } from './security-context-decision.js';
import {
  applyScc,
  bindByRbac,
  isBound,
  readSccBindings,
  type ServiceAccountRef,
} from './security-context-scc.js';
import { kubectl, oc } from '../planning/equivalent-commands.js';

export { SCC_REF } from './security-context-scc.js';

/** The SCC of the release tree, and why the step reads it. */
const SCC_FILE = 'openshift/scc.yaml';
const SCC_FILE_WHY = `the security-context step applies ${SCC_NAME} of the release`;

/** The Kubernetes permissions this step needs (the removal after the roll too); the plan's `permissions` check reviews them. */
const PERMISSIONS: readonly StepPermission[] = [
  {
    group: 'security.openshift.io',
    resource: 'securitycontextconstraints',
    verbs: [...APPLY_VERBS, 'delete'],
    scope: 'cluster',
    when: 'openshift',
    why: 'remove or reapply redis-enterprise-scc-v2',
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'rolebindings',
    verbs: [...APPLY_VERBS, 'delete'],
    scope: 'namespace',
    when: 'openshift',
    why: 'bind or unbind the SCC for the cluster service account (oc adm policy)',
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'rolebindings',
    verbs: ['list'],
    scope: 'cluster',
    when: 'openshift',
    why: "find other namespaces' clusters bound to the SCC before deleting it",
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'clusterrolebindings',
    verbs: ['list'],
    scope: 'cluster',
    when: 'openshift',
    why: 'find cluster-wide bindings of the SCC before deleting it',
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'roles',
    verbs: ['list'],
    scope: 'cluster',
    when: 'openshift',
    why: "find Roles (such as OLM's from a CSV's permissions) that grant use of the SCC before deleting it",
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'clusterroles',
    verbs: ['list'],
    scope: 'cluster',
    when: 'openshift',
    why: 'find ClusterRoles that grant use of the SCC before deleting it',
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'clusterroles',
    // bind: creating a RoleBinding to a ClusterRole needs it (RBAC escalation prevention).
    verbs: [...APPLY_VERBS, 'delete', 'bind'],
    scope: 'cluster',
    when: 'openshift',
    why: 'the ClusterRole system:openshift:scc:<scc> of oc adm policy add-scc-to-user',
  },
];

export function createSecurityContextStep(): UpgradeStep<'security-context'> {
  return {
    id: 'security-context',
    title: 'Keep the OpenShift SCC admitting the cluster pods until they roll',
    permissions: PERMISSIONS,
    plan: planSecurityContext,
    // Every plan of the step that acts applies the release's SCC first (planSccBeforeRoll).
    releaseFiles: () => [{ file: SCC_FILE, why: SCC_FILE_WHY }],
    run: prepareSecurityContext,
  };
}

function planSecurityContext(context: PlanContext, cluster: ClusterSnapshot): StepPlan {
  return planSccBeforeRoll(sccPlanInput(context, cluster));
}

export const securityContextStep = createSecurityContextStep();

/** The decision for this run, from the live cluster resource. */
export async function sccDecisionFor(
  ctx: StepContext<UpgradeDeps>,
): Promise<{ decision: SccDecision; cluster?: ClusterSnapshot }> {
  const { snapshot, plan, settings } = ctx.deps;
  const first = decideScc({
    platform: snapshot.platform,
    unprivilegedTarget: requiresUnprivileged(plan.target.operator),
    allowAutoAdjustment: false,
    keepScc: settings.keepScc,
  });
  if (first.kind === 'skip') return { decision: first };
  const cluster = await readCluster(ctx);
  const decision = decideScc({
    platform: snapshot.platform,
    unprivilegedTarget: requiresUnprivileged(plan.target.operator),
    allowAutoAdjustment: cluster.allowAutoAdjustment,
    keepScc: settings.keepScc,
  });
  return { decision, cluster };
}

async function prepareSecurityContext(ctx: StepContext<UpgradeDeps>): Promise<StepResult> {
  const { decision, cluster } = await sccDecisionFor(ctx);
  if (decision.kind === 'skip' || !cluster)
    return { skipped: decision.kind === 'skip' ? decision.reason : '' };
  const sa: ServiceAccountRef = { namespace: cluster.namespace, name: cluster.serviceAccountName };
  const bindings = await readSccBindings(ctx.deps.kube, sa);
  const rolled = cluster.image.versionTag === ctx.deps.plan.target.clusterVersion;

  if (decision.kind === 'remove-after-roll') {
    if (bindings.scc || rolled) {
      return { skipped: `${SCC_NAME} stays until the cluster has rolled; the monitor step removes it then` };
    }
    ctx.warn(
      `${SCC_NAME} is already gone but the cluster has not rolled yet (a helm upgrade to a chart with openshift.scc.install: false removes it): re-applying it until the roll is over`,
    );
  } else {
    ctx.progress(decision.why);
  }
  const location = sccLocation(ctx);
  await ctx.recordIntent({ scc: SCC_NAME, apply: location, bind: isBound(bindings) ? null : bindings.user });
  const manifests = await loadManifests(location, { signal: ctx.signal, io: ctx.io });
  ctx.progress(`applying ${SCC_NAME} from ${location}`);
  await applyScc(ctx.deps.kubeWriter, manifests, location);
  if (!isBound(bindings)) {
    ctx.progress(`binding ${SCC_NAME} to ${bindings.user} (RoleBinding system:openshift:scc:${SCC_NAME})`);
    await bindByRbac(ctx.deps.kube, ctx.deps.kubeWriter, sa);
  }
  // Nothing was applied in dry-run, so there is nothing to verify.
  if (ctx.dryRun) return { outcome: { dryRun: true, scc: SCC_NAME, applied: location } };

  const after = await readSccBindings(ctx.deps.kube, sa);
  if (!after.scc || !isBound(after)) {
    throw new OperationError(`${SCC_NAME} is not applied and bound to ${after.user} after applying it`, {
      hint: `Apply and bind it by hand (${oc(ctx.deps.snapshot.kubeTarget, 'apply', '-f', location)}; ${oc(ctx.deps.snapshot.kubeTarget, 'adm', 'policy', 'add-scc-to-user', SCC_NAME, after.user)}), then run ctl again.`,
    });
  }
  return {
    outcome: {
      scc: SCC_NAME,
      applied: location,
      bound: after.user,
      ...(decision.kind === 'keep'
        ? { kept: decision.why }
        : { removal: 'after the monitor step, once the cluster has rolled' }),
    },
  };
}

/** `openshift/scc.yaml` of the target release, as the plan named it (the release tree's layout). */
function sccLocation(ctx: StepContext<UpgradeDeps>): string {
  return releaseFileToRead(ctx.deps, { file: SCC_FILE, why: SCC_FILE_WHY });
}

export async function readCluster(ctx: StepContext<UpgradeDeps>): Promise<ClusterSnapshot> {
  const { snapshot, kube } = ctx.deps;
  const known = snapshot.cluster;
  if (!known) throw new OperationError('no cluster resource was found', { hint: 'Pass --cluster NAME.' });
  const live = await readObject(kube, {
    apiVersion: known.apiVersion,
    kind: 'RedisEnterpriseCluster',
    name: known.name,
    namespace: known.namespace,
  });
  if (!live) {
    throw new OperationError(`the cluster resource ${known.name} no longer exists in ${known.namespace}`, {
      hint: `Check ${kubectl(snapshot.kubeTarget, 'get', 'rec', '-n', known.namespace)}; nothing was changed.`,
    });
  }
  return toCluster(live, snapshot.dialect, known.namespace);
}
