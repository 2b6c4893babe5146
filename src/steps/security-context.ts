/**
 * Step `security-context`: from operator 7.22.0-6 the cluster's pods run unprivileged, so on
 * OpenShift the SCC `redis-enterprise-scc-v2` is unbound from the cluster's service account and
 * deleted (DOCS `security/allow-resource-adjustment.md`):
 *
 *   oc adm policy remove-scc-from-user redis-enterprise-scc-v2 -z <service-account>
 *   oc delete scc redis-enterprise-scc-v2
 *
 * The SCC is cluster-wide: when other service accounts are still bound to it, only this
 * cluster's binding goes and the SCC stays. A cluster with
 * `spec.securityContext.resourceLimits.allowAutoAdjustment: true` still needs the SCC: it is
 * kept, or applied and bound when it is missing, as the plan says. `--keep-scc` leaves it alone.
 *
 * The users list is written as a whole (an absolute value) with the resourceVersion it was
 * computed from, so a concurrent change fails with 409 instead of being overwritten.
 */

import { OperationError } from '../errors.js';
import { loadManifests } from '../kube/bundle.js';
import type { KubeObject } from '../kube/reads.js';
import { deleteIfExists, mergePatch, readObject, serverSideApply } from '../kube/write.js';
import { requiresUnprivileged } from '../release/catalog.js';
import { type ClusterSnapshot, SCC_NAME, toCluster } from '../planning/snapshot.js';
import { UpgradeDeps, UpgradeStep } from './deps.js';
import type { StepContext, StepResult } from '../run/step.js';
import { type PlanContext, type StepPlan, action, releaseFile } from '../planning/plan.js';
import { kubectlApply, shellQuote } from '../planning/equivalent-commands.js';
import { APPLY_VERBS, type StepPermission } from '../planning/permissions.js';

/** The Kubernetes permissions this step needs; the plan's `permissions` check reviews them. */
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
    verbs: ['get', 'create', 'delete'],
    scope: 'namespace',
    when: 'openshift',
    why: 'bind or unbind the SCC for the cluster service account (oc adm policy)',
  },
];

export function createSecurityContextStep(): UpgradeStep<'security-context'> {
  return {
    id: 'security-context',
    title: 'Update the OpenShift security context constraints',
    permissions: PERMISSIONS,
    plan: planSecurityContext,
    run: updateSecurityContext,
  };
}

export const securityContextStep = createSecurityContextStep();

export const SCC_REF = {
  apiVersion: 'security.openshift.io/v1',
  kind: 'SecurityContextConstraints',
  name: SCC_NAME,
} as const;

async function updateSecurityContext(ctx: StepContext<UpgradeDeps>): Promise<StepResult> {
  const { deps } = ctx;
  const { snapshot, plan, settings } = deps;
  const target = plan.target.operator;
  if (snapshot.platform !== 'openshift') return { skipped: 'not OpenShift' };
  if (!requiresUnprivileged(target)) {
    return { skipped: `operator ${target} still runs privileged pods: ${SCC_NAME} stays as it is` };
  }
  if (settings.keepScc) return { skipped: `--keep-scc: ${SCC_NAME} is left as it is` };

  const cluster = await readCluster(ctx);
  const user = `system:serviceaccount:${cluster.namespace}:${cluster.serviceAccountName}`;
  const scc = await readObject(deps.kube, SCC_REF);

  if (cluster.allowAutoAdjustment) return keepForAutoAdjustment(ctx, scc, user, cluster);
  if (!scc) return { skipped: `${SCC_NAME} is already removed: pods run unprivileged` };

  const users = usersOf(scc);
  const others = users.filter((u) => u !== user);
  if (!users.includes(user) && others.length > 0) {
    return { skipped: `${SCC_NAME} is not bound to ${user}; it stays for ${others.join(', ')}` };
  }
  await ctx.recordIntent({
    scc: SCC_NAME,
    unbind: users.includes(user) ? user : null,
    delete: others.length === 0,
    fromResourceVersion: scc.metadata?.resourceVersion ?? null,
  });
  const io = { dryRun: ctx.dryRun, io: ctx.io };
  if (users.includes(user)) {
    ctx.progress(`unbinding ${SCC_NAME} from ${user}`);
    await mergePatch(deps.kube, SCC_REF, usersPatch(scc, others), io);
  }
  if (others.length > 0) {
    ctx.warn(`${SCC_NAME} is kept: it is still bound to ${others.join(', ')}`, { users: others });
  } else {
    ctx.progress(`deleting ${SCC_NAME}`);
    await deleteIfExists(deps.kube, SCC_REF, io);
  }
  if (ctx.dryRun) return { outcome: { dryRun: true, unbound: user, deleted: others.length === 0 } };

  const after = await readObject(deps.kube, SCC_REF);
  if (others.length === 0 && after && !isDeleting(after)) {
    throw new OperationError(`${SCC_NAME} still exists after deleting it`, {
      hint: `Delete it by hand (oc delete scc ${SCC_NAME}), then run ctl again.`,
    });
  }
  if (after && usersOf(after).includes(user)) {
    throw new OperationError(`${SCC_NAME} is still bound to ${user}`, {
      hint: `Unbind it by hand (oc adm policy remove-scc-from-user ${SCC_NAME} -z ${cluster.serviceAccountName} -n ${cluster.namespace}), then run ctl again.`,
    });
  }
  return { outcome: { scc: SCC_NAME, unbound: user, deleted: others.length === 0, keptFor: others } };
}

