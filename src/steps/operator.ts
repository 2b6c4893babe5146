/**
 * Step `operator`: upgrade the operator the way it was installed, then wait until the new
 * operator runs (READY 1/1 on the target image) and its CRDs are served.
 *
 * - helm: `helm upgrade <release> <chart> --version <v>` (+ `--set openshift.mode=true` on
 *   OpenShift). `--repo <url>` is used instead of a `helm repo add` in the user's helm config.
 *   `--reset-then-reuse-values` (helm >= 3.14) keeps the values the release was installed with
 *   on top of the new chart's defaults: plain `--reuse-values` would also keep the OLD chart's
 *   defaults (the old operator image among them), and no flag at all drops the user's values as
 *   soon as one `--set` is given. No `--wait`: ctl waits itself, with progress and its timeouts.
 * - bundle: server-side apply (force) of every object of the release bundle, CRDs first.
 * - olm: the Subscription's channel and the target's InstallPlan, never the Deployment
 *   (operator-olm.ts); then the same wait for the Deployment at the target.
 *
 * Then, as the plan lists it here, the Role and RoleBinding `redb-role` of the release are
 * re-applied in every other namespace the operator watches (multi-namespace.md: "on each
 * upgrade"): the new operator needs them as soon as it starts.
 *
 * Idempotent: an operator already on the target version and ready is skipped; a helm release
 * already deployed at the target chart is not upgraded again (only awaited); a release left
 * `pending-*` by a killed helm stops the step with the exact rollback to run.
 */

import { OperationError } from '../errors.js';
import { array, num, record } from '../json-read.js';
import { noReleaseFilesError } from '../planning/bundle-source.js';
import type { Helm } from '../exec/helm.js';
import { loadManifests, orderForApply } from '../kube/bundle.js';
import { displayLocation } from '../kube/download.js';
import { bindingDecision } from './redb-role-binding.js';
import { operatorImageOverrides, pinnedOperatorImage } from '../planning/helm-values.js';
import { below, HELM_WITH_RESET_THEN_REUSE } from '../planning/helm-client-rules.js';
import { readHelmValues, readHelmVersion } from './helm-client.js';
import type { KubeClients } from '../kube/client.js';
import type { KubeObject } from '../kube/reads.js';
import { CLUSTER_CRD_NAME, CLUSTER_RESOURCE, DATABASE_RESOURCE, OPERATOR_GROUP } from '../kube/reads.js';
import { waitForObject } from '../kube/watch.js';
import { readObject } from '../kube/write.js';
import { chartVersionFor } from '../release/catalog.js';
import { OPERATOR_DEPLOYMENT, type Snapshot, type ClusterSnapshot } from '../planning/snapshot.js';
import { compareOperatorVersions, parseOperatorVersion } from '../release/versions.js';
import { UpgradeDeps, UpgradeStep } from './deps.js';
import type { StepContext, StepResult } from '../run/step.js';
import type { HelmLocation } from '../planning/resolve.js';
import {
  type HelmUpgrade,
  helmUpgradeCommand,
  kubectl,
  kubectlApply,
  printManifest,
  helmUpgradeArgv,
} from '../planning/equivalent-commands.js';
import {
  type PlanAction,
  type PlanContext,
  type StepPlan,
  action,
  operatorNamespace,
  releaseFile,
} from '../planning/plan.js';
import { operatorAtTargetNotReady, operatorStepIsDone } from '../planning/operator-current.js';
import { READ_VERBS, APPLY_VERBS, type StepPermission } from '../planning/permissions.js';
import { olmUpgradeCommands, operatorVersionOfDeployment } from '../planning/olm.js';
import { type OlmUpgradeOutcome, upgradeThroughOlm } from './operator-olm.js';

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

export type WaitFor = typeof waitForObject;

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
    run: (ctx) => upgradeOperator(ctx, wait),
  };
}

export const operatorStep = createOperatorStep();

// ---- the operator Deployment

export interface DeploymentState {
  image: string;
  version: string | undefined;
  replicas: number;
  readyReplicas: number;
  updatedReplicas: number;
  /** Every pod of the Deployment, old and new (status.replicas): more than `replicas` mid-rollout. */
  totalReplicas: number;
  /** The Deployment controller has seen the current spec (observedGeneration >= generation). */
  observed: boolean;
  /** The rollout is complete: observed, every replica updated and ready, no old replica left. */
  ready: boolean;
}

