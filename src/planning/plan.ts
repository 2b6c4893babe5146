/**
 * The planner: a pure function from (snapshot, target) to the Plan JSON of CLI.md (version 1).
 * For each of the seven steps it lists the actions, each with the command a person could run
 * instead (redis-facts.md §3), or says why the step will be skipped.
 */

import type { StateStoreKind } from './state-store-kind.js';
import { createHash } from 'node:crypto';
import { siblingLocation } from '../kube/bundle.js';
import { assertReleaseFilesLocatable, type ReleaseFileUse } from './bundle-source.js';
import { upstreamFileUrl } from '../release/catalog.js';
import { type AvailabilityPrediction, predictAvailability } from './availability-prediction.js';
import { type CheckResult, isBlocked, runChecks } from './checks/index.js';
import { type PlanCatalog, planCatalog } from './catalog-notes.js';
import { type PlanParticipant, planParticipants } from './participants.js';
import { olmRoute } from './olm.js';
import { requiredPermissionsOf, type StepPermission } from './permissions.js';
import {
  assertSelectedDatabasesExist,
  type Method,
  type ResolvedUpgrade,
  resolveUpgrade,
} from './resolve.js';
import type { ClusterSnapshot, Platform, Snapshot } from './snapshot.js';
import { runsStep } from './step-selection.js';
import type { Target } from './target.js';
import type { UserDefinedModule } from './user-defined-modules-patch.js';

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
  /**
   * Active-Active only (an addition to CLI.md's shape): why the database is left as it is, a
   * participating cluster not yet able to run `version` (src/planning/active-active.ts). The
   * action's command is then the ctl command that upgrades it later.
   */
  heldBack?: string;
}

export interface PlanStep {
  id: string;
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
    helm: { release: string | null; chart: string | null; repo: string | null };
    /**
     * The run's `--state-store` the plan checked the permissions of (`configmap` adds its
     * ConfigMap and Lease): `run --plan` with another store is refused. Absent in older plans.
     */
    stateStore?: StateStoreKind;
    /**
     * `--user-defined-modules`: the file's content, which the cluster step sets in
     * spec.userDefinedModules (src/planning/user-defined-modules.ts). Absent when not given.
     */
    userDefinedModules?: UserDefinedModule[];
    /**
     * `--db-version` as given. Absent when not given: `target.databaseVersion` is then only the
     * target's default, and each database takes what its version field and the cluster's upgrade
     * policy allow (resolve.ts desiredVersion), as with --to.
     */
    databaseVersion?: string;
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
  /**
   * Set when OLM (OperatorHub) owns the operator (an addition to CLI.md's shape): the CSV that
   * owns its Deployment and the Subscription that upgrades it.
   */
  olm?: PlanOlm | undefined;
  checks: CheckResult[];
  steps: PlanStep[];
  blocked: boolean;
  fingerprint: string;
  /**
   * Only when the upgrade needs more than one hop (an addition to CLI.md's shape): every hop in
   * order, each planned from the cluster as the hops before it leave it (src/planning/hops.ts).
   * Then `target` is the final target, `checks` each check's worst outcome over the hops, and
   * `steps` the first hop's.
   */
  hops?: PlanHop[] | undefined;
  /**
   * The release catalog behind the plan (an addition to CLI.md's shape): its date and origin,
   * the advisories that concern this upgrade, newer releases the install method offers
   * (src/planning/catalog-notes.ts).
   */
  catalog?: PlanCatalog | undefined;
  /**
   * What the roll will do to each database (an addition to CLI.md's shape): stays available,
   * fails over, or goes down, pod by pod (src/planning/availability-prediction.ts); the check
   * `database-availability` warns about those that go down.
   */
  availability?: AvailabilityPrediction | undefined;
  /**
   * The remote participants of the Active-Active databases (an addition to CLI.md's shape):
   * which Secret's credentials went to which host, or why none did (src/planning/participants.ts).
   */
  participants?: PlanParticipant[] | undefined;
}

export interface PlanHop {
  /** 1 for the first hop. */
  hop: number;
  /** Why this hop comes before the target (`<check id>: <rule>`); null for the last hop. */
  reason: string | null;
  current: Plan['current'];
  target: PlanTarget;
  checks: CheckResult[];
  steps: PlanStep[];
  blocked: boolean;
}

