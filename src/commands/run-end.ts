import { appendHint, InterruptedError, isCtlError, OperationError, PreflightError } from '../errors.js';
import type { Io } from '../io/io.js';
import { kubectlCommand, type KubeTarget } from '../kube/kube-target.js';
import type { ProgressReporter } from '../io/progress.js';
import type { Plan } from '../planning/plan.js';
import type { Snapshot } from '../planning/snapshot.js';
import { runThatStoppedInPreflight } from '../run/preflight-stopped.js';
import type { RunRecord } from '../run/report.js';
import type { RunOutcome, StepSummary } from '../run/runner.js';
import type { UpgradeState } from '../run/state.js';
import type { StateStore } from '../run/state-store.js';
import {
  NO_PLAN_ARGS,
  nextRunCommand,
  nextTargetsCommand,
  pastedRunCommand,
  recordStateWords,
  withRunState,
  resumeLines,
  withoutIgnoredChecks,
} from './next-command.js';
import type { RunAvailability } from './run-availability.js';
import type { RunCommandInput } from './run-input.js';
import type { UpgradeSession } from './session.js';

/** Checks whose firm fail means the target itself cannot be run (src/planning/checks: upgrade-path, target-available). */
const TARGET_CHECKS: readonly string[] = ['upgrade-path', 'target-available'];

// How a run ends and says so: what it verified and leaves to do, its `done` event, the summary
// on stdout, the CI summary, the report's entries, and the error it exits with (with the
// command that resumes it, or the plan's Next line when it changed nothing).

/** What the end of a run reads. */
export interface RunEnd {
  input: RunCommandInput;
  session: UpgradeSession;
  record: RunRecord;
  /** The run's plan (its final target; each hop has its own plan too). */
  plan: Plan;
  /** The run's signal (interruptions, --timeout): it ends the verification's wait too. */
  signal?: AbortSignal;
  store: StateStore;
  reporter: ProgressReporter;
  availability: RunAvailability | undefined;
  resumeCommand: string;
  stepIds: string[];
}

/**
 * The last hop's steps ran (or a dry run's): verify the cluster, say what is left, emit `done`,
 * print the summary. Returns the error the run exits with although its steps finished (a
 * verification that failed or does not explain the cluster), if any.
 */
export async function finishRun(
  end: RunEnd,
  last: {
    state: UpgradeState;
    hopIndex: number;
    hopPlanned: { snapshot: Snapshot; plan: Plan };
    outcome: RunOutcome;
    stepsLeft: string[];
  },
): Promise<Error | undefined> {
  const { input, session, record, plan, reporter, availability, resumeCommand } = end;
  const { state, hopIndex, hopPlanned, outcome, stepsLeft } = last;
  const { io } = input;
  const hopsRun = await import('./run-hops.js');
  const { renderSummaryText, renderVerificationText } = await import('../run/summary.js');
  const { renderAvailabilityText, renderAvailabilityMarkdown } =
    await import('../run/availability/render.js');
  const { reportSteps } = await import('../run/report.js');
  let verificationFailure: Error | undefined;
  // Not in a dry run: nothing changed, so there is nothing to verify. The last hop's
  // plan names the final target and the selection as the steps saw them.
  const verifier = input.dryRun ? undefined : await import('../run/verification.js');
  let verification: import('../run/verification.js').Verification | undefined;
  try {
    // Databases the operator is still upgrading on its own settle first, within --stall-timeout.
    const { systemClock } = await import('../api/clock.js');
    verification = await verifier?.verifyRun(
      session.api(),
      {
        plan: hopPlanned.plan,
        snapshot: hopPlanned.snapshot,
        steps: outcome.summary,
        sameRecord: (command) => withRunState(command, recordStateWords(input)),
      },
      {
        clock: systemClock,
        boundMs: input.stallTimeoutMs,
        ...(end.signal ? { signal: end.signal } : {}),
      },
    );
  } catch (error) {
    // Only a TLS failure comes here: a certificate that stopped being trusted is exit 1.
    verificationFailure = error as Error;
    verification = verifier?.unverified(hopPlanned.plan, (error as Error).message);
  }
  record.verification = verification;
  const result = verification?.unexplained || verificationFailure ? 'failed' : 'succeeded';
  const { workLeft, renderWorkLeft } = await import('../run/work-left.js');
  // What the run leaves to do, the first of it as the last line (text, JSON, CI summary).
  const left =
    input.dryRun || result !== 'succeeded'
      ? []
      : [
          ...(stepsLeft.length > 0
            ? [hopsRun.laterHopLeft(state, hopIndex, stepsLeft, input.argv ?? [], input.env)]
            : []),
          ...workLeft({
            plan: hopPlanned.plan,
            databasesOutcome: outcome.state.steps.databases?.outcome,
            argv: input.argv ?? [],
            pasted: (argv) => pastedRunCommand(argv, input.env),
            target: hopPlanned.snapshot.kubeTarget,
            sameRecord: (command) => withRunState(command, recordStateWords(input)),
          }),
        ];
  const nextText = left.length > 0 ? renderWorkLeft(left) : undefined;
  reporter.emit({
    type: 'done',
    message: input.dryRun
      ? 'dry run complete: nothing was changed'
      : verificationFailure
        ? `upgrade to ${plan.target.operator} ran, but could not be verified: ${verificationFailure.message}`
        : verification?.unexplained
          ? `upgrade to ${plan.target.operator} ran, but the cluster does not show it`
          : stepsLeft.length > 0
            ? `${hopsRun.describeHop(state, hopIndex)}: the selected steps are done; the upgrade to ${plan.target.operator} is not complete`
            : `upgrade to ${plan.target.operator} complete`,
    data: {
      result,
      steps: outcome.summary,
      ...(verification ? { verification } : {}),
      ...(availability ? { availability: availability.entries() } : {}),
      ...(left.length > 0 ? { next: left[0]!.command, workLeft: left } : {}),
    },
  });
  record.steps = reportSteps(outcome.summary, outcome.state);
  if (availability) record.availability = availability.entries();
  const verificationText = [
    verification && renderVerificationText(verification),
    availability && renderAvailabilityText(availability.entries(), availability.measurement.describe()),
  ]
    .filter(Boolean)
    .join('\n');
  // The result is the run's data: on stdout (`ctl upgrade run --yes > run.log`), progress on stderr.
  if (io.output === 'text')
    writeResult(
      io,
      `${renderSummaryText(outcome.summary)}\n${verificationText ? `${verificationText}\n` : ''}result: ${input.dryRun ? 'dry run, nothing changed' : result}${nextText ? `\n${nextText}` : ''}`,
    );
  await writeCiSummary(
    input,
    result,
    outcome.summary,
    [verificationText, nextText].filter((line) => line !== undefined).join('\n') || undefined,
    availability && renderAvailabilityMarkdown(availability.entries()),
  );
  if (verification?.unexplained) verificationFailure = verificationError(verification, resumeCommand);
  return verificationFailure;
}

