/**
 * The planner: a pure function from (snapshot, target) to the Plan JSON of CLI.md (version 1).
 * For each of the seven steps it lists the actions, each with the command a person could run
 * instead (redis-facts.md §3), or says why the step will be skipped.
 */

import { createHash } from 'node:crypto';
import { dialectFields } from '../dialect.js';
import { UsageError } from '../errors.js';
import { STEP_IDS, type StepId } from '../steps/types.js';
import {
  ACTIVE_ACTIVE_UPGRADE_FROM,
  chartVersionFor,
  supportsActiveActiveUpgrade,
  webhookNameFor,
} from './catalog.js';
import { type CheckResult, isBlocked, runChecks } from './checks.js';
import { siblingLocation } from '../kube/bundle.js';
import {
  curlApi,
  type HelmUpgrade,
  helmUpgradeCommand,
  kubectl,
  kubectlApply,
  kubectlMergePatch,
  mergeBodies,
  patchAt,
  printManifest,
  shellQuote,
} from './commands.js';
import {
  assertSelectedDatabasesExist,
  type DatabaseTarget,
  helmReleaseLocation,
  formatRs,
  type Method,
  type ResolvedUpgrade,
  resolveUpgrade,
  upstreamFileUrl,
} from './resolve.js';
import { type ClusterSnapshot, type Platform, type Snapshot } from './snapshot.js';
import { planSccAfterRoll, planSccBeforeRoll, type SccPlanInput } from './plan-security-context.js';
import { DEFAULT_HELM_CHART, DEFAULT_HELM_REPO, type Target } from './target.js';
import {
  compareImageTags,
  compareOperatorVersions,
  parseImageTag,
  parseOperatorVersion,
} from './versions.js';

export interface PlanAction {
  description: string;
  command: string;
  /**
   * On the databases step's actions (an addition to CLI.md's shape): which database changes,
   * so the step reads it here instead of parsing `command`. `manual`: ctl cannot make the
   * change (Active-Active before 8.0.2-2); the step prints the procedure instead.
   */
  database?: PlanDatabase;
}

export interface PlanDatabase {
  kind: 'redb' | 'reaadb';
  name: string;
  namespace: string;
  /** The version the step writes into the resource (`7.4`). */
  version: string;
  manual: boolean;
}

export interface PlanStep {
  id: StepId;
  title: string;
  /** Why the step will do nothing; null when it has actions. */
  skip: string | null;
  actions: PlanAction[];
}

export interface PlanTarget {
  operator: string;
  clusterVersion: string | null;
  databaseVersion: string | null;
  method: Method;
  /**
   * What the user chose beyond the versions (an addition to CLI.md's shape): `run --plan`
   * takes it from here, so it does exactly what was planned, and the fingerprint covers it.
   */
  selection?: {
    databases: Target['databases'];
    ignoreChecks: string[];
    bundle: string | null;
    helm: { release: string | null; chart: string; repo: string };
  };
}

export interface Plan {
  apiVersion: 'ctl/v1';
  kind: 'UpgradePlan';
  cluster: {
    context: string;
    namespace: string;
    name: string;
    dialect: Snapshot['dialect'];
    platform: Platform;
  };
  current: {
    operator: string | null;
    clusterVersion: string | null;
    databases: { name: string; namespace: string; version: string | null }[];
  };
  target: PlanTarget;
  checks: CheckResult[];
  steps: PlanStep[];
  blocked: boolean;
  fingerprint: string;
}

export const STEP_TITLES: Record<StepId, string> = {
  preflight: 'Check the prerequisites',
  operator: 'Upgrade the operator',
  admission: 'Reapply the admission webhook',
  'security-context': 'Keep the OpenShift SCC admitting the cluster pods until they roll',
  cluster: 'Upgrade the cluster',
  monitor: 'Wait for the rolling upgrade, then remove an OpenShift SCC no longer needed',
  databases: 'Upgrade the databases',
};

/**
 * Builds the plan. Throws UsageError only for inputs the user must change (a database name
 * that does not exist, a bundle that cannot be located); everything about the cluster is a check.
 */
