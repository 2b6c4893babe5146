import { UsageError } from '../errors.js';
import type { Io } from '../io/io.js';
import type { Plan } from '../planning/plan.js';
import type { Snapshot } from '../planning/snapshot.js';
import { runsStep } from '../planning/step-selection.js';
import type { Target } from '../planning/target.js';
import { runThatStoppedInPreflight } from '../run/preflight-stopped.js';
import type { ClusterIdentity, UpgradeState } from '../run/state.js';
import type { StateStore } from '../run/state-store.js';
import { olmRunThatChangedNothing } from '../steps/operator-olm.js';
import { pastedRunCommand, recordedCommand, resumeCommand } from './next-command.js';
import type { RunCommandInput } from './run-input.js';
import type { SavedPlanRecord } from './run-saved-plan.js';
import type { UpgradeSession } from './session.js';
import { ctlTargetOf, type KubeTarget, kubectl } from '../planning/equivalent-commands.js';

// Where the run keeps its state, and which state it goes on from: the recorded run resumed, a
// recorded run that changed nothing replaced, another unfinished run refused, or a new one.

/** The file of --state (or the default path), or the ConfigMap and Lease of --state-store configmap. */
export async function openStateStore(
  input: RunCommandInput,
  session: UpgradeSession,
  identity: { context: string; namespace: string; cluster: string },
  localStatePath: string,
): Promise<StateStore> {
  const { ConfigMapStateStore } = await import('../run/state-store-configmap.js');
  const { withRedactedSaves } = await import('../run/state-store.js');
  const redact = (text: string): string => input.io.redactor.redact(text);
  const inCluster = new ConfigMapStateStore({
    kube: session.kube,
    namespace: identity.namespace,
    cluster: identity.cluster,
    leaseDurationSeconds: input.leaseDurationSeconds,
    warn: (message) => input.io.warn(message),
  });
  // Saved redacted, like all ctl writes (withRedactedSaves).
  if (input.stateStore === 'configmap') return withRedactedSaves(inCluster, redact);
  const { FileStateStore } = await import('../run/state-store.js');
  // The file store takes the cluster's Lease too: one upgrade of a cluster at a time, whatever --state.
  return withRedactedSaves(
    new FileStateStore(
      localStatePath,
      { lease: inCluster, debug: (message) => input.io.debug(1, message) },
      session.kube.selection,
    ),
    redact,
  );
}

/**
 * The state this run goes on from: the recorded one when it is this run (resumed, its steps whose
 * product is gone reopened), else a new one; a recorded run to another target that changed
 * nothing is replaced, one that changed something is refused (exit 2) with how to finish it.
 */
