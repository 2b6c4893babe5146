/**
 * Step `monitor`: follow the cluster's rolling upgrade to its end (redis-facts.md §3 "Monitor":
 * `kubectl get rec` goes Upgrade -> Running, `kubectl rollout status sts/<rec>`).
 *
 * Done when the state is Running, every pod is upgraded and the spec's versionTag is the target;
 * with auto-upgrade, whose operator need not write versionTag (redis-facts.md §12), when every
 * node reports the target's version in the management API (`GET /v1/nodes`) instead. Fails on
 * InvalidUpgrade (exit 1) with the operator's warning and the fix; on no progress for
 * --stall-timeout or the overall --timeout (exit 6) with what it saw last. A frozen upgrade stops
 * the step with the exact commands that lift it, or, with --remediate, is lifted by ctl itself,
 * after which the step goes on watching.
 *
 * Split by what each part decides:
 * - this module: the step (its permissions, its plan, its run: the dry run's one look, the
 *   follower, then the databases' resources and the nodes' versions);
 * - ./monitor-view.ts: whether one view of the cluster resource, StatefulSet and pods is done
 *   (each pod judged by itself: ./roll-facts.ts, ./image-at-target.ts);
 * - ./monitor-follower.ts: watching the live objects and deciding when the wait ends
 *   (./monitor-watch-apply.ts keeps its copies, ./monitor-timing.ts paces what has no watch);
 * - ./monitor-frozen.ts: what to do about a frozen upgrade (./freeze.ts, ./remediate.ts);
 * - ./monitor-failures.ts: the errors it ends with and what they tell the user to do
 *   (./monitor-failed-create.ts reads a StatefulSet's refusal to create pods);
 * - ./monitor-verify-nodes.ts: the nodes' versions after the roll.
 *
 * Resumable: every judgement is made from the live objects, so a second run on a cluster that is
 * already Running at the target completes at once, and remediation re-checks before each action.
 */

import { dialectFields } from '../release/dialect.js';
import { OperationError } from '../errors.js';
import type { KubeObject } from '../kube/reads.js';
import { listCollection } from '../kube/watch.js';
import { readObject } from '../kube/write.js';
import { kubectl, curlApi } from '../planning/equivalent-commands.js';
import type { UpgradeDeps, UpgradeStep } from './deps.js';
import type { StepContext, StepResult } from '../run/step.js';
import { planSccAfterRoll, sccPlanInput } from './security-context-plan.js';
import { getPath, str } from '../json-read.js';
import { type ClusterSnapshot } from '../planning/snapshot.js';
import { type PlanContext, type StepPlan, action } from '../planning/plan.js';
import { formatRs } from '../planning/resolve.js';
import { READ_VERBS, type StepPermission } from '../planning/permissions.js';
import { UpgradeFollower } from './monitor-follower.js';
import { verifyNodes } from './monitor-verify-nodes.js';
import { judge, podSelectorOf, type Target } from './monitor-view.js';

/** The Kubernetes permissions this step needs; the plan's `permissions` check reviews them. */
const PERMISSIONS: readonly StepPermission[] = [
  {
    group: 'apps',
    resource: 'statefulsets',
    verbs: READ_VERBS,
    scope: 'namespace',
    when: 'always',
    why: 'follow the rolling upgrade of the cluster pods',
  },
  {
    group: '',
    resource: 'pods',
    verbs: ['list', 'watch'],
    scope: 'namespace',
    when: 'always',
    why: 'follow each cluster pod',
  },
  {
    group: '',
    resource: 'pods',
    subresource: 'log',
    verbs: ['get'],
    scope: 'namespace',
    when: 'always',
    why: "read the operator's log, where it says why an upgrade is frozen",
  },
  {
    group: '',
    resource: 'events',
    verbs: ['list', 'watch'],
    scope: 'namespace',
    when: 'always',
    why: "report the operator's warnings during the upgrade",
  },
];

export function createMonitorStep(): UpgradeStep<'monitor'> {
  return {
    id: 'monitor',
    title: 'Wait for the rolling upgrade, then remove an OpenShift SCC no longer needed',
    permissions: PERMISSIONS,
    plan: planMonitor,
    run: monitorUpgrade,
  };
}

export const monitorStep = createMonitorStep();