export function buildPlan(snapshot: Snapshot, target: Target): Plan {
  assertSelectedDatabasesExist(snapshot, target);
  const resolved = resolveUpgrade(snapshot, target);
  if (resolved.method === 'bundle' && !resolved.bundle && !operatorIsCurrent(resolved)) {
    throw new UsageError(`there is no trustworthy upstream bundle for operator ${target.operator}`, {
      hint: 'Pass --bundle <file|url> with the bundle of that release.',
    });
  }
  const checks = runChecks(snapshot, target, resolved);
  const planTarget: PlanTarget = {
    operator: target.operator,
    clusterVersion: resolved.clusterTag.target ?? null,
    databaseVersion: resolved.databaseVersion ?? null,
    method: resolved.method,
    selection: {
      databases: target.databases,
      ignoreChecks: [...target.ignoreChecks],
      bundle: target.bundle ?? null,
      helm: { release: target.helm.release ?? null, chart: target.helm.chart, repo: target.helm.repo },
    },
  };
  const context: StepContext = { snapshot, target, resolved, checks };
  return {
    apiVersion: 'ctl/v1',
    kind: 'UpgradePlan',
    cluster: {
      context: snapshot.context,
      namespace: snapshot.namespace,
      name: snapshot.cluster?.name ?? snapshot.requestedCluster ?? '',
      dialect: snapshot.dialect,
      platform: snapshot.platform,
    },
    current: {
      operator: snapshot.operator?.version ?? null,
      clusterVersion: snapshot.cluster?.image.versionTag ?? null,
      databases: resolved.databases.map((db) => ({
        name: db.name,
        namespace: db.namespace,
        version: db.current ?? null,
      })),
    },
    target: planTarget,
    checks,
    steps: STEP_IDS.map((id) => planStep(id, context)),
    blocked: isBlocked(checks),
    fingerprint: planFingerprint(snapshot, planTarget),
  };
}

interface StepContext {
  snapshot: Snapshot;
  target: Target;
  resolved: ResolvedUpgrade;
  checks: CheckResult[];
}

type StepPlan = { skip: string } | { actions: PlanAction[] };

const STEP_PLANNERS: Record<StepId, (context: StepContext, cluster: ClusterSnapshot) => StepPlan> = {
  preflight: planPreflight,
  operator: planOperator,
  admission: planAdmission,
  'security-context': planSecurityContext,
  cluster: planCluster,
  monitor: planMonitor,
  databases: planDatabases,
};

function planStep(id: StepId, context: StepContext): PlanStep {
  const cluster = context.snapshot.cluster;
  const result: StepPlan = cluster
    ? STEP_PLANNERS[id](context, cluster)
    : { skip: 'no cluster resource found (cluster-found)' };
  if ('skip' in result) return { id, title: STEP_TITLES[id], skip: result.skip, actions: [] };
  if (result.actions.length === 0) return { id, title: STEP_TITLES[id], skip: 'nothing to do', actions: [] };
  return { id, title: STEP_TITLES[id], skip: null, actions: result.actions };
}

const action = (description: string, command: string): PlanAction => ({ description, command });

// ---- preflight

function planPreflight({ snapshot, target, checks }: StepContext, cluster: ClusterSnapshot): StepPlan {
  const flags = [
    `--to ${target.operator}`,
    `-n ${shellQuote(snapshot.namespace)}`,
    `--cluster ${shellQuote(cluster.name)}`,
  ];
  return {
    actions: [
      action(
        `Re-run the ${checks.length} checks against the live cluster`,
        `ctl upgrade plan ${flags.join(' ')}`,
      ),
      action(
        'Save the cluster resource before anything changes',
        `${kubectl('get', 'rec', cluster.name, '-n', cluster.namespace, '-o', 'yaml')} > ${shellQuote(`${cluster.name}-backup.yaml`)}`,
      ),
    ],
  };
}

// ---- operator

function operatorIsCurrent(resolved: ResolvedUpgrade): boolean {
  const current = resolved.operator.current ? parseOperatorVersion(resolved.operator.current) : undefined;
  const wanted = parseOperatorVersion(resolved.operator.target);
  return Boolean(current && wanted && compareOperatorVersions(current, wanted) >= 0);
}

