/**
 * The operator step's plan, pure, from the snapshot and the target (the run half re-reads live
 * state): the upgrade by its method as the commands a person would run, the wait for the
 * rollout, and `redb-role` re-applied in every other watched namespace.
 */

import { chartVersionFor } from '../release/catalog.js';
import type { ClusterSnapshot } from '../planning/snapshot.js';
import {
  type HelmUpgrade,
  helmUpgradeCommand,
  kubectl,
  kubectlApply,
  printManifest,
} from '../planning/equivalent-commands.js';
import { operatorImageOverrides } from '../planning/helm-values.js';
import { olmUpgradeCommands } from '../planning/olm.js';
import { operatorAtTargetNotReady, operatorStepIsDone } from '../planning/operator-current.js';
import {
  type PlanAction,
  type PlanContext,
  type StepPlan,
  action,
  operatorNamespace,
  releaseFile,
} from '../planning/plan.js';

export function planOperator(
  { snapshot, target, resolved }: PlanContext,
  cluster: ClusterSnapshot,
): StepPlan {
  if (operatorStepIsDone(snapshot.operator, resolved))
    return { skip: `the operator already runs ${resolved.operator.current}` };
  const deployment = snapshot.operator?.deploymentName ?? 'redis-enterprise-operator';
  const ns = operatorNamespace(snapshot);
  const actions: PlanAction[] = [];
  if (snapshot.operator && operatorAtTargetNotReady(snapshot.operator, resolved)) {
    // At the target but not up: not done. Applied again and awaited, as the run step does.
    const { readyReplicas, replicas } = snapshot.operator;
    actions.push(
      action(
        `The operator already runs ${target.operator} but is not ready (${readyReplicas}/${replicas}): the run applies it again and waits for it; see why`,
        kubectl(snapshot.kubeTarget, 'describe', 'deployment', deployment, '-n', ns),
      ),
    );
  }
  if (resolved.method === 'olm') {
    // What the run does through OLM, as the commands a person would run instead (operator-olm.ts).
    const steps = snapshot.olm
      ? olmUpgradeCommands(snapshot.kubeTarget, snapshot.olm, ns, target.operator)
      : [];
    actions.push(...steps.map((step) => action(step.description, step.command)));
  } else if (resolved.method === 'helm') {
    const overrides = operatorImageOverrides(
      snapshot.helmRelease?.pinnedOperatorImage ?? {},
      target.operator,
    );
    const helm: HelmUpgrade = {
      ...resolved.helm,
      chartVersion: chartVersionFor(target.operator),
      openshift: snapshot.platform === 'openshift',
      set: overrides.set,
    };
    const pins = overrides.notes.length > 0 ? `; ${overrides.notes.join('; ')}` : '';
    actions.push(
      action(
        `Upgrade helm release ${helm.release} to chart ${helm.chartVersion} (operator ${target.operator}; the chart upgrades the CRDs; helm before 3.14 has no --reset-then-reuse-values${pins})`,
        helmUpgradeCommand(snapshot.kubeTarget, helm),
      ),
    );
  } else {
    const bundle = resolved.bundle ?? 'BUNDLE_FILE';
    actions.push(
      action(
        `Apply the operator bundle of ${target.operator} (CRDs, RBAC, Deployment), server-side`,
        kubectlApply(snapshot.kubeTarget, bundle, ns),
      ),
    );
  }
  actions.push(
    action(
      `Wait for the operator ${target.operator} to be ready`,
      kubectl(
        snapshot.kubeTarget,
        'rollout',
        'status',
        `deployment/${deployment}`,
        '-n',
        ns,
        '--timeout=10m',
      ),
    ),
  );
  // The operator's role in other namespaces is not in the bundle or chart: reapply it (multi-namespace.md).
  const sed = `sed -e 's/NAMESPACE_OF_SERVICE_ACCOUNT/${snapshot.namespace}/g' -e 's/NAME_OF_REC_SERVICE_ACCOUNT/${cluster.serviceAccountName}/g'`;
  for (const watched of snapshot.watchedNamespaces.filter((n) => n !== snapshot.namespace)) {
    const applyFile = (file: string): string =>
      `${printManifest(releaseFile(resolved, target, file))} | ${sed} | ${kubectlApply(snapshot.kubeTarget, '-', watched)}`;
    // roleRef is immutable: a binding that points at another role (a ClusterRole) is kept.
    const ref = `REF=$(${kubectl(snapshot.kubeTarget, 'get', 'rolebinding', 'redb-role', '-n', watched, '--ignore-not-found', '-o', 'jsonpath={.roleRef.kind}/{.roleRef.name}')})`;
    const binding = `${ref}; if [ -z "$REF" ] || [ "$REF" = Role/redb-role ]; then ${applyFile('multi-namespace-redb/role_binding.yaml')}; else echo "keeping RoleBinding redb-role ($REF): roleRef cannot change"; fi`;
    const command = `${applyFile('multi-namespace-redb/role.yaml')} && ${binding}`;
    actions.push(
      action(
        `Reapply the operator's Role and RoleBinding redb-role in namespace ${watched} (a RoleBinding bound to another role is kept)`,
        command,
      ),
    );
  }
  return { actions };
}
