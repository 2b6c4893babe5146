import { UsageError } from '../errors.js';
import { knownManagementCluster } from '../planning/management-snapshot.js';
import { type ClusterIdentity, currentHop, isFinished, type UpgradeState } from './state.js';

/**
 * Which cluster a state belongs to (issue 28). Context, namespace and REC name are not enough:
 * every kubeadm cluster's context is `kubernetes-admin@kubernetes` and the docs' REC is `rec`,
 * so a run killed on cluster X was resumed on cluster Y, skipping Y's operator and cluster steps
 * as "already done". The REC's `metadata.uid` tells two clusters apart (the API server gives
 * every object a new one, so it also tells a re-created REC from the one upgraded). The management
 * API's cluster (GET /v1/cluster `name` and `created_time`, src/planning/management-snapshot.ts)
 * is recorded beside it: an `--api-url` that reaches another cluster's API, with the same names,
 * is refused too.
 */
export type RunIdentity = ClusterIdentity;

/**
 * Refuses (exit 2) a state recorded for another cluster: other names, or the same names with
 * another REC uid. A state written before ctl recorded the uid (no `lineage.recUid`) is adopted
 * when the names match: the done steps' products are checked next (reopenUnheldSteps), and the
 * uid is recorded with the next save.
 */
export function checkStateBelongsHere(
  state: UpgradeState,
  here: RunIdentity,
  location: string,
  options: { byContext: boolean },
): void {
  const recorded = state.lineage;
  const sameNames =
    (!options.byContext || recorded.context === here.context) &&
    recorded.namespace === here.namespace &&
    recorded.cluster === here.cluster;
  if (!sameNames) {
    // Its "done" steps were done on another cluster: resuming would skip them here.
    throw new UsageError(
      `${location} records an upgrade of ${describe(recorded)}, not of ${describe(here)}`,
      { hint: 'Pass the state file of this cluster (or none, for the default one) with --state.' },
    );
  }
  if (recorded.recUid && here.recUid && recorded.recUid !== here.recUid) {
    throw new UsageError(
      `${location} records an upgrade of another cluster with the same names: ${describe(recorded)} had uid ${recorded.recUid}, the cluster resource here has uid ${here.recUid}`,
      {
        hint: isSimulatorContext(here.context)
          ? // The common case on a simulator: stopped during a run, then started again (ctl sim up).
            `Its done steps were done there, not here: a simulated cluster started again (ctl sim up) is a new cluster under the same names, and the run recorded was on the one that stopped. To start over on this one, move ${location} aside (or delete it) and run again; to keep both records, give this one its own: --state NEW_FILE.`
          : `Its done steps were done there, not here. If this is another cluster (another kubeconfig with the same context name), give it its own state: --state NEW_FILE. If this cluster resource was deleted and created again, move ${location} aside and run again to start over.`,
      },
    );
  }
  const differs = managementDifference(recorded.managementCluster, here.managementCluster);
  if (differs) {
    throw new UsageError(
      `${location} records an upgrade of another Redis Enterprise cluster: its management API reported ${differs.field} ${differs.recorded}, the management API reached now reports ${differs.here}`,
      {
        hint: `Check that --api-url (or CTL_API_URL) points at the management API of ${describe(here)}, not another cluster's. If this cluster was recovered or created again, move ${location} aside and run again to start over.`,
      },
    );
  }
}

/**
 * Why `state` is a finished run of another cluster recorded under the same names, or undefined
 * (this cluster's, not finished, or under other names). Nothing of a finished run is resumed (a
 * new run starts its own record whatever it holds), so such a state is replaced, never a reason
 * to refuse the run: a rehearsal on a simulator started again (`ctl sim up`, a new REC uid under
 * the same names) was refused every time. An unfinished one is still refused (checkStateBelongsHere):
 * its steps are resumed on its own cluster.
 */