function planOperator({ snapshot, target, resolved }: StepContext, cluster: ClusterSnapshot): StepPlan {
  if (operatorIsCurrent(resolved)) return { skip: `the operator already runs ${resolved.operator.current}` };
  const deployment = snapshot.operator?.deploymentName ?? 'redis-enterprise-operator';
  const ns = operatorNamespace(snapshot);
  const actions: PlanAction[] = [];
  if (resolved.method === 'helm') {
    const helm = helmUpgradeOf(snapshot, target);
    actions.push(
      action(
        `Upgrade helm release ${helm.release} to chart ${helm.chartVersion} (operator ${target.operator}; the chart upgrades the CRDs; helm before 3.14 has no --reset-then-reuse-values)`,
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
    const command = ['multi-namespace-redb/role.yaml', 'multi-namespace-redb/role_binding.yaml']
      .map(
        (file) =>
          `${printManifest(releaseFile(resolved, target, file))} | ${sed} | ${kubectlApply('-', watched)}`,
      )
      .join(' && ');
    actions.push(
      action(`Reapply the operator's Role and RoleBinding redb-role in namespace ${watched}`, command),
    );
  }
  return { actions };
}

/** Where the operator runs; the admission webhook and its Secret live there too. */
function operatorNamespace(snapshot: Snapshot): string {
  return snapshot.operator?.namespace ?? snapshot.namespace;
}

/**
 * A file of the release tree: next to the bundle (`--bundle`/CTL_BUNDLE, or the upstream one),
 * as the steps find it (src/kube/bundle.ts siblingLocation).
 */
function releaseFile(resolved: ResolvedUpgrade, target: Target, file: string): string {
  return resolved.bundle ? siblingLocation(resolved.bundle, file) : upstreamFileUrl(target.operator, file);
}

/**
 * The helm upgrade the operator step runs (src/steps/operator.ts helmSettings, with the settings
 * `ctl upgrade run` gives it): a `<repo>/<chart>` reference becomes `<chart> --repo <url>`, so
 * the user's helm repositories are neither needed nor changed.
 */
function helmUpgradeOf(snapshot: Snapshot, target: Target): HelmUpgrade {
  const { release, namespace } = helmReleaseLocation(snapshot, target.helm.release);
  const chart = target.helm.chart;
  const repoUrl = target.helm.repo !== DEFAULT_HELM_REPO ? target.helm.repo : undefined;
  const common = {
    release,
    namespace,
    chartVersion: chartVersionFor(target.operator),
    openshift: snapshot.platform === 'openshift',
  };
  const bare = chart.slice(chart.indexOf('/') + 1);
  if (/^[A-Za-z0-9_-][A-Za-z0-9._-]*\/[A-Za-z0-9._-]+$/.test(chart)) {
    if (repoUrl) return { ...common, chart: bare, repo: repoUrl };
    if (chart === DEFAULT_HELM_CHART) return { ...common, chart: bare, repo: DEFAULT_HELM_REPO };
    return { ...common, chart, repo: undefined };
  }
  if (/^[A-Za-z0-9._-]+$/.test(chart) && repoUrl) return { ...common, chart, repo: repoUrl };
  return { ...common, chart, repo: undefined };
}

// ---- admission

/**
 * As the step does it: wait for the operator's Secret admission-tls, delete the pre-6.4.2
 * webhook, then apply the release's webhook.yaml once with every caBundle already set (the
 * upstream apply-then-patch leaves a window in which every database write is refused).
 */
function planAdmission({ snapshot, target, resolved }: StepContext): StepPlan {
  if (snapshot.webhooks.length === 0) return { skip: 'admission controller not enabled' };
  if (resolved.method === 'helm') return { skip: 'the helm chart manages the admission webhook' };
  const name = webhookNameFor(target.operator);
  const legacy = snapshot.webhooks.find((w) => w.name === 'redb-admission' && name !== 'redb-admission');
  const cert = snapshot.admissionTls.cert;
  const current = snapshot.webhooks.find((w) => w.name === name);
  const trusted = current?.webhooks.every((h) => cert !== undefined && h.caBundle === cert) ?? false;
  if (operatorIsCurrent(resolved) && !legacy && trusted) {
    return { skip: `${name} is current and trusts admission-tls` };
  }
  const ns = operatorNamespace(snapshot);
  const getCert = kubectl('get', 'secret', 'admission-tls', '-n', ns, '-o', 'jsonpath={.data.cert}');
  const webhook = releaseFile(resolved, target, 'admission/webhook.yaml');
  const actions: PlanAction[] = [
    action(
      "Wait for the operator to create Secret admission-tls (its cert is the webhook's CA)",
      `until [ -n "$(${getCert})" ]; do sleep 5; done`,
    ),
  ];
  if (legacy) {
    actions.push(
      action(
        'Delete the pre-6.4.2 webhook redb-admission',
        kubectl('delete', 'validatingwebhookconfiguration', 'redb-admission'),
      ),
    );
  }
  actions.push(
    action(
      `Apply the webhook ${name} of ${target.operator} for namespace ${ns} with its caBundle set from Secret admission-tls`,
      `CERT=$(${getCert}) && ${printManifest(webhook)} | sed -e 's/OPERATOR_NAMESPACE/${ns}/g' -e "s|caBundle:.*|caBundle: $CERT|" | ${kubectlApply('-')}`,
    ),
  );
  return { actions };
}

// ---- security-context

function planSecurityContext(context: StepContext, cluster: ClusterSnapshot): StepPlan {
  return planSccBeforeRoll(sccPlanInput(context, cluster));
}

function sccPlanInput({ snapshot, target, resolved }: StepContext, cluster: ClusterSnapshot): SccPlanInput {
  return {
    snapshot,
    cluster,
    targetOperator: target.operator,
    targetTag: resolved.clusterTag.target,
    method: resolved.method,
    sccFile: releaseFile(resolved, target, 'openshift/scc.yaml'),
  };
}

// ---- cluster

function planCluster({ snapshot, target, resolved }: StepContext, cluster: ClusterSnapshot): StepPlan {
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
  // Image specs pinned in the spec (rigger, bootstrapper) carry the operator's version.
  const pinned = Object.entries(cluster.otherImages).filter(([, image]) => image.versionTag !== undefined);
  const body = mergeBodies(
    patchAt([...fields.imageSpecPath, 'versionTag'], tag),
    ...pinned.map(([field]) => patchAt(['spec', field, 'versionTag'], target.operator)),
  );
  const also =
    pinned.length > 0 ? ` and ${pinned.map(([field]) => field).join(', ')} to ${target.operator}` : '';
  return {
    actions: [
      action(
        `Set ${fields.imageSpecPath.slice(1).join('.')}.versionTag from ${cluster.image.versionTag ?? '(default)'} to ${tag}${also}`,
        kubectlMergePatch('rec', cluster.name, cluster.namespace, body),
      ),
    ],
  };
}

// ---- monitor

function planMonitor(context: StepContext, cluster: ClusterSnapshot): StepPlan {
  const { resolved } = context;
  const tag = resolved.clusterTag.target;
  // On OpenShift, from 7.22.0-6: the SCC goes once the roll is over (plan-security-context.ts).
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
        kubectl('rollout', 'status', `sts/${cluster.name}`, '-n', ns, '--timeout=60m'),
      ),
      action(
        'Wait for the cluster state to go from Upgrade back to Running',
        `${kubectl('get', 'rec', cluster.name, '-n', ns, '-w')}`,
      ),
      action(
        `Check that every node runs RS ${formatRs(resolved.targetRs)}`,
        `${curlApi('GET', '/v1/nodes')} | jq -r '.[].software_version'`,
      ),
      ...sccRemoval,
    ],
  };
}

