import { chmod, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ExitCode, isCtlError } from '../errors.js';
import { safeJson } from '../io/safe-text.js';
import { makeDirectories } from '../io/make-directories.js';
import { packageVersion } from '../package-root.js';
import type { Plan } from '../planning/plan.js';
import type { AvailabilityEntry } from './availability/ledger.js';
import type { StepSummary } from './runner.js';
import type { UpgradeState } from './state.js';
import type { Verification } from './verification.js';

/**
 * `ctl upgrade run --report <file>`: one JSON document for any CI system, written when the run
 * ends however it ends (success, failure, interruption, even a usage error found after the flags
 * were read). It holds the plan, each step with its result and times, the result, the exit code
 * and the error with its hint; never a secret (messages pass through the redactor, and neither
 * plans nor states hold credentials). Mode 0600 (issue 35): it names the cluster, its databases and
 * where things were downloaded from; CI uploads it as the job's user, who can read it.
 */

/** `not confirmed`: the prompt was answered no; nothing was changed (exit 0). */
export type RunResultLabel = 'succeeded' | 'failed' | 'interrupted' | 'not confirmed';

export interface ReportStep extends StepSummary {
  startedAt?: string;
  finishedAt?: string;
}

export interface ReportError {
  message: string;
  hint?: string;
  exitCode: number;
}

/** What one cluster's run produced, kept as the run goes so a failure can still be reported. */
export interface RunRecord {
  context: string | undefined;
  namespace: string | undefined;
  cluster: string | undefined;
  startedAt: string;
  finishedAt: string | undefined;
  durationMs: number;
  dryRun: boolean;
  result: RunResultLabel;
  exitCode: number;
  error: ReportError | undefined;
  target: { operator: string; clusterVersion?: string | null; databaseVersion?: string | null } | undefined;
  plan: Plan | undefined;
  steps: ReportStep[];
  state: { store: string; location: string } | undefined;
  resumeCommand: string | undefined;
  /**
   * A run that changed nothing (a dry run, a preflight that stopped): its Next line, the run to
   * make once the fix is in (src/commands/run-end.ts), which may differ from the command given.
   */
  nextCommand?: string | undefined;
  /** After a run that changed the cluster: the nodes and databases as the management API reports them. */
  verification: Verification | undefined;
  /**
   * A multi-hop run: each hop this run reached, with its steps (`steps` above are the last
   * one's). Undefined for a single upgrade.
   */
  hops?: ReportHop[] | undefined;
  /**
   * Each database's measured availability (CLI.md `availability`; src/run/availability/): every
   * database, with `measured: false` and why when it could not be measured.
   */
  availability?: AvailabilityEntry[] | undefined;
}

export interface ReportHop {
  /** 1 for the first hop. */
  hop: number;
  operator: string;
  result: RunResultLabel;
  steps: ReportStep[];
}

export function newRunRecord(dryRun: boolean, now = new Date()): RunRecord {
  return {
    context: undefined,
    namespace: undefined,
    cluster: undefined,
    startedAt: now.toISOString(),
    finishedAt: undefined,
    durationMs: 0,
    dryRun,
    result: 'failed',
    exitCode: ExitCode.failed,
    error: undefined,
    target: undefined,
    plan: undefined,
    steps: [],
    state: undefined,
    resumeCommand: undefined,
    verification: undefined,
  };
}

/** Steps with their start and finish times from the state, when the state has them. */
export function reportSteps(summary: readonly StepSummary[], state: UpgradeState | undefined): ReportStep[] {
  return summary.map((row) => {
    const recorded = state?.steps[row.id];
    const step: ReportStep = { ...row };
    // A step done by an earlier run keeps that run's times in the state: not this run's.
    const ranNow = !row.earlierRun && row.result !== 'already done' && row.result !== 'not run';
    if (ranNow && recorded?.startedAt) step.startedAt = recorded.startedAt;
    if (ranNow && recorded?.finishedAt) step.finishedAt = recorded.finishedAt;
    return step;
  });
}