export function finishedRunOfAnotherCluster(
  state: UpgradeState,
  here: RunIdentity,
  location: string,
  options: { byContext: boolean },
): string | undefined {
  if (!isFinished(state)) return undefined;
  const recorded = state.lineage;
  const sameNames =
    (!options.byContext || recorded.context === here.context) &&
    recorded.namespace === here.namespace &&
    recorded.cluster === here.cluster;
  if (!sameNames) return undefined;
  try {
    checkStateBelongsHere(state, here, location, options);
    return undefined;
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
}

/** The first identity field both sides know and disagree on (a field one side lacks decides nothing). */
function managementDifference(
  recorded: RunIdentity['managementCluster'],
  here: RunIdentity['managementCluster'],
): { field: string; recorded: string; here: string } | undefined {
  if (!recorded || !here) return undefined;
  if (recorded.name && here.name && recorded.name !== here.name)
    return { field: 'cluster name', recorded: recorded.name, here: here.name };
  if (recorded.createdTime && here.createdTime && recorded.createdTime !== here.createdTime)
    return { field: 'creation time', recorded: recorded.createdTime, here: here.createdTime };
  return undefined;
}

/** The state with this run's identity recorded (the REC uid and the management cluster, once known). */
export function withIdentity(state: UpgradeState, here: RunIdentity): UpgradeState {
  const lineage = { ...state.lineage };
  if (here.recUid) lineage.recUid = here.recUid;
  const known = knownManagementCluster({
    ...state.lineage.managementCluster,
    ...knownManagementCluster(here.managementCluster),
  });
  if (known) lineage.managementCluster = known;
  return JSON.stringify(lineage) === JSON.stringify(state.lineage) ? state : { ...state, lineage };
}

/** What the cluster shows now, for checking what done steps produced. */
export interface LiveProducts {
  /** The operator version the Deployment runs. */
  operatorVersion?: string | undefined;
  /** The REC's image versionTag. */
  clusterVersionTag?: string | undefined;
}

/**
 * A resumed run skips done steps; first it checks that what each one produced still holds:
 * the operator at the hop's version, the REC at the versionTag the cluster step set. A step
 * whose product is gone (someone rolled it back, or the state is another cluster's) is made
 * pending again, so it runs (every step re-reads the cluster and changes only what differs).
 */
export function reopenUnheldSteps(
  state: UpgradeState,
  live: LiveProducts,
): { state: UpgradeState; reopened: { step: string; why: string }[] } {
  const reopened: { step: string; why: string }[] = [];
  // A finished upgrade is not resumed: a new run starts from its first step anyway.
  if (state.result === 'succeeded') return { state, reopened };
  const steps = { ...state.steps };
  const operatorTarget = state.hops ? state.hops[currentHop(state)]?.operator : state.target.operator;
  const operator = steps.operator;
  if (
    operator?.status === 'done' &&
    operatorTarget &&
    live.operatorVersion !== undefined &&
    live.operatorVersion !== operatorTarget
  ) {
    reopened.push({
      step: 'operator',
      why: `it was recorded done, but the operator runs ${live.operatorVersion}, not ${operatorTarget}`,
    });
    steps.operator = { status: 'pending' };
  }
  const cluster = steps.cluster;
  const setTag = cluster?.outcome?.versionTag;
  const previous = cluster?.outcome?.previous;
  // Only back at the tag it replaced counts as gone: the operator may rewrite a tag it was given.
  if (
    cluster?.status === 'done' &&
    typeof setTag === 'string' &&
    typeof previous === 'string' &&
    live.clusterVersionTag === previous &&
    previous !== setTag
  ) {
    reopened.push({
      step: 'cluster',
      why: `it was recorded done, but the cluster resource's versionTag is ${live.clusterVersionTag}, not ${setTag}`,
    });
    steps.cluster = { status: 'pending' };
  }
  return { state: reopened.length > 0 ? { ...state, steps, result: 'running' } : state, reopened };
}

/** The simulator's context (`ctl-sim-<scenario>`, src/sim/cluster.ts): a new cluster each time it starts. */
function isSimulatorContext(context: string): boolean {
  return context.startsWith('ctl-sim-');
}

function describe(identity: { context: string; namespace: string; cluster: string }): string {
  return `${identity.namespace}/${identity.cluster} (context ${identity.context})`;
}
