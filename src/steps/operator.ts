/**
 * Step `operator`: upgrade the operator the way it was installed, then wait until the new
 * operator runs (READY 1/1 on the target image) and its CRDs are served. Then, as the plan lists
 * it here, the Role and RoleBinding `redb-role` of the release are re-applied in every other
 * namespace the operator watches.
 *
 * Split by what each part decides:
 * - this module: the step (its permissions, its run: whether there is anything to do, which
 *   method upgrades the operator, then the roles, the rollout and the CRDs);
 * - ./operator-helm.ts: the helm upgrade (`helm upgrade`, the release's state and values);
 * - ./operator-bundle.ts: the server-side apply of the release bundle, CRDs first;
 * - ./operator-olm.ts: the Subscription's channel and the target's InstallPlan, never the
 *   Deployment;
 * - ./operator-redb-roles.ts: `redb-role` in the other watched namespaces;
 * - ./operator-rollout.ts: what the operator Deployment says and the wait for the new operator;
 * - ./operator-crds.ts: whether the CRDs are served after the upgrade;
 * - ./operator-plan.ts: the step's plan.
 *
 * Idempotent: an operator already on the target version and ready is skipped; a helm release
 * already deployed at the target chart is not upgraded again (only awaited); a release left
 * `pending-*` by a killed helm stops the step with the exact rollback to run.
 */

import type { KubeObject } from '../kube/reads.js';
import { waitForObject } from '../kube/watch.js';
import { readObject } from '../kube/write.js';
import { operatorReleaseFiles } from '../planning/bundle-source.js';
import { OPERATOR_DEPLOYMENT, type Snapshot } from '../planning/snapshot.js';
import { compareOperatorVersions, parseOperatorVersion } from '../release/versions.js';
import type { UpgradeDeps, UpgradeStep } from './deps.js';
import type { StepContext, StepResult } from '../run/step.js';
import { READ_VERBS, APPLY_VERBS, type StepPermission } from '../planning/permissions.js';
import { upgradeThroughBundle } from './operator-bundle.js';
import { verifyCrds } from './operator-crds.js';
import { upgradeThroughHelm } from './operator-helm.js';
import { type OlmUpgradeOutcome, upgradeThroughOlm } from './operator-olm.js';
import { planOperator } from './operator-plan.js';
import { reapplyRedbRoles } from './operator-redb-roles.js';
import { deploymentState, waitForOperatorRollout, type WaitFor } from './operator-rollout.js';

/** The Kubernetes permissions this step needs; the plan's `permissions` check reviews them. */
const PERMISSIONS: readonly StepPermission[] = [
  {
    group: 'apps',
    resource: 'deployments',
    verbs: READ_VERBS,
    scope: 'namespace',
    when: 'always',
    why: 'read the operator Deployment and wait for its rollout',
  },

  {
    group: 'apps',
    resource: 'deployments',
    verbs: APPLY_VERBS,
    scope: 'namespace',
    when: 'bundle',
    why: 'apply the operator Deployment of the bundle',
  },
  {
    group: '',
    resource: 'serviceaccounts',
    verbs: APPLY_VERBS,
    scope: 'namespace',
    when: 'bundle',
    why: 'apply the operator ServiceAccount of the bundle',
  },
  {
    group: '',
    resource: 'services',
    verbs: APPLY_VERBS,
    scope: 'namespace',
    when: 'bundle',
    why: 'apply the admission Service of the bundle',
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'roles',
    verbs: APPLY_VERBS,
    scope: 'namespace',
    when: 'bundle',
    why: 'apply the operator Role of the bundle',
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'rolebindings',
    verbs: APPLY_VERBS,
    scope: 'namespace',
    when: 'bundle',
    why: 'apply the operator RoleBinding of the bundle',
  },
  {
    group: 'apiextensions.k8s.io',
    resource: 'customresourcedefinitions',
    verbs: APPLY_VERBS,
    scope: 'cluster',
    when: 'bundle',
    why: 'apply the CRDs of the bundle',
  },

  {
    group: '',
    resource: 'secrets',
    verbs: ['list', 'create', 'update', 'patch', 'delete'],
    scope: 'namespace',
    when: 'helm',
    why: "store the helm release (helm's storage driver)",
  },
  {
    group: 'apps',
    resource: 'deployments',
    verbs: APPLY_VERBS,
    scope: 'namespace',
    when: 'helm',
    why: "upgrade the chart's operator Deployment",
  },
  {
    group: '',
    resource: 'serviceaccounts',
    verbs: APPLY_VERBS,
    scope: 'namespace',
    when: 'helm',
    why: "upgrade the chart's ServiceAccount",
  },
  {
    group: '',
    resource: 'services',
    verbs: APPLY_VERBS,
    scope: 'namespace',
    when: 'helm',
    why: "upgrade the chart's admission Service",
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'roles',
    verbs: APPLY_VERBS,
    scope: 'namespace',
    when: 'helm',
    why: "upgrade the chart's Role",
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'rolebindings',
    verbs: APPLY_VERBS,
    scope: 'namespace',
    when: 'helm',
    why: "upgrade the chart's RoleBinding",
  },
  {
    group: 'apiextensions.k8s.io',
    resource: 'customresourcedefinitions',
    verbs: APPLY_VERBS,
    scope: 'cluster',
    when: 'helm',
    why: "upgrade the chart's CRDs",
  },
  {
    group: 'admissionregistration.k8s.io',
    resource: 'validatingwebhookconfigurations',
    verbs: APPLY_VERBS,
    scope: 'cluster',
    when: 'helm',
    why: "upgrade the chart's admission webhook",
  },

  {
    group: 'operators.coreos.com',
    resource: 'subscriptions',
    verbs: [...READ_VERBS, 'patch'],
    scope: 'namespace',
    when: 'olm',
    why: "switch the Subscription's channel to the one whose head is the target",
  },
  {
    group: 'operators.coreos.com',
    resource: 'installplans',
    verbs: [...READ_VERBS, 'patch'],
    scope: 'namespace',
    when: 'olm',
    why: 'approve the InstallPlan of the target CSV',
  },
  {
    group: 'operators.coreos.com',
    resource: 'clusterserviceversions',
    verbs: READ_VERBS,
    scope: 'namespace',
    when: 'olm',
    why: 'wait for the target CSV to succeed and read its relatedImages',
  },
  {
    group: 'packages.operators.coreos.com',
    resource: 'packagemanifests',
    verbs: ['get'],
    scope: 'namespace',
    when: 'olm',
    why: 'find the channel whose head is the target CSV',
  },

  {
    group: 'rbac.authorization.k8s.io',
    resource: 'roles',
    verbs: APPLY_VERBS,
    scope: 'watched-namespaces',
    when: 'multi-namespace',
    why: 'reapply redb-role in each managed namespace',
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'rolebindings',
    verbs: APPLY_VERBS,
    scope: 'watched-namespaces',
    when: 'multi-namespace',
    why: 'reapply the redb-role binding in each managed namespace',
  },
];