/**
 * A run that stopped (a step failed, an interruption, the timeout): what was measured saved,
 * its `done` event, the summary, and the error to exit with: with the command that resumes
 * it, or, when it changed nothing, with the plan's Next line.
 */
export async function stoppedRun(
  end: RunEnd,
  error: unknown,
  at: { state: UpgradeState; hopIndex: number },
): Promise<unknown> {
  const { input, record, plan, store, reporter, availability, resumeCommand, stepIds } = end;
  const { state, hopIndex } = at;
  const { io } = input;
  const { renderSummaryText } = await import('../run/summary.js');
  const { renderAvailabilityText, renderAvailabilityMarkdown } =
    await import('../run/availability/render.js');
  const { reportSteps } = await import('../run/report.js');
  const summary = (error as { summary?: StepSummary[] }).summary ?? [];
  let stopped = (error as { state?: UpgradeState }).state;
  // What was measured stays in the state: a resumed run goes on from it.
  if (availability) {
    const measured = await availability.finish(stopped ?? state);
    if (stopped) stopped = await store.save(measured).catch(() => stopped);
    record.availability = availability.entries();
  }
  record.steps = reportSteps(summary, stopped);
  // The same word as the state file: an interrupted run is resumable, not failed.
  const result = stopped?.result === 'interrupted' ? 'interrupted' : 'failed';
  if (state.hops) recordHop(record, hopIndex, state, result, record.steps);
  reporter.emit({
    type: 'done',
    message: result === 'interrupted' ? 'upgrade interrupted; the state was saved' : 'upgrade stopped',
    data: { result, steps: summary, ...(availability ? { availability: availability.entries() } : {}) },
  });
  const availabilityText =
    availability && renderAvailabilityText(availability.entries(), availability.measurement.describe());
  if (io.output === 'text' && summary.length > 0)
    writeResult(
      io,
      `${renderSummaryText(summary)}\n${availabilityText ? `${availabilityText}\n` : ''}result: ${result}`,
    );
  await writeCiSummary(
    input,
    result,
    summary,
    undefined,
    availability && renderAvailabilityMarkdown(availability.entries()),
  );
  // A run that changed nothing (a dry run, a preflight that stopped) has nothing to
  // resume: it ends with the plan's Next line, the run to make once the fix is in.
  const changedNothing =
    input.dryRun ||
    (stopped?.result === 'failed' && runThatStoppedInPreflight(stopped, stepIds) !== undefined);
  if (changedNothing) {
    const firm = error instanceof PreflightError ? error.firmChecks : [];
    const args = withoutIgnoredChecks(input.planArgs ?? NO_PLAN_ARGS, firm);
    // A target that cannot be run at all (older than the cluster, or not there): the same run
    // again would fail the same way, so the next step is choosing another target.
    const next = firm.some((id) => TARGET_CHECKS.includes(id))
      ? nextTargetsCommand(args, input.env)
      : nextRunCommand(args, plan.target.operator, input.planFile, input.env);
    // `ctl upgrade status` tells the same line (status.ts): recorded with the stopped state. A
    // dry run has no state to record it in; a save that fails leaves status its resumeCommand.
    if (!input.dryRun && stopped) await store.save({ ...stopped, nextCommand: next }).catch(() => undefined);
    // And --report (CI reads it): the same line, redacted as the rest of the report.
    record.nextCommand = next;
    return withNextHint(error, next);
  }
  if (error instanceof InterruptedError) {
    const { describeInterruption } = await import('./run-interrupted.js');
    const { describeHop } = await import('./run-hops.js');
    describeInterruption(error, stopped, stepIds, state.hops ? describeHop(state, hopIndex) : '');
  }
  return withResumeHint(error, resumeCommand);
}

