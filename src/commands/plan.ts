import { chmod, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { AuthError, type CtlError, ExitCode, OperationError, PreflightError, UsageError } from '../errors.js';
import { oneLine, safeJson } from '../io/safe-text.js';
import type { HelmClientProbe } from '../exec/helm-probe.js';
import type { Plan } from '../planning/plan.js';
import type { SessionInput, UpgradeSession } from './session.js';
import type { Snapshot, SnapshotDeps } from '../planning/snapshot.js';
import type { StateStoreKind } from '../planning/state-store-kind.js';
import { resolveSelection, type Target, type TargetSelection } from '../planning/target.js';
import { noClusterError } from './no-cluster.js';
import { NO_PLAN_ARGS, nextPlanCommand, nextRunCommand, type PlanArgs } from './next-command.js';

export interface PlanResult {
  snapshot: Snapshot;
  plan: Plan;
}

/**
 * Reads the cluster once and plans: shared by `plan`, `run` and `demo`. `stateStore` is the
 * run's `--state-store`: `configmap` makes its ConfigMap and Lease permissions part of the check.
 * `maxHops` (`--max-hops`) bounds a multi-hop upgrade (src/planning/hops.ts).
 */
export async function readAndPlan(
  session: UpgradeSession,
  target: Target,
  stateStore?: StateStoreKind,
  maxHops?: number,
  helmBin: string = session.env.CTL_HELM || 'helm',
): Promise<PlanResult> {
  // What each target of the path needs fetched is asked for before planning, and the plan is
  // made with the answers (the target-available check), so a missing release fails here, not
  // in the change window. The final target's artifact needs only the flags, the method and the
  // platform: it is asked for as soon as the snapshot's first answers settle those, beside the
  // rest of the snapshot (one round trip less before planning).
  const { ArtifactProbes } = await import('../planning/target-available.js');
  const { methodOf } = await import('../planning/resolve.js');
  const probes = new ArtifactProbes();
  // The helm client the operator step will call (check helm-available), asked only when helm
  // upgrades the operator: known from the same first answers, so `helm version` runs beside the
  // snapshot too.
  let helmClient: Promise<HelmClientProbe> | undefined;
  const askHelm = async (): Promise<HelmClientProbe> => {
    const { probeHelmClient } = await import('../exec/helm-probe.js');
    return probeHelmClient(helmBin, session.env);
  };
  const read = await readClusterSnapshot(session, {
    stateStore,
    onOperatorKnown: (basis) => {
      probes.startFinal(target, basis);
      if (methodOf(target, basis) === 'helm') helmClient = askHelm();
    },
    readClusterCrd: target.userDefinedModules !== undefined,
  });
  const { planUpgradePath, releaseFilesRead } = await import('../steps/index.js');
  if (!read.cluster) return { snapshot: read, plan: planUpgradePath(read, target, maxHops) };
  // The hops' other targets are known once the path is: the path's route alone (the hops'
  // targets and the method) tells what to ask, and the hops are planned once, with the answers.
  const { planRoute } = await import('../planning/path-route.js');
  const route = planRoute(read, target, maxHops);
  const hopTargets = (route.hops ?? []).map((hop) => ({
    ...target,
    operator: hop.operator,
    clusterVersion: hop.clusterVersion ?? undefined,
  }));
  let snapshot = await probes.answer(read, [target, ...hopTargets], releaseFilesRead);
  if (route.target.method === 'helm') snapshot = { ...snapshot, helmClient: await (helmClient ?? askHelm()) };
  return { snapshot, plan: planUpgradePath(snapshot, target, maxHops) };
}

/**
 * The one read of the cluster a command plans from. `readClusterCrd`: --user-defined-modules is
 * given, so the cluster resource's CRD is read too (check modules-compatible).
 */
export async function readClusterSnapshot(
  session: UpgradeSession,
  options: Pick<SnapshotDeps, 'stateStore' | 'onOperatorKnown' | 'readClusterCrd'> = {},
): Promise<Snapshot> {
  const { stateStore, onOperatorKnown, readClusterCrd = false } = options;
  const { readSnapshot } = await import('../planning/snapshot.js');
  const { REQUIRED_PERMISSIONS } = await import('../steps/index.js');
  const snapshot = await readSnapshot({
    kube: session.reads,
    context: session.context,
    kubeTarget: session.loaded.selection,
    namespace: session.namespace,
    requestedNamespace: session.requestedNamespace,
    clusterName: session.clusterName,
    management: session.management,
    remoteClusters: session.remoteClusters,
    stateStore,
    requiredPermissions: REQUIRED_PERMISSIONS,
    onOperatorKnown,
    readClusterCrd,
  });
  // First contact: nothing is planned, recorded or changed on another cluster's API's word.
  const { apiIdentityMismatch } = await import('../planning/api-identity.js');
  const mismatch = apiIdentityMismatch(snapshot);
  if (mismatch && snapshot.cluster) {
    const here = `${snapshot.cluster.namespace}/${snapshot.cluster.name} (context ${snapshot.context})`;
    throw new UsageError(
      `the management API reached is not the one of ${oneLine(here)}: Kubernetes shows ${oneLine(mismatch.expected)}, the management API answered ${oneLine(mismatch.found)}`,
      {
        hint: `Point --api-url (or CTL_API_URL) at the management API of ${oneLine(here)}, or leave it unset so that ctl port-forwards to that cluster's own service. Nothing was recorded or changed.`,
      },
    );
  }
  return snapshot;
}

export interface PlanCommandInput extends SessionInput {
  /** Undefined without --to: list the targets instead. */
  target: Target | undefined;
  /** The flags beyond the versions, for listing the targets. */
  selection?: TargetSelection | undefined;
  out?: string | undefined;
  /** The run's `--state-store`, for the permissions check. */
  stateStore?: StateStoreKind | undefined;
  /** `--max-hops` (default 3). */
  maxHops?: number | undefined;
  /** The helm the run will call (`--helm-bin`, CTL_HELM, else helm from the PATH): check helm-available. */
  helmBin?: string | undefined;
  /** The plan-deciding flags given, repeated by the "Next:" command. */
  planArgs?: PlanArgs | undefined;
}

/**
 * `ctl upgrade plan`: the plan on stdout (text or JSON), --out saves it; exit 3 when blocked.
 * Without --to, the targets the cluster can reach (exit 0).
 */
export async function runPlanCommand(
  input: PlanCommandInput,
): Promise<import('../planning/targets.js').UpgradeTargets | undefined> {
  const { openSession } = await import('./session.js');
  // A plan makes a handful of management API requests: Node's own https carries them, not
  // undici, whose ~1 MB the command would load for them (docs/performance.md, issue 39).
  const session = await openSession({ ...input, transport: 'node-https' });
  try {
    if (!input.target) return await listTargetsCommand(input, session);
    const { plan, snapshot } = await readAndPlan(
      session,
      input.target,
      input.stateStore,
      input.maxHops,
      input.helmBin ?? (input.env.CTL_HELM || 'helm'),
    );
    if (!snapshot.cluster) throw await noClusterError(session.reads, snapshot);
    await addHelmReleases(plan, snapshot, input);
    if (input.out) {
      // Owner only, like the report; redacted like everything ctl prints (a catalog URL's token).
      await writeFile(input.out, `${input.io.redactor.redact(safeJson(plan, 2))}\n`, { mode: 0o600 });
      await chmod(input.out, 0o600);
    }
    if (input.io.output === 'json') input.io.json(plan);
    // -q: only errors (a blocked plan still says why, below); the exit code is the answer.
    else if (!input.io.quiet) {
      const { renderPlan } = await import('../planning/render-plan.js');
      const args = input.planArgs ?? NO_PLAN_ARGS;
      // Absolute, as a run's lines: the saved plan's line is pasted later, maybe elsewhere.
      const next = nextRunCommand(args, plan.target.operator, input.out, input.env);
      input.io.data(renderPlan(plan, input.io.color, { next }));
      if (input.out) input.io.info(`plan saved to ${resolve(input.out)}; run it with: ${next}`);
    }
    if (plan.blocked) throw planFailure(plan, snapshot);
    return undefined;
  } finally {
    await session.close();
  }
}

/** `ctl upgrade plan` without --to: one read of the cluster, every target planned from it. */
async function listTargetsCommand(
  input: PlanCommandInput,
  session: UpgradeSession,
): Promise<import('../planning/targets.js').UpgradeTargets> {
  if (input.out) {
    throw new UsageError('--out saves the plan of one target: pass --to', {
      hint: 'List the targets with ctl upgrade plan, then save one: ctl upgrade plan --to VERSION --out plan.json',
    });
  }
  const list = await readTargets(input, session);
  if (input.io.output === 'json') input.io.json(list);
  else if (!input.io.quiet) {
    const { renderTargets } = await import('../planning/render-targets.js');
    const args = input.planArgs ?? NO_PLAN_ARGS;
    input.io.data(
      renderTargets(list, input.io.color, (to) => nextPlanCommand(args, to, args.location, input.env)),
    );
  }
  return list;
}

/** The targets the cluster can reach, from one read of it (the list without --to; `ctl demo` picks from it). */
export async function readTargets(
  input: Pick<PlanCommandInput, 'stateStore' | 'selection' | 'maxHops' | 'io' | 'helmBin'>,
  session: UpgradeSession,
): Promise<import('../planning/targets.js').UpgradeTargets> {
  const selection = input.selection ?? resolveSelection({});
  const { methodOf } = await import('../planning/resolve.js');
  // The helm client, as `--to` asks it (check helm-available): without it every target of a
  // helm-installed operator was listed ready, and each `--to` then failed for want of helm.
  let helmClient: Promise<HelmClientProbe> | undefined;
  const read = await readClusterSnapshot(session, {
    stateStore: input.stateStore,
    onOperatorKnown: (basis) => {
      if (methodOf(selection, basis) !== 'helm') return;
      const helmBin = input.helmBin ?? (session.env.CTL_HELM || 'helm');
      helmClient = import('../exec/helm-probe.js').then(({ probeHelmClient }) =>
        probeHelmClient(helmBin, session.env),
      );
    },
    readClusterCrd: selection.userDefinedModules !== undefined,
  });
  if (!read.cluster) throw await noClusterError(session.reads, read);
  const snapshot = helmClient ? { ...read, helmClient: await helmClient } : read;
  const { listTargets } = await import('../planning/targets.js');
  const { planUpgradePath } = await import('../steps/index.js');
  const { DEFAULT_MAX_HOPS } = await import('../planning/hops.js');
  const list = listTargets(snapshot, selection, input.maxHops ?? DEFAULT_MAX_HOPS, planUpgradePath);
  const { helmAvailableReleases } = await import('../planning/helm-index.js');
  list.available.push(
    ...(await helmAvailableReleases(snapshot, selection, input.io)).filter(
      (release) => !list.available.some((known) => known.operator === release.operator),
    ),
  );
  return list;
}

/** Releases newer than the catalog that the helm repository offers, into the plan's `catalog.available`. */
async function addHelmReleases(plan: Plan, snapshot: Snapshot, input: PlanCommandInput): Promise<void> {
  if (!plan.catalog || !input.target) return;
  const { helmAvailableReleases } = await import('../planning/helm-index.js');
  const found = await helmAvailableReleases(snapshot, input.target, input.io);
  const catalog = plan.catalog;
  catalog.available.push(
    ...found.filter((release) => !catalog.available.some((known) => known.operator === release.operator)),
  );
}

/**
 * Why a blocked plan ends the command. A refused login or an untrusted certificate is not a
 * prerequisite to fix in the cluster: CLI.md gives them exit 4 and 1, so they win over exit 3.
 */
export function planFailure(plan: Plan, snapshot: Snapshot): CtlError {
  const api = plan.checks.find((c) => c.id === 'api-reachable');
  const failure = snapshot.api.failure;
  if (
    api?.status === 'fail' &&
    failure &&
    (failure.exitCode === ExitCode.auth || failure.exitCode === ExitCode.failed)
  ) {
    const message = `the management API could not be used: ${snapshot.api.error ?? 'no answer'}`;
    return failure.exitCode === ExitCode.auth
      ? new AuthError(message, { hint: failure.hint })
      : new OperationError(message, { hint: failure.hint });
  }
  return blockedError(plan);
}

export function blockedError(plan: Plan): PreflightError {
  const failing = plan.checks.filter((c) => c.status === 'fail');
  // Check messages quote the cluster (names, operator messages): one line each.
  const lines = failing.map(
    (c) => `${c.id}: ${oneLine(c.message)}${c.fix ? `\n    fix: ${oneLine(c.fix)}` : ''}`,
  );
  return new PreflightError(
    `the upgrade may not start: ${failing.length} check(s) failed\n  ${lines.join('\n  ')}`,
    {
      hint: ignorableHint(failing),
    },
  );
}

/**
 * Each fix, and --ignore-check only for the failed checks whose risk a person can knowingly take:
 * not for one the run cannot get past (no cluster, no management API, a release that is not
 * there: the check's `ignorable: false`).
 */
function ignorableHint(failing: readonly import('../planning/checks/index.js').CheckResult[]): string {
  const ignorable = failing.filter((c) => c.ignorable !== false).map((c) => c.id);
  if (ignorable.length === 0) return 'Apply each fix and plan again.';
  return `Apply each fix and plan again, or knowingly pass --ignore-check ${ignorable.join(' --ignore-check ')}.`;
}
