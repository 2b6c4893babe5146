import { oneLine } from '../io/safe-text.js';
import { predictAvailability } from '../planning/availability-prediction.js';
import type { Plan } from '../planning/plan.js';
import type { Snapshot } from '../planning/snapshot.js';
import { targetReached } from '../planning/target-reached.js';
import { type AvailabilityEntry, unmeasuredEntry } from '../run/availability/ledger.js';
import type { RunRecord } from '../run/report.js';
import type { StateStore } from '../run/state-store.js';
import type { RunCommandInput } from './run-input.js';
import { pastedRunCommand, recordStateWords, withRunState } from './next-command.js';

// `ctl upgrade run --to X` on a cluster already at X: nothing to run, nothing to ask. Like
// `helm upgrade` of a release at its chart or `kubectl apply` of an unchanged object, the run
// says so, names what to look at next and exits 0; the state of the run that got it there is
// left exactly as it is (a later run to a newer target starts a new record over it).

/**
 * Ends the run here when the plan has nothing to do, no unfinished run is recorded (that one
 * resumes as before, so its state ends `succeeded`) and nobody holds the lock; returns whether
 * it did. Reads only: no lock taken, no state written, no question.
 */
export async function endIfTargetReached(run: {
  input: RunCommandInput;
  snapshot: Snapshot;
  plan: Plan;
  store: StateStore;
  identity: { context: string; namespace: string; cluster: string };
  record: RunRecord;
}): Promise<boolean> {
  const { input, snapshot, plan, store, identity, record } = run;
  if (!targetReached(plan)) return false;
  const { isFinished } = await import('../run/state.js');
  const state = await store.load();
  if (state && !isFinished(state)) return false;
  // A lock held (live or stale) goes the usual way: exit 5 naming its holder, or the takeover
  // of a stale one, as for any run; a run of another machine may be moving the cluster on.
  if (await store.readLock()) return false;

  const { workLeft, renderWorkLeft } = await import('../run/work-left.js');
  // A finished run to this target may have left work (Active-Active feature sets, held-back
  // databases), and --databases may leave databases behind: still the next thing to do.
  const left = workLeft({
    plan,
    databasesOutcome:
      state?.target.operator === plan.target.operator ? state.steps.databases?.outcome : undefined,
    argv: input.argv ?? [],
    pasted: (argv) => pastedRunCommand(argv, input.env),
    target: snapshot.kubeTarget,
    sameRecord: (command) => withRunState(command, recordStateWords(input)),
  });
  // The store's own command (--state ABS, or the ConfigMap's -n and --cluster), as status and
  // unlock hints print it: pasted from any folder or shell, it reads this state.
  const status = store.ctlCommand('status');
  const line = `${oneLine(identity.namespace)}/${oneLine(identity.cluster)} is already at ${oneLine(plan.target.operator)}${clusterPart(plan)}: nothing to do`;
  const next = left.length > 0 ? renderWorkLeft(left) : `Next: ${status}  (the run that got it there)`;
  const availability = notMeasured(snapshot);
  record.steps = [];
  record.availability = availability;

  const { io } = input;
  if (io.output === 'json') {
    const { createRunReporter } = await import('./run-deps.js');
    const reporter = await createRunReporter(input);
    try {
      reporter.emit({
        type: 'done',
        message: line,
        data: {
          result: 'succeeded',
          alreadyAtTarget: true,
          steps: [],
          availability,
          status,
          ...(left.length > 0 ? { next: left[0]!.command, workLeft: left } : {}),
        },
      });
    } finally {
      reporter.close();
    }
  } else {
    // The result on stdout, as every run's (io.data redacts it), then the next thing to do.
    io.data(`${line}\n${next}`);
  }
  const { writeCiSummary } = await import('./run-end.js');
  await writeCiSummary(input, 'succeeded', [], `${line}\n${next}`);
  return true;
}

/** ` (cluster 7.8.2-60)`, when the plan knows the cluster's target tag. */
function clusterPart(plan: Plan): string {
  const tag = plan.target.clusterVersion;
  return tag ? ` (cluster ${oneLine(tag)})` : '';
}

/** CLI.md `availability`: every database, not measured, and why. */
function notMeasured(snapshot: Snapshot): AvailabilityEntry[] {
  const why = 'not measured: nothing to do, the cluster was already at the target (no roll)';
  const known = snapshot.api.reachable
    ? predictAvailability(snapshot).databases.map((db) => ({
        uid: db.uid,
        namespace: db.namespace,
        name: db.name,
      }))
    : [...snapshot.databases, ...snapshot.activeActiveDatabases].map((db) => ({
        uid: 0,
        namespace: db.namespace,
        name: db.name,
      }));
  return known.map((db) => unmeasuredEntry(db, why));
}
