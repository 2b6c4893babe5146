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
import { bundleLocation, loadManifests, siblingLocation } from '../kube/bundle.js';
import { readObject } from '../kube/write.js';
import { requiresUnprivileged } from '../upgrade/catalog.js';
import { STEP_TITLES } from '../upgrade/plan.js';
import { type ClusterSnapshot, toCluster } from '../upgrade/snapshot.js';
import type { UpgradeDeps } from './deps.js';
import { decideScc, SCC_NAME, type SccDecision } from './security-context-decision.js';
import {
  applyScc,
  bindByRbac,
  isBound,
  readSccBindings,
  type ServiceAccountRef,
} from './security-context-scc.js';
import type { Step, StepContext, StepResult } from './types.js';

export { SCC_REF } from './security-context-scc.js';

export interface SecurityContextStepOptions {
  env?: NodeJS.ProcessEnv;
}

export function createSecurityContextStep(options: SecurityContextStepOptions = {}): Step<UpgradeDeps> {
  const env = options.env ?? process.env;
  return {
    id: 'security-context',
    title: STEP_TITLES['security-context'],
    run: (ctx) => prepareSecurityContext(ctx, env),
  };
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

async function prepareSecurityContext(
  ctx: StepContext<UpgradeDeps>,
  env: NodeJS.ProcessEnv,
): Promise<StepResult> {
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
  const location = sccLocation(ctx, env);
  await ctx.recordIntent({ scc: SCC_NAME, apply: location, bind: isBound(bindings) ? null : bindings.user });
  const io = { dryRun: ctx.dryRun, io: ctx.io };
  const manifests = await loadManifests(location, { signal: ctx.signal, io: ctx.io });
  ctx.progress(`applying ${SCC_NAME} from ${location}`);
  await applyScc(ctx.deps.kube, manifests, location, io);
  if (!isBound(bindings)) {
    ctx.progress(`binding ${SCC_NAME} to ${bindings.user} (RoleBinding system:openshift:scc:${SCC_NAME})`);
    await bindByRbac(ctx.deps.kube, sa, io);
  }
  if (ctx.dryRun) return { outcome: { dryRun: true, scc: SCC_NAME, applied: location } };

  const after = await readSccBindings(ctx.deps.kube, sa);
  if (!after.scc || !isBound(after)) {
    throw new OperationError(`${SCC_NAME} is not applied and bound to ${after.user} after applying it`, {
      hint: `Apply and bind it by hand (oc apply -f ${location}; oc adm policy add-scc-to-user ${SCC_NAME} ${after.user}), then run ctl again.`,
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

/** `openshift/scc.yaml` of the target release, next to its bundle (the release tree's layout). */
function sccLocation(ctx: StepContext<UpgradeDeps>, env: NodeJS.ProcessEnv): string {
  const { deps } = ctx;
  return siblingLocation(
    bundleLocation({
      bundle: deps.settings.bundle,
      version: deps.plan.target.operator,
      platform: deps.snapshot.platform,
      env,
    }),
    'openshift/scc.yaml',
  );
}

export async function readCluster(ctx: StepContext<UpgradeDeps>): Promise<ClusterSnapshot> {
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