// ---- databases

function planDatabases({ snapshot, target, resolved }: StepContext, cluster: ClusterSnapshot): StepPlan {
  if (target.databases.kind === 'none') return { skip: 'not selected (--databases none)' };
  if (resolved.databases.length === 0) return { skip: 'the cluster has no database resources' };
  const changing = resolved.databases.filter((db) => db.target !== undefined);
  if (changing.length === 0) {
    return { skip: `no database needs a change (${summarizeReasons(resolved.databases)})` };
  }
  const fields = dialectFields(snapshot.dialect);
  return {
    actions: changing.map((db): PlanAction => {
      const version = db.target as string;
      const from = db.current ? ` from ${db.current}` : '';
      const database = (kind: PlanDatabase['kind'], manual: boolean): PlanDatabase => ({
        kind,
        name: db.name,
        namespace: db.namespace,
        version,
        manual,
      });
      if (db.kind === 'database') {
        return {
          ...action(
            `Upgrade database ${db.namespace}/${db.name}${from} to ${version}`,
            kubectlMergePatch('redb', db.name, db.namespace, patchAt(fields.databaseVersionPath, version)),
          ),
          database: database('redb', false),
        };
      }
      if (supportsActiveActiveUpgrade(target.operator)) {
        return {
          ...action(
            `Upgrade Active-Active database ${db.namespace}/${db.name}${from} to ${version} (set on this participating cluster only; every participating cluster must run operator ${ACTIVE_ACTIVE_UPGRADE_FROM} or newer)`,
            kubectlMergePatch(
              'reaadb',
              db.name,
              db.namespace,
              patchAt(fields.activeActiveVersionPath, version),
            ),
          ),
          database: database('reaadb', false),
        };
      }
      return {
        ...action(
          `Upgrade Active-Active database ${db.name}${from} to ${version} by hand on each participating cluster (operators before ${ACTIVE_ACTIVE_UPGRADE_FROM} cannot)`,
          kubectl(
            'exec',
            '-it',
            `${cluster.name}-0`,
            '-n',
            cluster.namespace,
            '--',
            'rladmin',
            'upgrade',
            'db',
            db.name,
            'redis_version',
            version,
          ),
        ),
        database: database('reaadb', true),
      };
    }),
  };
}