/** Closes the record: result, exit code and error from how the run ended. */
export function finishRunRecord(
  record: RunRecord,
  error: unknown,
  redact: (text: string) => string,
  now = new Date(),
): RunRecord {
  record.finishedAt = now.toISOString();
  record.durationMs = Math.max(0, now.getTime() - Date.parse(record.startedAt));
  if (error === undefined) {
    record.result = 'succeeded';
    record.exitCode = ExitCode.ok;
    record.error = undefined;
    return record;
  }
  const exitCode = isCtlError(error) ? error.exitCode : ExitCode.failed;
  record.exitCode = exitCode;
  record.result =
    exitCode === ExitCode.ok
      ? 'not confirmed'
      : exitCode === ExitCode.sigint || exitCode === ExitCode.sigterm || exitCode === ExitCode.sigpipe
        ? 'interrupted'
        : 'failed';
  const message = error instanceof Error ? error.message : String(error);
  const hint = isCtlError(error) ? error.hint : undefined;
  record.error = { message: redact(message), ...(hint ? { hint: redact(hint) } : {}), exitCode };
  return record;
}

export function ctlVersion(): string {
  try {
    return packageVersion();
  } catch {
    return 'unknown';
  }
}

/** The document of a single-cluster run. */
export function runReport(record: RunRecord): Record<string, unknown> {
  return {
    apiVersion: 'ctl/v1',
    kind: 'UpgradeReport',
    ctlVersion: ctlVersion(),
    command: 'upgrade run',
    ...clusterReport(record),
  };
}

/** One cluster's part: the same fields in a single run's report and in each entry of a fleet's. */
export function clusterReport(record: RunRecord): Record<string, unknown> {
  return {
    cluster: {
      context: record.context ?? null,
      namespace: record.namespace ?? null,
      name: record.cluster ?? null,
    },
    target: record.target ?? null,
    dryRun: record.dryRun,
    startedAt: record.startedAt,
    finishedAt: record.finishedAt ?? null,
    durationMs: record.durationMs,
    result: record.result,
    exitCode: record.exitCode,
    error: record.error ?? null,
    failedStep: failedStepOf(record) ?? null,
    steps: record.steps,
    state: record.state ?? null,
    resumeCommand: record.result === 'succeeded' ? null : (record.resumeCommand ?? null),
    // Added to CLI.md's report: only for a run that changed nothing.
    ...(record.nextCommand ? { nextCommand: record.nextCommand } : {}),
    plan: record.plan ?? null,
    // Added to CLI.md's report: null for a dry run or a run that stopped before its end.
    verification: record.verification ?? null,
    // Added too: only for a run of more than one hop.
    ...(record.hops ? { hops: record.hops } : {}),
    // CLI.md: each database's measured availability, for a run that reached the cluster.
    ...(record.availability ? { availability: record.availability } : {}),
    // Added too: only when the plan holds Active-Active databases back (src/planning/active-active.ts).
    ...heldBackOf(record.plan),
  };
}

/** The Active-Active databases the plan holds back, with why and the command to run later. */
function heldBackOf(plan: Plan | undefined): {
  heldBack?: { database: string; reason: string; command: string }[];
} {
  const held = (plan?.steps.find((step) => step.id === 'databases')?.actions ?? []).flatMap((action) =>
    action.database?.heldBack
      ? [
          {
            database: `${action.database.namespace}/${action.database.name}`,
            reason: action.database.heldBack,
            command: action.command,
          },
        ]
      : [],
  );
  return held.length > 0 ? { heldBack: held } : {};
}

export function failedStepOf(record: Pick<RunRecord, 'steps'>): string | undefined {
  return record.steps.find((step) => step.result === 'failed' || step.result === 'interrupted')?.id;
}

/**
 * Writes the report with mode 0600 whatever the umask (and an existing file's mode), creating
 * its folder if needed; redacted as a whole like all ctl writes (a CI job keeps it as an
 * artifact): a failed step's message quotes the server, and the plan holds the locations the
 * run used, a bundle URL's token among them.
 */
export async function writeReportFile(
  path: string,
  report: unknown,
  redact: (text: string) => string,
): Promise<void> {
  await makeDirectories(dirname(path));
  // safeJson: the same JSON, but no character in it can drive a terminal that shows the file;
  // redacted in that form (the placeholder holds no quote, so it stays JSON).
  await writeFile(path, `${redact(safeJson(report, 2))}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
}