/** What the operator Deployment says, the way `kubectl rollout status` judges it. */
export function deploymentState(deployment: KubeObject | undefined): DeploymentState | undefined {
  if (!deployment) return undefined;
  const spec = record(deployment.spec);
  const status = record(deployment.status);
  const containers = array(record(record(spec.template).spec).containers).map(record);
  const container = containers.find((c) => c.name === OPERATOR_DEPLOYMENT) ?? containers[0];
  const image = typeof container?.image === 'string' ? container.image : '';
  const replicas = num(spec.replicas) ?? 1;
  const readyReplicas = num(status.readyReplicas) ?? 0;
  const observed = (num(status.observedGeneration) ?? 0) >= (deployment.metadata?.generation ?? 0);
  const updatedReplicas = num(status.updatedReplicas) ?? 0;
  const ready =
    observed &&
    replicas > 0 &&
    updatedReplicas === replicas &&
    readyReplicas === replicas &&
    (num(status.replicas) ?? replicas) === replicas;
  return {
    image,
    version: operatorVersionOfDeployment(deployment, image),
    replicas,
    readyReplicas,
    updatedReplicas,
    totalReplicas: num(status.replicas) ?? replicas,
    observed,
    ready,
  };
}

/**
 * Progress of a rollout in words, for the wait's progress messages, in the order of `kubectl
 * rollout status`: new replicas, then old ones ending, then readiness. While an old pod is
 * still there, readyReplicas counts it too: `1/1 ready` then, followed by `0/1 ready` once it
 * went, read as going backwards (issue 34), so readiness is only said once only new pods remain.
 */
export function describeRollout(state: DeploymentState): string {
  if (!state.observed) return 'the Deployment controller has not picked up the new spec yet';
  if (state.updatedReplicas < state.replicas)
    return `${state.updatedReplicas}/${state.replicas} replicas updated`;
  const old = state.totalReplicas - state.updatedReplicas;
  if (old > 0) return `${old} old ${old === 1 ? 'replica' : 'replicas'} ending`;
  return `${Math.min(state.readyReplicas, state.replicas)}/${state.replicas} ready`;
}

function atLeast(version: string | undefined, target: string): boolean {
  const a = version ? parseOperatorVersion(version) : undefined;
  const b = parseOperatorVersion(target);
  return Boolean(a && b && compareOperatorVersions(a, b) >= 0);
}

/** Where the operator Deployment is: from the snapshot, else the upstream name in the namespace. */
export function operatorLocation(snapshot: Snapshot): { name: string; namespace: string } {
  return {
    name: snapshot.operator?.deploymentName ?? OPERATOR_DEPLOYMENT,
    namespace: snapshot.operator?.namespace ?? snapshot.namespace,
  };
}

// ---- the step

/** The bundle of the target release; the plan refuses a release without one before any run. */
function bundleToApply(deps: UpgradeDeps): string {
  if (deps.resolved.bundle) return deps.resolved.bundle;
  throw noReleaseFilesError(
    deps.resolved.operator.target,
    deps.snapshot.platform,
    'the operator is upgraded from the release bundle',
  );
}

