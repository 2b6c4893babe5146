import { CtlError, InterruptedError, OperationError, TimeoutError } from '../errors.js';
import type { Io } from '../io/io.js';
import type { ProgressReporter } from '../io/progress.js';
import { dryRunWording } from './dry-run-wording.js';
import { stopCauseOf } from './signals.js';
import type { Step, StepContext } from './step.js';
import { runsStep } from '../planning/step-selection.js';
import type { StateFile, UpgradeState } from './state.js';

/** `would change`: a dry run's step that found something to change (a dry run is never `done`). */
export type StepOutcomeLabel =
  'done' | 'would change' | 'skipped' | 'already done' | 'failed' | 'interrupted' | 'not run';

export interface StepSummary {
  id: string;
  title: string;
  result: StepOutcomeLabel;
  durationMs: number;
  message?: string;
  /** The row repeats what an earlier run of this state did (`already done`, or `skipped` then). */
  earlierRun?: boolean;
}

export interface RunnerOptions<Deps> {
  steps: readonly Step<Deps>[];
  /** Run only these (empty: all). */
  only?: readonly string[];
  skip?: readonly string[];
  state: UpgradeState;
  /** Undefined in dry-run: nothing is changed, so nothing is recorded. */
  stateFile: Pick<StateFile, 'save'> | undefined;
  reporter: ProgressReporter;
  io: Io;
  deps: Deps;
  dryRun: boolean;
  /** `--dry-run=server`: each announced change is marked so (dry-run-wording.ts). */
  serverDryRun?: boolean;
  signal: AbortSignal;
  clock?: () => number;
  /**
   * Called before each step that is about to run. Throwing stops the run there, as a failed
   * step does, with that step still pending (a resume runs it): a safe point, such as
   * `--max-unavailable`'s before the databases step.
   */
  beforeStep?: (stepId: string) => Promise<void> | void;
  /**
   * What to look at when the run's --timeout ends it: `kubectl get rec` of the cluster, naming
   * the kubeconfig and context ctl was given (src/kube/kube-target.ts).
   */
  lookCommand?: string;
}

export interface RunOutcome {
  state: UpgradeState;
  summary: StepSummary[];
}

/**
 * Runs the steps in order, checkpointing each in the state file: in-progress with the start
 * time before it runs, its intent before each change, done (with the verified outcome) or
 * failed after. Steps already done in the state are not run again; a step left in progress by
 * an interrupted run is run again, and re-reads live state before it acts.
 * On failure the error is rethrown after the summary rows are complete (`error.summary`).
 */