export async function chooseState(run: {
  io: Io;
  store: StateStore;
  identity: ClusterIdentity;
  snapshot: Snapshot;
  cluster: NonNullable<Snapshot['cluster']>;
  plan: Plan;
  target: Target;
  statePath: string;
  stepIds: string[];
  resumeCommand: string;
  /**
   * `--plan`: the saved plan, what the state records of it, and whether the run may go on only
   * as the recorded run that plan started (its staleness was let pass for that run's changes).
   */
  savedPlan?:
    | { plan: Plan; file: string; record: SavedPlanRecord; resumes: boolean; location: readonly string[] }
    | undefined;
}): Promise<UpgradeState> {
  const { io, store, identity, snapshot, cluster, plan, target, statePath, stepIds, resumeCommand } = run;
  const { savedPlan } = run;
  const { newState, firstUnfinishedStep, isFinished, currentHop } = await import('../run/state.js');
  const hopsRun = await import('./run-hops.js');
  let state = await store.load();
  const byContext = { byContext: store.kind === 'file' };
  const { checkStateBelongsHere, finishedRunOfAnotherCluster, reopenUnheldSteps, withIdentity } =
    await import('../run/cluster-identity.js');
  const elsewhere = state && finishedRunOfAnotherCluster(state, identity, statePath, byContext);
  if (elsewhere) {
    io.info(`${elsewhere}; that upgrade succeeded, so this run starts a new record there`);
    state = undefined;
  }
  if (state) {
    // Another cluster's state never resumes here; a done step whose product is gone runs again.
    checkStateBelongsHere(state, identity, statePath, byContext);
    const checked = reopenUnheldSteps(withIdentity(state, identity), {
      operatorVersion: snapshot.operator?.version,
      clusterVersionTag: cluster.image.versionTag,
    });
    for (const { step, why } of checked.reopened) io.warn(`running step ${step} again: ${why}`);
    state = checked.state;
  }
  const savedPlanRun = await import('./run-saved-plan.js');
  const resuming = state !== undefined && sameRun(state.target.operator, plan, isFinished(state));
  // The plan's staleness was let pass for the run it started: under the lock, that run must
  // still be the one recorded (another may have finished or replaced it since).
  if (
    savedPlan?.resumes &&
    !(resuming && state && savedPlanRun.startedFromSavedPlan(state, savedPlan.plan, false))
  ) {
    throw savedPlanRun.stalePlanError(savedPlan.file, savedPlan.plan, savedPlan.location);
  }
  if (state && resuming) {
    // Resumed without --plan, a run a saved plan started goes on only with that plan's selection.
    if (!savedPlan)
      await savedPlanRun.checkResumeKeepsSavedPlan(state, plan, statePath, ctlTargetOf(snapshot), (message) =>
        io.warn(message),
      );
    const hop = state.hops ? `${hopsRun.describeHop(state, currentHop(state))}, ` : '';
    // The first step this run will run: --only/--skip leave the others pending, not run.
    const selected = stepIds.filter((id) => runsStep(target.steps, id));
    io.info(
      `resuming the upgrade to ${plan.target.operator} at ${hop}step ${firstUnfinishedStep(state, selected) ?? '(all done)'}`,
    );
  } else {
    const unfinished = state && !isFinished(state) && state.target.operator !== plan.target.operator;
    const superseded =
      unfinished && state ? olmRunThatChangedNothing(state, snapshot.operator?.version, stepIds) : undefined;
    const stoppedInPreflight = unfinished && state ? runThatStoppedInPreflight(state, stepIds) : undefined;
    if (stoppedInPreflight) {
      io.info(
        `the run to ${state?.target.operator} recorded in ${statePath} ${stoppedInPreflight}: this run to ${plan.target.operator} replaces it`,
      );
    } else if (superseded) {
      io.info(
        `the run to ${state?.target.operator} recorded in ${statePath} stopped at the operator step having approved nothing (${superseded}): this run to ${plan.target.operator} replaces it`,
      );
    } else if (unfinished && state) {
      throw new UsageError(
        `an unfinished upgrade to ${state.target.operator} is recorded in ${statePath}; this run targets ${plan.target.operator}`,
        {
          hint: `Finish it (${recordedCommand(state.resumeCommand, 'ctl upgrade run') ?? 'ctl upgrade run with the options it was started with'}), or ${startOverAdvice(store, snapshot.kubeTarget)} to start over.`,
        },
      );
    }
    state = newState(
      identity,
      {
        operator: plan.target.operator,
        clusterVersion: plan.target.clusterVersion ?? undefined,
        databaseVersion: plan.target.databaseVersion ?? undefined,
        method: plan.target.method,
      },
      stepIds,
    );
    const hops = hopsRun.hopStatesOf(plan, target);
    if (hops) state = { ...state, hops, hop: 0 };
  }
  // The Next line of an earlier run that stopped in preflight is not this run's (run-end.ts).
  const { nextCommand: _earlierNext, ...current } = state;
  state = {
    ...current,
    planFingerprint: plan.fingerprint,
    resumeCommand,
    ...(savedPlan ? { savedPlan: savedPlan.record } : {}),
  };
  return state;
}

/** A delete that reaches the cluster of this run: it names the kubeconfig and context chosen. */
function startOverAdvice(store: StateStore, kube: KubeTarget): string {
  if (store.kind === 'file') return `delete ${store.location}`;
  const [, namespace, name] = store.location.split('/');
  return `run ${kubectl(kube, 'delete', 'configmap', name ?? 'NAME', '-n', namespace ?? 'NAMESPACE')}`;
}

function sameRun(recordedOperator: string, plan: Plan, finished: boolean): boolean {
  return recordedOperator === plan.target.operator && !finished;
}

/** The command that resumes this run: the same command line, or one built from the flags. */
export function resumeCommandFor(
  input: RunCommandInput,
  identity: { context: string; namespace: string; cluster: string },
  plan: Plan,
  statePath: string,
): string {
  // The same command again, so every flag (--databases, --bundle, --ignore-check, ...) holds;
  // argv carries no secret (there is no --password flag). It names the kubeconfig the run read
  // (pastedRunCommand): a fresh shell has no KUBECONFIG.
  if (input.argv && input.argv.length > 0) return resumeCommand(input.argv, input.env);
  const parts = ['upgrade', 'run', '--to', plan.target.operator];
  // The plan-deciding flags as given (--user-defined-modules <file>, --databases, --bundle, ...):
  // without them the resumed run would plan another upgrade, e.g. without the custom modules.
  parts.push(...(input.planArgs?.plan ?? []));
  if (input.globals.kubeconfig) parts.push('--kubeconfig', input.globals.kubeconfig);
  if (input.globals.context) parts.push('--context', identity.context);
  parts.push('-n', identity.namespace, '--cluster', identity.cluster);
  if (input.statePath) parts.push('--state', statePath);
  if (input.stateStore === 'configmap') parts.push('--state-store', 'configmap');
  if (input.remediate) parts.push('--remediate');
  for (const file of input.moduleFiles) parts.push('--module-file', file);
  if (input.yes) parts.push('--yes');
  return pastedRunCommand(parts, input.env);
}