async function upgradeOperator(ctx: StepContext<UpgradeDeps>, wait: WaitFor): Promise<StepResult> {
  const { deps, io } = ctx;
  const { snapshot, plan, kube, kubeWriter } = deps;
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
    const helm = deps.resolved.helm;
    const status = await readHelmRelease(deps.helm, helm.release, helm.namespace);
    if (status.status.startsWith('pending-')) {
      throw pendingReleaseError(helm.release, helm.namespace, status);
    }
    const chartVersion = chartVersionFor(target);
    if (status.status === 'deployed' && status.chartVersion === chartVersion) {
      ctx.progress(`helm release ${helm.release} is already deployed at chart ${chartVersion}`);
      if (watched.length > 0) await ctx.recordIntent({ method, to: target, roleNamespaces: watched });
    } else {
      await ctx.recordIntent({
        method,
        from: before?.version ?? null,
        to: target,
        release: helm.release,
        namespace: helm.namespace,
        chart: helm.chart,
        chartVersion,
        fromRevision: status.revision,
        roleNamespaces: watched,
      });
      // The values as they are now (helm get values): a pinned operator.image.tag would keep the
      // old operator under --reset-then-reuse-values, so it is overridden (helm-values.ts).
      const overrides = operatorImageOverrides(
        pinnedOperatorImage(await userValuesOf(deps.helm, helm.release, helm.namespace)),
        target,
      );
      for (const note of overrides.notes) ctx.warn(note);
      const args = await helmUpgradeArgs(
        deps.helm,
        helm,
        chartVersion,
        snapshot.platform === 'openshift',
        overrides.set,
      );
      if (args.warning) ctx.warn(args.warning);
      ctx.progress(`helm upgrade ${helm.release} to chart ${chartVersion}`);
      await deps.helm.change(args.argv);
    }
  } else {
    const location = bundleToApply(deps);
    const objects = orderForApply(await loadManifests(location, { namespace, signal: ctx.signal, io }));
    crdsToVerify = objects.filter((o) => o.kind === 'CustomResourceDefinition');
    await ctx.recordIntent({
      method,
      from: before?.version ?? null,
      to: target,
      // The state file holds no credential: the location as ctl prints it (user, password and
      // query values as ***).
      bundle: displayLocation(location),
      objects: objects.length,
      roleNamespaces: watched,
    });
    ctx.progress(`applying ${objects.length} objects of ${location}`);
    await kubeWriter.apply(objects);
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

  const deployment = await wait<KubeObject>({
    kube,
    path: `/apis/apps/v1/namespaces/${namespace}/deployments`,
    name,
    signal: ctx.signal,
    timeoutMs: deps.settings.timeoutMs,
    stallTimeoutMs: deps.settings.stallTimeoutMs,
    description: `the operator Deployment ${name} to run ${target}`,
    hint: `Look at the operator: kubectl rollout status deployment/${name} -n ${namespace}; kubectl describe deployment ${name} -n ${namespace}. Then run ctl again to resume.`,
    check: (object) => {
      const state = deploymentState(object);
      if (!state) return `deployment ${name} does not exist yet`;
      if (state.version !== target)
        return `the operator image is ${state.image || '(none)'}, not ${target} yet`;
      if (!state.ready) return `operator ${target}: ${describeRollout(state)}`;
      return true;
    },
    onProgress: (message) => ctx.progress(message),
  });
  const after = deploymentState(deployment);
  const crds = await verifyCrds(kube, crdsToVerify);
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

// ---- helm

export interface HelmReleaseStatus {
  /** Of the newest revision: `deployed`, `failed`, `pending-upgrade`, ... */
  status: string;
  revision: number | undefined;
  chartVersion: string | undefined;
  /** The newest revision that was deployed (or superseded since): what a rollback goes back to. */
  lastDeployedRevision: number | undefined;
}

/**
 * The release's newest revision, from `helm history` (helm 3 and 4 leave the chart out of
 * `helm status -o json`; the history names it as `<chart>-<version>`).
 */
async function readHelmRelease(helm: Helm, release: string, namespace: string): Promise<HelmReleaseStatus> {
  let stdout: string;
  try {
    ({ stdout } = await helm.read(['history', release, '--namespace', namespace, '--output', 'json']));
  } catch (error) {
    if (error instanceof OperationError && /release: not found/i.test(error.message)) {
      throw new OperationError(`helm release ${release} was not found in namespace ${namespace}`, {
        hint: `Pass --helm-release <name> (helm list -A shows the releases), or --method bundle when the operator was not installed with helm.`,
        cause: error,
      });
    }
    throw error;
  }
  return parseHelmHistory(stdout);
}

export function parseHelmHistory(stdout: string): HelmReleaseStatus {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    throw new OperationError('helm history printed something that is not JSON', {
      hint: 'Check that the helm binary is helm 3.8 or later (helm version).',
    });
  }
  const entries = array(json)
    .map(record)
    .map((e) => ({ ...e, revision: num(e.revision) }))
    .filter((e): e is Record<string, unknown> & { revision: number } => e.revision !== undefined)
    .sort((a, b) => b.revision - a.revision);
  const newest = entries[0];
  const deployed = entries.find((e) => e.status === 'deployed' || e.status === 'superseded');
  const chart = typeof newest?.chart === 'string' ? newest.chart : '';
  return {
    status: typeof newest?.status === 'string' ? newest.status : 'unknown',
    revision: newest?.revision,
    chartVersion: /-(v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)$/.exec(chart)?.[1],
    lastDeployedRevision: deployed?.revision,
  };
}