export interface OperatorStepOptions {
  /** Injected by tests; default the resilient watch of src/kube/watch.ts. */
  wait?: WaitFor;
}

export function createOperatorStep(options: OperatorStepOptions = {}): UpgradeStep<'operator'> {
  const wait = options.wait ?? waitForObject;
  return {
    id: 'operator',
    title: 'Upgrade the operator',
    permissions: PERMISSIONS,
    plan: planOperator,
    releaseFiles: ({ snapshot, resolved }) => operatorReleaseFiles(snapshot, resolved),
    run: (ctx) => upgradeOperator(ctx, wait),
  };
}

export const operatorStep = createOperatorStep();

function atLeast(version: string | undefined, target: string): boolean {
  const a = version ? parseOperatorVersion(version) : undefined;
  const b = parseOperatorVersion(target);
  return Boolean(a && b && compareOperatorVersions(a, b) >= 0);
}

/** Where the operator Deployment is: from the snapshot, else the upstream name in the namespace. */
function operatorLocation(snapshot: Snapshot): { name: string; namespace: string } {
  return {
    name: snapshot.operator?.deploymentName ?? OPERATOR_DEPLOYMENT,
    namespace: snapshot.operator?.namespace ?? snapshot.namespace,
  };
}

// ---- the step

async function upgradeOperator(ctx: StepContext<UpgradeDeps>, wait: WaitFor): Promise<StepResult> {
  const { deps } = ctx;
  const { snapshot, plan, kube } = deps;
  const target = plan.target.operator;
  const method = plan.target.method;
  const { name, namespace } = operatorLocation(snapshot);
  const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name, namespace };

  const before = deploymentState(await readObject(kube, ref));
  if (before && atLeast(before.version, target)) {
    // Never a downgrade; at the target but not ready yet (a resumed run), apply again and wait.
    if (before.version !== target)
      return { skipped: `the operator already runs ${before.version}, newer than ${target}` };
    if (before.ready) return { skipped: `already at ${target}` };
  }
  if (ctx.previous?.intent) {
    ctx.progress(`resuming an interrupted operator upgrade (${describeIntent(ctx.previous.intent)})`);
  }

  const watched = snapshot.watchedNamespaces.filter((ns) => ns !== snapshot.namespace);

  let crdsToVerify: KubeObject[] | undefined;
  let olm: OlmUpgradeOutcome | undefined;
  if (method === 'olm') {
    // OLM owns the Deployment: only its Subscription and InstallPlan move it (operator-olm.ts).
    olm = await upgradeThroughOlm(ctx, wait, namespace);
  } else if (method === 'helm') {
    await upgradeThroughHelm(ctx, before?.version, watched);
  } else {
    crdsToVerify = await upgradeThroughBundle(ctx, namespace, before?.version, watched);
  }

  const rolesReapplied = await reapplyRedbRoles(ctx, watched);

  // Nothing was applied in dry-run, so there is no rollout to wait for.
  if (ctx.dryRun) {
    return {
      outcome: {
        dryRun: true,
        method,
        from: before?.version ?? null,
        to: target,
        rolesReapplied,
        ...(olm ? { olm } : {}),
      },
    };
  }

  const deployment = await waitForOperatorRollout(ctx, wait, { name, namespace }, target);
  const after = deploymentState(deployment);
  const crds = await verifyCrds(kube, crdsToVerify, ctx.deps.snapshot.kubeTarget);
  return {
    outcome: {
      operatorVersion: after?.version ?? target,
      image: after?.image ?? '',
      method,
      crds,
      rolesReapplied,
      ...(olm ? { olm } : {}),
    },
  };
}

function describeIntent(intent: Record<string, unknown>): string {
  return `${String(intent.method ?? '?')} from ${String(intent.from ?? '?')} to ${String(intent.to ?? '?')}`;
}