export async function writeCiSummary(
  input: RunCommandInput,
  result: string,
  rows: StepSummary[],
  footer?: string,
  /** Markdown already made safe (its cells escaped), such as the availability table. */
  section?: string,
): Promise<void> {
  if (!input.io.isGitHubActions) return;
  const { writeStepSummary } = await import('../io/github.js');
  const { renderSummaryMarkdown } = await import('../run/summary.js');
  const summary = renderSummaryMarkdown(`ctl upgrade: ${result}`, rows, footer);
  writeStepSummary(
    input.env,
    section ? `${summary}\n${section}\n` : summary,
    (text) => input.io.redactor.redact(text),
    (message) => input.io.warn(message),
  );
}

/** A verification the run cannot explain: exit 1, with what was found and what to do. */
export function verificationError(
  verification: import('../run/verification.js').Verification,
  resumeCommand: string,
): OperationError {
  return new OperationError(
    `the steps finished, but the management API does not show the upgrade:\n  ${verification.mismatches.join('\n  ')}`,
    {
      hint: `Follow each line above, then run ${resumeCommand} again: each step re-reads the cluster, does only what is left, and the run verifies again.`,
    },
  );
}

export function withNextHint(error: unknown, next: string): unknown {
  return isCtlError(error) ? appendHint(error, `Nothing was changed. Next: ${next}`) : error;
}

export function withResumeHint(error: unknown, resumeCommand: string): unknown {
  return isCtlError(error) ? appendHint(error, resumeLines(resumeCommand, error.refused).join('\n')) : error;
}

/** A hop of a multi-hop run, in the report (replacing an earlier entry of the same hop). */
export function recordHop(
  record: RunRecord,
  index: number,
  state: UpgradeState,
  result: RunRecord['result'],
  steps: RunRecord['steps'],
): void {
  const hops = (record.hops ?? []).filter((entry) => entry.hop !== index + 1);
  hops.push({ hop: index + 1, operator: state.hops?.[index]?.operator ?? '?', result, steps });
  record.hops = hops;
}

/**
 * The end of `--dry-run=server`: what the servers judged, and what nothing could judge. A
 * refusal is exit 1: the real run would fail there, so it must not pass for a rehearsal.
 */
export function reportServerDryRun(
  io: Io,
  server: import('../io/server-dry-run.js').ServerDryRun,
  kube: KubeTarget,
): void {
  const notJudged =
    server.notJudged.length > 0
      ? `; not judged: ${server.notJudged.length} (${server.notJudged.join('; ')})`
      : '';
  if (server.refused.length === 0) {
    io.info(`server dry run: the API server accepted all ${server.accepted.length} write(s)${notJudged}`);
    return;
  }
  throw new OperationError(
    `server dry run: the API server refused ${server.refused.length} of ${server.refused.length + server.accepted.length} write(s); nothing was changed:\n  ${server.refused.join('\n  ')}`,
    {
      hint: `Fix what each refusal names (permissions: ${kubectlCommand(kube, 'auth', 'can-i', 'VERB', 'RESOURCE', '-n', 'NAMESPACE')}; a webhook or schema: the object it names), then run the dry run again${notJudged ? ` (${notJudged.slice(2)})` : ''}.`,
    },
  );
}

/** The summary table and the result line, on stdout; redacted as everything ctl prints. */
export function writeResult(io: Io, text: string): void {
  io.data(`\n${io.redactor.redact(text)}`);
}