/** A release a killed helm left `pending-*`: every later upgrade fails until it is rolled back. */
function pendingReleaseError(release: string, namespace: string, status: HelmReleaseStatus): OperationError {
  const rollback =
    status.lastDeployedRevision !== undefined
      ? `helm rollback ${release} ${status.lastDeployedRevision} --namespace ${namespace}`
      : `helm history ${release} --namespace ${namespace}, then helm rollback ${release} <last deployed revision> --namespace ${namespace}`;
  return new OperationError(
    `helm release ${release} is stuck in ${status.status}${status.revision !== undefined ? ` (revision ${status.revision})` : ''}: an earlier helm run was killed before it finished`,
    { hint: `Roll it back with: ${rollback}. Then run ctl again to resume.` },
  );
}

/** The user-supplied values of the release, parsed (null when helm gives none). */
async function userValuesOf(helm: Helm, release: string, namespace: string): Promise<unknown> {
  const stdout = await readHelmValues(helm, release, namespace);
  try {
    return JSON.parse(stdout.trim() || 'null') as unknown;
  } catch {
    throw new OperationError(`helm get values ${release} printed something that is not JSON`, {
      hint: 'Check that the helm binary is helm 3.10 or later (helm version).',
    });
  }
}

async function helmUpgradeArgs(
  helm: Helm,
  target: HelmLocation,
  chartVersion: string,
  openshift: boolean,
  set: string[] = [],
): Promise<{ argv: string[]; warning?: string }> {
  const upgrade = { ...target, chartVersion, openshift, set };
  const version = await readHelmVersion(helm).catch(() => undefined);
  if (version === undefined || !below(version, HELM_WITH_RESET_THEN_REUSE)) {
    return { argv: helmUpgradeArgv(upgrade, true) };
  }
  return {
    argv: helmUpgradeArgv(upgrade, false),
    warning: openshift
      ? `helm ${version.join('.')} has no --reset-then-reuse-values: values set at install other than openshift.mode are not carried over (compare helm get values ${target.release} afterwards), or use helm 3.14 or later`
      : undefined,
  };
}

// ---- the multi-namespace Role and RoleBinding

const ROLE_FILES = ['multi-namespace-redb/role.yaml', 'multi-namespace-redb/role_binding.yaml'];

/** Server-side applies `redb-role` (Role and RoleBinding) of the release in each namespace. */
async function reapplyRedbRoles(ctx: StepContext<UpgradeDeps>, namespaces: string[]): Promise<string[]> {
  if (namespaces.length === 0) return [];
  const { snapshot, kube, resolved, target } = ctx.deps;
  const replacements = {
    NAMESPACE_OF_SERVICE_ACCOUNT: snapshot.namespace,
    NAME_OF_REC_SERVICE_ACCOUNT: snapshot.cluster?.serviceAccountName ?? snapshot.cluster?.name ?? '',
  };
  const files = await Promise.all(
    ROLE_FILES.map((file) =>
      loadManifests(releaseFile(resolved, target, file), { replacements, signal: ctx.signal, io: ctx.io }),
    ),
  );
  for (const namespace of namespaces) {
    ctx.progress(`re-applying Role and RoleBinding redb-role in namespace ${namespace}`);
    const objects: KubeObject[] = [];
    for (const object of files.flat().map((o) => ({ ...o, metadata: { ...o.metadata, namespace } }))) {
      if (object.kind === 'RoleBinding') {
        // roleRef is immutable: a binding to another role (a ClusterRole) is kept (redb-role-binding.ts).
        const live = await readObject(kube, {
          apiVersion: object.apiVersion ?? 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          name: object.metadata?.name ?? 'redb-role',
          namespace,
        });
        const decision = bindingDecision(live, object, namespace);
        if (!decision.apply) {
          ctx.warn(decision.warning, { namespace });
          continue;
        }
      }
      objects.push(object);
    }
    await ctx.deps.kubeWriter.apply(objects);
  }
  return namespaces;
}