export interface PlanOlm {
  installedCSV: string;
  subscription: {
    name: string;
    channel: string | null;
    approval: string | null;
    source: string | null;
    sourceNamespace: string | null;
    state: string | null;
  } | null;
  /** The InstallPlans waiting for approval, with the CSV each would install. */
  pendingInstallPlans: { name: string; csv: string | null }[];
  /** The CSV of the target release (from the PackageManifest's channels, else OLM's naming). */
  targetCSV: string;
  /** The head of the subscribed channel; null when the PackageManifest could not be read. */
  channelHead: string | null;
  /** The subscribed channel's head is the target CSV (no channel switch). */
  channelHasTarget: boolean;
  /** The channel the run subscribes to (the current one, or the one whose head is the target); null when none. */
  targetChannel: string | null;
  /** The unfinished InstallPlan of the target CSV, when OLM has made it already. */
  targetInstallPlan: { name: string; approved: boolean } | null;
}

function planOlm(snapshot: Snapshot, target: Target): PlanOlm | undefined {
  const olm = snapshot.olm;
  if (!olm) return undefined;
  const sub = olm.subscription;
  const route = olmRoute(olm, target.operator);
  return {
    installedCSV: sub?.installedCSV ?? olm.csv,
    subscription: sub
      ? {
          name: sub.name,
          channel: sub.channel ?? null,
          approval: sub.approval ?? null,
          source: sub.source ?? null,
          sourceNamespace: sub.sourceNamespace ?? null,
          state: sub.state ?? null,
        }
      : null,
    pendingInstallPlans: olm.installPlans
      .filter((plan) => plan.phase === 'RequiresApproval' && !plan.approved)
      .map((plan) => ({ name: plan.name, csv: plan.csvs[0] ?? null })),
    targetCSV: route.targetCsv,
    channelHead: route.channelHead ?? null,
    channelHasTarget: route.channelHasTarget,
    targetChannel: route.targetChannel ?? null,
    targetInstallPlan: route.plan ? { name: route.plan.name, approved: route.plan.approved } : null,
  };
}

/**
 * Builds the plan. Throws UsageError only for inputs the user must change (a database name
 * that does not exist, a bundle that cannot be located); everything about the cluster is a check.
 */
export function buildPlan(snapshot: Snapshot, target: Target, steps: readonly StepPlanner[]): Plan {
  assertSelectedDatabasesExist(snapshot, target);
  const resolved = resolveUpgrade(snapshot, target);
  const checks = runChecks(snapshot, target, { resolved, required: requiredPermissionsOf(steps) });
  const planTarget: PlanTarget = {
    operator: target.operator,
    clusterVersion: resolved.clusterTag.target ?? null,
    databaseVersion: resolved.databaseVersion ?? null,
    method: resolved.method,
    selection: {
      databases: target.databases,
      ignoreChecks: [...target.ignoreChecks],
      bundle: target.bundle ?? null,
      helm: {
        release: target.helm.release ?? null,
        chart: target.helm.chart ?? null,
        repo: target.helm.repo ?? null,
      },
      stateStore: snapshot.stateStore ?? 'file',
      ...(target.userDefinedModules ? { userDefinedModules: target.userDefinedModules } : {}),
      ...(target.databaseVersion ? { databaseVersion: target.databaseVersion } : {}),
    },
  };
  const context: PlanContext = { snapshot, target, resolved, checks };
  const planned = planSteps(steps, context);
  // Every file of the release tree the run will fetch, by the steps that act: located, or refused now.
  assertReleaseFilesLocatable(snapshot, target, releaseFilesOfPlan(steps, planned, context));
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
    ...(snapshot.olm ? { olm: planOlm(snapshot, target) } : {}),
    checks,
    steps: planned,
    blocked: isBlocked(checks),
    fingerprint: planFingerprint(snapshot, planTarget),
    catalog: planCatalog(snapshot, target),
    availability: predictAvailability(snapshot),
    ...(planParticipants(snapshot) ? { participants: planParticipants(snapshot) } : {}),
  };
}

/** What a step's `plan` sees: the snapshot, the target, what follows from both, and the checks. */
export interface PlanContext {
  snapshot: Snapshot;
  target: Target;
  resolved: ResolvedUpgrade;
  checks: CheckResult[];
}

/**
 * A step's plan: its actions, or why it will do nothing. `idleAlone`: actions the run makes only
 * when another step has work, with the reason to say when none has. A run whose plan has nothing
 * else to do ends before any step (src/commands/run-target-reached.ts), so such a step is then
 * skipped with that reason, and a cluster at the target stays "nothing to do".
 */