async function monitorUpgrade(ctx: StepContext<UpgradeDeps>): Promise<StepResult> {
  const { snapshot, plan, kube } = ctx.deps;
  const tag = plan.target.clusterVersion;
  if (!tag) return { skipped: 'no target cluster version: pass --cluster-version' };
  const known = snapshot.cluster;
  if (!known) throw new OperationError('no cluster resource was found', { hint: 'Pass --cluster NAME.' });
  const target: Target = {
    name: known.name,
    namespace: known.namespace,
    tag,
    recApiVersion: known.apiVersion,
    oldDigest: known.image.versionTag !== tag ? known.image.digestHash : undefined,
  };

  if (ctx.dryRun) {
    const [rec, sts] = await Promise.all([
      readObject(kube, {
        apiVersion: known.apiVersion,
        kind: 'RedisEnterpriseCluster',
        name: known.name,
        namespace: known.namespace,
      }),
      readObject(kube, {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        name: known.name,
        namespace: known.namespace,
      }),
    ]);
    const selector = podSelectorOf(sts);
    const pods = selector
      ? new Map(
          (
            await listCollection<KubeObject>(
              kube,
              `/api/v1/namespaces/${known.namespace}/pods`,
              { labelSelector: selector },
              ctx.signal,
            )
          ).items.map((pod) => [pod.metadata?.uid ?? pod.metadata?.name ?? '', pod]),
        )
      : undefined;
    const view = judge(rec, sts, pods, target, dialectFields(snapshot.dialect));
    if (view.done) return { outcome: { dryRun: true, versionTag: tag, state: 'Running' } };
    // The dry run's cluster step set nothing: while the cluster resource is not at the target,
    // no pod was asked to roll, so nothing is said about the pods (issue 36 item 5).
    const specTag = str(getPath(rec, [...dialectFields(snapshot.dialect).imageSpecPath, 'versionTag']));
    if (specTag !== tag) {
      return {
        skipped: `dry run: would follow the rolling upgrade of ${known.name} to ${tag} once the cluster step sets it (now: cluster ${str(getPath(rec, ['status', 'state'])) ?? 'unknown'}, versionTag ${specTag ?? '(default)'}; no pod was asked to roll)`,
      };
    }
    return {
      skipped: `dry run: would follow the rolling upgrade of ${known.name} to ${tag} (now: ${view.message})`,
    };
  }

  const follower = new UpgradeFollower(ctx, target);
  const finished = await follower.run();
  await follower.syncDatabases();
  const nodes = await verifyNodes(ctx, tag);
  return {
    outcome: {
      versionTag: tag,
      state: 'Running',
      replicas: finished.replicas,
      updateRevision: finished.updateRevision ?? null,
      ...(nodes ? { nodeVersions: nodes } : {}),
      ...(follower.remediation.actions.length > 0 ? { remediation: follower.remediation.actions } : {}),
    },
  };
}

// ---- plan: pure, from the snapshot and the target (the run half re-reads live state)

function planMonitor(context: PlanContext, cluster: ClusterSnapshot): StepPlan {
  const { resolved } = context;
  const tag = resolved.clusterTag.target;
  // On OpenShift, from 7.22.0-6: the SCC goes once the roll is over (src/steps/index.ts).
  const sccRemoval = tag ? planSccAfterRoll(sccPlanInput(context, cluster)) : [];
  if (tag && cluster.image.versionTag === tag && cluster.state === 'Running') {
    if (sccRemoval.length > 0) return { actions: sccRemoval };
    return { skip: `the cluster already runs ${tag}: nothing to wait for` };
  }
  const ns = cluster.namespace;
  return {
    actions: [
      action(
        `Follow the rolling upgrade of the ${cluster.nodes === undefined ? '' : `${cluster.nodes} `}pods (highest ordinal first, one at a time)`,
        kubectl(
          context.snapshot.kubeTarget,
          'rollout',
          'status',
          `sts/${cluster.name}`,
          '-n',
          ns,
          '--timeout=60m',
        ),
      ),
      action(
        'Wait for the cluster state to go from Upgrade back to Running',
        `${kubectl(context.snapshot.kubeTarget, 'get', 'rec', cluster.name, '-n', ns, '-w')}`,
      ),
      action(
        `Check that every node runs RS ${formatRs(resolved.targetRs)}`,
        `${curlApi('GET', '/v1/nodes')} | jq -r '.[].software_version'`,
      ),
      ...sccRemoval,
    ],
  };
}