// ---- the CRDs

const CRD_REF = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };

/**
 * Every CRD the bundle carries must exist and serve each version the bundle serves. After a
 * helm upgrade (the chart's CRDs are not visible to ctl) at least the cluster and database CRDs
 * must serve the versions ctl uses.
 */
async function verifyCrds(kube: KubeClients, fromBundle: KubeObject[] | undefined): Promise<string[]> {
  const expected =
    fromBundle && fromBundle.length > 0
      ? fromBundle.map((crd) => ({ name: crd.metadata?.name ?? '', versions: servedVersions(crd) }))
      : [
          { name: CLUSTER_CRD_NAME, versions: [CLUSTER_RESOURCE.version] },
          { name: `${DATABASE_RESOURCE.plural}.${OPERATOR_GROUP}`, versions: [DATABASE_RESOURCE.version] },
        ];
  const verified: string[] = [];
  for (const { name, versions } of expected) {
    const live = await readObject(kube, { ...CRD_REF, name });
    if (!live) {
      throw new OperationError(`the CRD ${name} does not exist after the operator upgrade`, {
        hint: `Apply the release's CRDs (kubectl apply -f <bundle.yaml>), then run ctl again to resume.`,
      });
    }
    const served = servedVersions(live);
    const missing = versions.filter((v) => !served.includes(v));
    if (missing.length > 0) {
      throw new OperationError(
        `the CRD ${name} does not serve ${missing.join(', ')} (it serves ${served.join(', ') || 'nothing'})`,
        {
          hint: `Apply the release's CRDs again (kubectl apply --server-side --force-conflicts -f <bundle.yaml>), then run ctl again to resume.`,
        },
      );
    }
    verified.push(name);
  }
  return verified;
}

function servedVersions(crd: KubeObject): string[] {
  return array(record(crd.spec).versions)
    .map(record)
    .filter((v) => v.served !== false && typeof v.name === 'string')
    .map((v) => v.name as string);
}

// ---- plan: pure, from the snapshot and the target (the run half re-reads live state)

function planOperator({ snapshot, target, resolved }: PlanContext, cluster: ClusterSnapshot): StepPlan {
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
        kubectl('describe', 'deployment', deployment, '-n', ns),
      ),
    );
  }
  if (resolved.method === 'olm') {
    // What the run does through OLM, as the commands a person would run instead (operator-olm.ts).
    const steps = snapshot.olm ? olmUpgradeCommands(snapshot.olm, ns, target.operator) : [];
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
        helmUpgradeCommand(helm),
      ),
    );
  } else {
    const bundle = resolved.bundle ?? '<bundle.yaml>';
    actions.push(
      action(
        `Apply the operator bundle of ${target.operator} (CRDs, RBAC, Deployment), server-side`,
        kubectlApply(bundle, ns),
      ),
    );
  }
  actions.push(
    action(
      `Wait for the operator ${target.operator} to be ready`,
      kubectl('rollout', 'status', `deployment/${deployment}`, '-n', ns, '--timeout=10m'),
    ),
  );
  // The operator's role in other namespaces is not in the bundle or chart: reapply it (multi-namespace.md).
  const sed = `sed -e 's/NAMESPACE_OF_SERVICE_ACCOUNT/${snapshot.namespace}/g' -e 's/NAME_OF_REC_SERVICE_ACCOUNT/${cluster.serviceAccountName}/g'`;
  for (const watched of snapshot.watchedNamespaces.filter((n) => n !== snapshot.namespace)) {
    const applyFile = (file: string): string =>
      `${printManifest(releaseFile(resolved, target, file))} | ${sed} | ${kubectlApply('-', watched)}`;
    // roleRef is immutable: a binding that points at another role (a ClusterRole) is kept.
    const ref = `REF=$(${kubectl('get', 'rolebinding', 'redb-role', '-n', watched, '--ignore-not-found', '-o', 'jsonpath={.roleRef.kind}/{.roleRef.name}')})`;
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