/** The cluster still adjusts its resource limits: make sure the SCC exists and is bound to it. */
async function keepForAutoAdjustment(
  ctx: StepContext<UpgradeDeps>,
  scc: KubeObject | undefined,
  user: string,
  cluster: ClusterSnapshot,
): Promise<StepResult> {
  const { deps } = ctx;
  if (scc && usersOf(scc).includes(user)) {
    return {
      skipped: `spec.securityContext.resourceLimits.allowAutoAdjustment is on: ${SCC_NAME} stays bound to ${cluster.serviceAccountName}`,
    };
  }
  const io = { dryRun: ctx.dryRun, io: ctx.io };
  let current = scc;
  const location = scc ? undefined : releaseFile(deps.resolved, deps.target, 'openshift/scc.yaml');
  await ctx.recordIntent({ scc: SCC_NAME, apply: location ?? null, bind: user });
  if (location) {
    const objects = (await loadManifests(location, { signal: ctx.signal, io: ctx.io })).filter(
      (o) => o.kind === SCC_REF.kind,
    );
    if (objects.length === 0) {
      throw new OperationError(`${location} holds no ${SCC_REF.kind}`, {
        hint: 'Check that --bundle points at the release tree (openshift/scc.yaml next to the bundle).',
      });
    }
    ctx.progress(`applying ${SCC_NAME} (allowAutoAdjustment needs it)`);
    const applied = await serverSideApply(deps.kube, objects, io);
    current = applied[0] ?? objects[0];
  }
  if (!current) throw new OperationError(`${SCC_NAME} could not be read after applying it`);
  const users = usersOf(current);
  if (!users.includes(user)) {
    ctx.progress(`binding ${SCC_NAME} to ${user}`);
    await mergePatch(deps.kube, SCC_REF, usersPatch(current, [...users, user]), io);
  }
  if (ctx.dryRun) return { outcome: { dryRun: true, bound: user } };
  const after = await readObject(deps.kube, SCC_REF);
  if (!after || !usersOf(after).includes(user)) {
    throw new OperationError(`${SCC_NAME} is not bound to ${user} after binding it`, {
      hint: `Bind it by hand (oc adm policy add-scc-to-user ${SCC_NAME} ${user}), then run ctl again.`,
    });
  }
  return { outcome: { scc: SCC_NAME, bound: user, applied: location !== undefined } };
}

async function readCluster(ctx: StepContext<UpgradeDeps>): Promise<ClusterSnapshot> {
  const { snapshot, kube } = ctx.deps;
  const known = snapshot.cluster;
  if (!known) throw new OperationError('no cluster resource was found', { hint: 'Pass --cluster <name>.' });
  const live = await readObject(kube, {
    apiVersion: known.apiVersion,
    kind: 'RedisEnterpriseCluster',
    name: known.name,
    namespace: known.namespace,
  });
  if (!live) {
    throw new OperationError(`the cluster resource ${known.name} no longer exists in ${known.namespace}`, {
      hint: 'Check kubectl get rec -n <namespace>; nothing was changed.',
    });
  }
  return toCluster(live, snapshot.dialect, known.namespace);
}

function usersOf(scc: KubeObject): string[] {
  return Array.isArray(scc.users) ? scc.users.filter((u): u is string => typeof u === 'string') : [];
}

/** The whole users list, conditional on the version it was computed from. */
function usersPatch(scc: KubeObject, users: string[]): Record<string, unknown> {
  const resourceVersion = scc.metadata?.resourceVersion;
  return { ...(resourceVersion ? { metadata: { resourceVersion } } : {}), users };
}

function isDeleting(object: KubeObject): boolean {
  return Boolean((object.metadata as { deletionTimestamp?: unknown } | undefined)?.deletionTimestamp);
}

// ---- plan: pure, from the snapshot and the target (the run half re-reads live state)

function planSecurityContext(
  { snapshot, target, resolved }: PlanContext,
  cluster: ClusterSnapshot,
): StepPlan {
  if (snapshot.platform !== 'openshift') return { skip: 'not OpenShift' };
  if (!requiresUnprivileged(target.operator)) {
    return { skip: `operator ${target.operator} still runs privileged pods: ${SCC_NAME} stays as it is` };
  }
  const scc = snapshot.scc;
  const ns = cluster.namespace;
  const sa = cluster.serviceAccountName;
  const user = `system:serviceaccount:${ns}:${sa}`;
  if (cluster.allowAutoAdjustment) {
    if (scc?.present && scc.users.includes(user)) {
      return {
        skip: `spec.securityContext.resourceLimits.allowAutoAdjustment is on and ${SCC_NAME} is bound to ${sa}`,
      };
    }
    return {
      actions: [
        action(
          `Apply ${SCC_NAME} of ${target.operator} (kept for allowAutoAdjustment)`,
          kubectlApply(releaseFile(resolved, target, 'openshift/scc.yaml'), undefined, 'oc'),
        ),
        action(
          `Bind ${SCC_NAME} to the cluster's service account ${sa}`,
          `oc adm policy add-scc-to-user ${SCC_NAME} ${user}`,
        ),
      ],
    };
  }
  if (!scc?.present) return { skip: `${SCC_NAME} is already removed: pods run unprivileged` };
  const actions = [
    action(
      `Unbind ${SCC_NAME} from the service account ${sa}: ${target.operator} runs unprivileged`,
      `oc adm policy remove-scc-from-user ${SCC_NAME} -z ${shellQuote(sa)} -n ${shellQuote(ns)}`,
    ),
  ];
  // The SCC is cluster-wide: another cluster may still be bound to it.
  const others = scc.users.filter((u) => u !== user);
  if (others.length === 0) actions.push(action(`Delete ${SCC_NAME}`, `oc delete scc ${SCC_NAME}`));
  return { actions };
}
