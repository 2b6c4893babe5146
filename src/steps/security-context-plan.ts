/**
 * The plan's OpenShift SCC actions: what the security-context step does before the cluster
 * step, and what the monitor step does after the roll (src/steps/security-context*.ts), each
 * with the `oc` command that does the same by hand. Decisions: src/steps/security-context-decision.ts.
 */

import { kubectlApply, oc } from '../planning/equivalent-commands.js';
import { type PlanContext, releaseFile } from '../planning/plan.js';
import type { ClusterSnapshot, Snapshot } from '../planning/snapshot.js';
import { SCC_NAME } from '../planning/snapshot.js';
import { atLeast, requiresUnprivileged } from '../release/catalog.js';
import { decideScc } from './security-context-decision.js';

/**
 * From this chart on `openshift.scc.install` defaults to false, so a `helm upgrade` to it no
 * longer renders the SCC the older chart installed and helm deletes it (K8S helm chart
 * values.yaml history: true up to 7.8.6-15, false at 7.22.0-11; redis-facts.md §12).
 */
export const CHART_SCC_DEFAULT_OFF_FROM = '7.22.0-11';

/** What the SCC planning reads of the plan's context. */
export function sccPlanInput(
  { snapshot, target, resolved }: PlanContext,
  cluster: ClusterSnapshot,
): SccPlanInput {
  return {
    snapshot,
    cluster,
    targetOperator: target.operator,
    targetTag: resolved.clusterTag.target,
    method: resolved.method,
    sccFile: releaseFile(resolved, target, 'openshift/scc.yaml'),
  };
}

export interface SccPlanInput {
  snapshot: Snapshot;
  cluster: ClusterSnapshot;
  targetOperator: string;
  targetTag: string | undefined;
  method: string;
  /** `openshift/scc.yaml` of the target release. */
  sccFile: string;
}

type Action = { description: string; command: string };
export type SccStepPlan = { skip: string } | { actions: Action[] };

function decisionOf(input: SccPlanInput) {
  return decideScc({
    platform: input.snapshot.platform,
    unprivilegedTarget: requiresUnprivileged(input.targetOperator),
    allowAutoAdjustment: input.cluster.allowAutoAdjustment,
    keepScc: false,
  });
}

function commands(input: SccPlanInput) {
  const kube = input.snapshot.kubeTarget;
  const ns = input.cluster.namespace;
  const sa = input.cluster.serviceAccountName;
  return {
    apply: kubectlApply(kube, input.sccFile, undefined, 'oc'),
    bind: oc(kube, 'adm', 'policy', 'add-scc-to-user', SCC_NAME, '-z', sa, '-n', ns),
    unbind: oc(kube, 'adm', 'policy', 'remove-scc-from-user', SCC_NAME, '-z', sa, '-n', ns),
    remove: oc(kube, 'delete', 'scc', SCC_NAME),
    get: oc(kube, 'get', 'scc', SCC_NAME, '-o', 'yaml'),
  };
}

/** True when the operator's helm upgrade itself deletes the SCC the older chart installed. */
export function helmUpgradeDeletesScc(input: SccPlanInput): boolean {
  return (
    input.method === 'helm' &&
    input.snapshot.scc?.helmOwned === true &&
    atLeast(input.targetOperator, CHART_SCC_DEFAULT_OFF_FROM)
  );
}

/** The security-context step: before the cluster step. */
export function planSccBeforeRoll(input: SccPlanInput): SccStepPlan {
  const decision = decisionOf(input);
  if (decision.kind === 'skip') return { skip: decision.reason };
  const { cluster, snapshot } = input;
  const oc = commands(input);
  const bind = {
    description: `Bind ${SCC_NAME} to the service account ${cluster.serviceAccountName} unless it is bound (ClusterRole and RoleBinding system:openshift:scc:${SCC_NAME})`,
    command: oc.bind,
  };
  if (decision.kind === 'keep') {
    return {
      actions: [
        {
          description: `Re-apply ${SCC_NAME} of ${input.targetOperator}: ${decision.why}`,
          command: oc.apply,
        },
        bind,
      ],
    };
  }
  const rolled = input.targetTag !== undefined && cluster.image.versionTag === input.targetTag;
  if (!rolled && helmUpgradeDeletesScc(input)) {
    return {
      actions: [
        {
          description: `Warning: the helm upgrade to chart ${input.targetOperator} deletes ${SCC_NAME} (openshift.scc.install defaults to false from ${CHART_SCC_DEFAULT_OFF_FROM}) while the pods still run the privileged template: re-apply it until the roll is over`,
          command: oc.apply,
        },
        bind,
      ],
    };
  }
  if (!rolled && !snapshot.scc?.present) {
    return {
      actions: [
        {
          description: `Re-apply ${SCC_NAME}: the pods still run the privileged template until they roll`,
          command: oc.apply,
        },
        bind,
      ],
    };
  }
  return { skip: `${SCC_NAME} stays until the cluster has rolled; the monitor step removes it then` };
}

/** The monitor step's removal, after the roll. Empty when nothing is removed. */
export function planSccAfterRoll(input: SccPlanInput): Action[] {
  if (decisionOf(input).kind !== 'remove-after-roll') return [];
  const present = input.snapshot.scc?.present === true || helmUpgradeDeletesScc(input);
  if (!present) return [];
  const oc = commands(input);
  const others = (input.snapshot.scc?.users ?? []).filter(
    (u) => u !== `system:serviceaccount:${input.cluster.namespace}:${input.cluster.serviceAccountName}`,
  );
  return [
    {
      description: `After the roll: unbind ${SCC_NAME} from the service account ${input.cluster.serviceAccountName} (its users entry or its RoleBinding)`,
      command: oc.unbind,
    },
    {
      description:
        others.length > 0
          ? `After the roll: keep ${SCC_NAME}, still used by ${others.join(', ')}`
          : `After the roll: delete ${SCC_NAME}, unless another namespace's cluster may still use it (RoleBindings and ClusterRoleBindings to system:openshift:scc:${SCC_NAME} or to any Role or ClusterRole granting use of it, users, groups: checked then)`,
      command: others.length > 0 ? oc.get : oc.remove,
    },
  ];
}