function summarizeReasons(databases: DatabaseTarget[]): string {
  const byReason = new Map<string, string[]>();
  for (const db of databases) {
    const reason = db.reason ?? 'unchanged';
    byReason.set(reason, [...(byReason.get(reason) ?? []), db.name]);
  }
  return [...byReason]
    .map(
      ([reason, names]) => `${names.length > 3 ? `${names.length} databases` : names.join(', ')}: ${reason}`,
    )
    .join('; ');
}

// ---- fingerprint

/**
 * sha256 of what the plan depends on. Spec-bearing objects contribute their uid and generation
 * (not resourceVersion: the operator rewrites statuses all the time, which would make every
 * saved plan stale at once) plus the status facts the checks read; secrets, config maps and the
 * SCC, which have no generation, contribute their resourceVersion. The target is part of it, so
 * `run --plan` recomputes it from the saved plan's `target` and a fresh snapshot.
 */
export function planFingerprint(snapshot: Snapshot, target: PlanTarget): string {
  const c = snapshot.cluster;
  const o = snapshot.operator;
  const inputs = {
    target,
    context: snapshot.context,
    namespace: snapshot.namespace,
    dialect: snapshot.dialect,
    platform: snapshot.platform,
    cluster: c && {
      name: c.name,
      uid: c.uid,
      generation: c.generation,
      state: c.state,
      specStatus: c.specStatus,
      license: c.license?.state,
      tag: c.image.versionTag,
    },
    operator: o && { uid: o.uid, generation: o.generation, image: o.image },
    helm: snapshot.helmRelease && {
      revision: snapshot.helmRelease.revision,
      status: snapshot.helmRelease.status,
    },
    operatorConfig: snapshot.operatorConfig.resourceVersion,
    watchedNamespaces: [...snapshot.watchedNamespaces].sort(),
    databases: [...snapshot.databases, ...snapshot.activeActiveDatabases]
      .map((db) => [
        `${db.namespace}/${db.name}`,
        db.uid,
        db.generation,
        'statusVersion' in db ? db.statusVersion : undefined,
      ])
      .sort(byFirst),
    webhooks: snapshot.webhooks.map((w) => [w.name, w.uid, w.generation]).sort(byFirst),
    admissionTls: snapshot.admissionTls.resourceVersion,
    scc: snapshot.scc && [snapshot.scc.present, snapshot.scc.resourceVersion],
    api: {
      reachable: snapshot.api.reachable,
      nodes: snapshot.api.nodes.map((n) => n.software_version).sort(),
      modules: snapshot.api.modules
        .map((m) => [m.module_name, m.semantic_version, Object.keys(m.platforms ?? {}).sort()])
        .sort(byFirst),
      bdbs: snapshot.api.bdbs.map((b) => [b.uid, b.redis_version ?? b.engine_version]).sort(byFirst),
    },
  };
  return `sha256:${createHash('sha256').update(canonicalJson(inputs)).digest('hex')}`;
}

function byFirst(a: unknown[], b: unknown[]): number {
  const x = String(a[0]);
  const y = String(b[0]);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** JSON with object keys sorted at every level and undefined dropped: the same input, the same text. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