export type StepPlan = { skip: string } | { actions: PlanAction[]; idleAlone?: string };

/** The planning half of a step (src/steps/): pure, from the snapshot and the target. */
export interface StepPlanner {
  readonly id: string;
  readonly title: string;
  /** The Kubernetes permissions the step needs; the `permissions` check reviews them all. */
  readonly permissions: readonly StepPermission[];
  plan(context: PlanContext, cluster: ClusterSnapshot): StepPlan;
  /**
   * The files of the target's release tree the step's run reads whenever it acts (its plan has
   * actions), by method and state; absent when it reads none. The plan refuses a target whose
   * files it cannot locate when an acting step needs them (src/planning/bundle-source.ts).
   */
  releaseFiles?(context: PlanContext): ReleaseFileUse[];
}

/**
 * The release files the run of this plan reads: those of each step that acts (after `idleAlone`:
 * a run with nothing else to do ends before any step) and that the run selects (--only/--skip).
 */
export function releaseFilesOfPlan(
  steps: readonly StepPlanner[],
  planned: readonly PlanStep[],
  context: PlanContext,
): ReleaseFileUse[] {
  return steps.flatMap((step) => {
    const acts = planned.find((p) => p.id === step.id)?.skip === null;
    return acts && runsStep(context.target.steps, step.id) ? (step.releaseFiles?.(context) ?? []) : [];
  });
}

function planSteps(steps: readonly StepPlanner[], context: PlanContext): PlanStep[] {
  const cluster = context.snapshot.cluster;
  const planned = steps.map((step) => ({
    step,
    result: cluster ? step.plan(context, cluster) : { skip: 'no cluster resource found (cluster-found)' },
  }));
  // Preflight always re-checks and saves the cluster resource, so it never counts as work
  // (src/planning/target-reached.ts).
  const otherWork = planned.some(
    ({ step, result }) =>
      step.id !== 'preflight' && 'actions' in result && result.actions.length > 0 && !result.idleAlone,
  );
  return planned.map(({ step, result }) =>
    planStep(
      step,
      !otherWork && 'actions' in result && result.idleAlone ? { skip: result.idleAlone } : result,
    ),
  );
}

function planStep(step: StepPlanner, result: StepPlan): PlanStep {
  const { id, title } = step;
  if ('skip' in result) return { id, title, skip: result.skip, actions: [] };
  if (result.actions.length === 0) return { id, title, skip: 'nothing to do', actions: [] };
  return { id, title, skip: null, actions: result.actions };
}

export const action = (description: string, command: string): PlanAction => ({ description, command });

// ---- what several steps' plans need

export { operatorIsCurrent } from './operator-current.js';

/** Where the operator runs; the admission webhook and its Secret live there too. */
export function operatorNamespace(snapshot: Snapshot): string {
  return snapshot.operator?.namespace ?? snapshot.namespace;
}

/**
 * A file of the release tree: next to the bundle (`--bundle`/CTL_BUNDLE, or the upstream one),
 * as the steps find it (src/kube/bundle.ts siblingLocation).
 */
export function releaseFile(resolved: ResolvedUpgrade, target: Target, file: string): string {
  return resolved.bundle ? siblingLocation(resolved.bundle, file) : upstreamFileUrl(target.operator, file);
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
    olm: snapshot.olm && {
      csv: snapshot.olm.csv,
      channel: snapshot.olm.subscription?.channel,
      approval: snapshot.olm.subscription?.approval,
    },
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
  if (Array.isArray(value)) {
    // Lists without objects (the 10,000 databases' [name, uid, generation, version]) have no
    // keys to sort: JSON.stringify writes them as the recursion would, in one native call.
    if (holdsNoObject(value)) return JSON.stringify(value);
    return `[${value.map(canonicalJson).join(',')}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * True when a list holds only strings, finite or not numbers, booleans, null, undefined and
 * lists of those: JSON.stringify writes each of them exactly as canonicalJson does (undefined and
 * non-finite numbers as null), and there is no object whose keys would need sorting.
 */
function holdsNoObject(list: readonly unknown[]): boolean {
  for (const item of list) {
    if (item === null || item === undefined) continue;
    const type = typeof item;
    if (type === 'string' || type === 'number' || type === 'boolean') continue;
    if (Array.isArray(item) && holdsNoObject(item)) continue;
    return false;
  }
  return true;
}