export async function runSteps<Deps>(options: RunnerOptions<Deps>): Promise<RunOutcome> {
  const clock = options.clock ?? Date.now;
  // A resumed run is no longer stopped: why the last one stopped goes with its result.
  let state: UpgradeState = withoutStopReason(options.state);
  const summary: StepSummary[] = [];
  const save = async (): Promise<void> => {
    if (options.stateFile) state = await options.stateFile.save(state);
  };

  // A dry run words each announced change as what would be done (dry-run-wording.ts).
  const worded = (message: string): string =>
    options.dryRun ? dryRunWording(message, options.serverDryRun ? 'server' : 'client') : message;
  const done: StepOutcomeLabel = options.dryRun ? 'would change' : 'done';

  const selected = new Set(
    selectSteps(options.steps, options.only ?? [], options.skip ?? []).map((s) => s.id),
  );
  let failure: unknown;
  // Set when the run's signal stopped it (interrupt or overall timeout): steps stay resumable.
  let stoppedBySignal = false;

  for (const step of options.steps) {
    const record = state.steps[step.id];
    if (failure !== undefined) {
      summary.push({ id: step.id, title: step.title, result: 'not run', durationMs: 0 });
      continue;
    }
    if (!selected.has(step.id)) {
      summary.push({
        id: step.id,
        title: step.title,
        result: 'not run',
        durationMs: 0,
        message: 'not selected',
      });
      continue;
    }
    if (record?.status === 'done') {
      options.reporter.emit({
        type: 'step-skip',
        step: step.id,
        message: `${step.title}: already done in an earlier run`,
      });
      summary.push({
        id: step.id,
        title: step.title,
        result: 'already done',
        durationMs: 0,
        earlierRun: true,
      });
      continue;
    }
    if (record?.status === 'skipped') {
      // Skipped (nothing to do) is what the earlier run found: not "already done", which
      // would claim work it never did.
      const why = record.skipReason ?? 'nothing to do';
      options.reporter.emit({
        type: 'step-skip',
        step: step.id,
        message: `${step.title}: skipped in an earlier run (${why})`,
      });
      summary.push({
        id: step.id,
        title: step.title,
        result: 'skipped',
        durationMs: 0,
        message: `${why} (in an earlier run)`,
        earlierRun: true,
      });
      continue;
    }
    if (options.signal.aborted) {
      stoppedBySignal = true;
      failure = interrupted(options.signal, options.lookCommand);
      summary.push({ id: step.id, title: step.title, result: 'not run', durationMs: 0 });
      continue;
    }

    if (options.beforeStep) {
      try {
        await options.beforeStep(step.id);
      } catch (error) {
        failure = asCtlError(error, step.title);
        const stopped = failure as CtlError;
        options.reporter.emit({
          type: 'error',
          step: step.id,
          message: stopped.message,
          data: stopped.hint ? { hint: stopped.hint } : undefined,
        });
        summary.push({
          id: step.id,
          title: step.title,
          result: 'not run',
          durationMs: 0,
          message: stopped.message,
        });
        continue;
      }
    }

    const started = clock();
    const previous = record ? { ...record } : undefined;
    state = {
      ...state,
      steps: {
        ...state.steps,
        [step.id]: {
          ...record,
          status: 'in-progress',
          startedAt: new Date(started).toISOString(),
          error: undefined,
        },
      },
    };
    await save();
    options.reporter.emit({ type: 'step-start', step: step.id, message: step.title });

    const ctx: StepContext<Deps> = {
      deps: options.deps,
      io: options.io,
      dryRun: options.dryRun,
      signal: options.signal,
      previous,
      recordIntent: async (intent) => {
        const current = state.steps[step.id];
        state = {
          ...state,
          steps: { ...state.steps, [step.id]: { status: 'in-progress', ...current, intent } },
        };
        await save();
      },
      progress: (message, data) =>
        options.reporter.emit({ type: 'progress', step: step.id, message: worded(message), data }),
      warn: (message, data) => options.reporter.emit({ type: 'warning', step: step.id, message, data }),
    };

    try {
      const result = await step.run(ctx);
      const finished = new Date(clock()).toISOString();
      const current = state.steps[step.id];
      if (result.skipped !== undefined) {
        state = {
          ...state,
          steps: {
            ...state.steps,
            [step.id]: { ...current, status: 'skipped', skipReason: result.skipped, finishedAt: finished },
          },
        };
        options.reporter.emit({ type: 'step-skip', step: step.id, message: result.skipped });
        summary.push({
          id: step.id,
          title: step.title,
          result: 'skipped',
          durationMs: clock() - started,
          message: result.skipped,
        });
      } else {
        state = {
          ...state,
          steps: {
            ...state.steps,
            [step.id]: { ...current, status: 'done', outcome: result.outcome, finishedAt: finished },
          },
        };
        options.reporter.emit({
          type: 'step-done',
          step: step.id,
          // What the step did (or, in a dry run, would do), else the bare word.
          message: `${step.title}: ${result.summary ?? (options.dryRun ? 'would change (dry run)' : 'done')}`,
          data: result.outcome,
        });
        summary.push({ id: step.id, title: step.title, result: done, durationMs: clock() - started });
      }
      await save();
    } catch (error) {
      const wasInterrupted = options.signal.aborted;
      stoppedBySignal ||= wasInterrupted;
      failure = wasInterrupted
        ? interrupted(options.signal, options.lookCommand)
        : asCtlError(error, step.title);
      const ctlError = failure as CtlError;
      const current = state.steps[step.id];
      state = {
        ...state,
        // An interrupted step stays in progress: the next run re-reads the cluster and continues it.
        steps: {
          ...state.steps,
          [step.id]: wasInterrupted
            ? { status: 'in-progress', ...current }
            : {
                ...current,
                status: 'failed',
                finishedAt: new Date(clock()).toISOString(),
                error: {
                  message: ctlError.message,
                  hint: ctlError.hint,
                  exitCode: ctlError.exitCode,
                  ...(ctlError.refused ? { refused: { ...ctlError.refused } } : {}),
                },
              },
        },
      };
      options.reporter.emit({
        type: 'error',
        step: step.id,
        message: ctlError.message,
        data: ctlError.hint ? { hint: ctlError.hint } : undefined,
      });
      summary.push({
        id: step.id,
        title: step.title,
        result: wasInterrupted ? 'interrupted' : 'failed',
        durationMs: clock() - started,
        message: ctlError.message,
      });
    }
  }

  const stopped = failure instanceof InterruptedError || stoppedBySignal;
  state = {
    ...state,
    result: failure === undefined ? 'succeeded' : stopped ? 'interrupted' : 'failed',
    // Why it stopped, for `ctl upgrade status` and whoever reads the state: nobody may have seen
    // the run's last words (its output pipe closed, src/run/signals.ts OutputClosed).
    ...(failure !== undefined && stopped && options.signal.aborted
      ? { stoppedBy: stopReason(options.signal) }
      : {}),
  };
  await save();
  if (failure !== undefined) throw Object.assign(failure as Error, { summary, state });
  return { state, summary };
}

/** The steps `--only` and `--skip` leave, in their fixed order. */
export function selectSteps<S extends { id: string }>(
  steps: readonly S[],
  only: readonly string[],
  skip: readonly string[],
): S[] {
  return steps.filter((s) => runsStep({ only, skip }, s.id));
}

function withoutStopReason(state: UpgradeState): UpgradeState {
  const copy = { ...state };
  delete copy.stoppedBy;
  return copy;
}

/** The state's `stoppedBy`: the signal, a closed output pipe, or the overall --timeout. */
function stopReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof DOMException && reason.name === 'TimeoutError')
    return 'the run took longer than its --timeout';
  return stopCauseOf(reason).cause;
}

/** Why the run's signal fired: a signal from the user, a closed output, or the overall --timeout. */
function interrupted(signal: AbortSignal, look = 'kubectl get rec'): InterruptedError | TimeoutError {
  const reason: unknown = signal.reason;
  if (reason instanceof DOMException && reason.name === 'TimeoutError') {
    return new TimeoutError('the run took longer than its --timeout; the state was saved', {
      hint: `See what the cluster is doing (${look}, and its events), then run the same command again to resume, with a longer --timeout if it is just slow.`,
    });
  }
  const { signal: exitBy, cause } = stopCauseOf(reason);
  return new InterruptedError(exitBy, `interrupted by ${cause}; the state was saved`);
}

function asCtlError(error: unknown, title: string): CtlError {
  if (error instanceof CtlError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new OperationError(`${title} failed: ${message}`, { cause: error });
}
