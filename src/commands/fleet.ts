import { createInterface } from 'node:readline/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseYaml, yamlProblem } from '../io/yaml-from-outside.js';
import { z } from 'zod';
import { CtlError, ExitCode, type ExitCodeValue, NotConfirmedError, UsageError } from '../errors.js';
import { Io, type WritableLike } from '../io/io.js';
import { formatDuration } from '../io/progress.js';
import { checkFilePath, INPUT_FILE_LIMITS, readInputFile } from '../io/paths.js';
import { escapeData } from '../io/github.js';
import { markdownText, oneLine } from '../io/safe-text.js';
import type { RunRecord } from '../run/report.js';
import type { RunCommandInput } from './run.js';
import { NO_PLAN_ARGS, nextPlanCommand } from './next-command.js';
import { renderColumns } from '../run/summary.js';

/**
 * `ctl upgrade run` over several clusters: `--context a --context b`, or `--fleet <file>`.
 * Each cluster gets its own session, state and lock, exactly as if it were upgraded alone;
 * `--max-parallel-clusters` of them run at once. Every line a cluster prints is tagged with
 * its context (`[context]` in text, `data.context` in NDJSON), and a table of every cluster's
 * result ends the run. The exit code is 0 when every cluster succeeded, else the most severe
 * of theirs (FLEET_SEVERITY, docs/fleet.md).
 */

export interface FleetMember {
  context: string;
  namespace?: string | undefined;
  cluster?: string | undefined;
  kubeconfig?: string | undefined;
  /** The CA of this cluster's management API (each cluster has its own); default --ca-file. */
  caFile?: string | undefined;
}

/**
 * Most severe first. A signal first: the caller stopped the fleet and scripts test for 130/143.
 * Then the failures that may leave a cluster half-upgraded (1 failed, 6 timed out, 4 auth lost
 * mid-run), then those where nothing was changed (5 locked, 7 stale plan, 3 preflight, 2 usage).
 */
export const FLEET_SEVERITY: readonly ExitCodeValue[] = [
  ExitCode.sigterm,
  ExitCode.sigint,
  ExitCode.sigpipe,
  ExitCode.failed,
  ExitCode.timeout,
  ExitCode.auth,
  // 8: stopped at a safe point by --max-unavailable, mid-upgrade but resumable.
  ExitCode.unavailable,
  ExitCode.locked,
  ExitCode.stalePlan,
  ExitCode.preflight,
  ExitCode.usage,
];

export function mostSevereExitCode(codes: readonly number[]): number {
  const failing = codes.filter((code) => code !== ExitCode.ok);
  if (failing.length === 0) return ExitCode.ok;
  const rank = (code: number) => {
    const index = FLEET_SEVERITY.indexOf(code as ExitCodeValue);
    // An unknown code counts as a plain failure.
    return index === -1 ? FLEET_SEVERITY.indexOf(ExitCode.failed) : index;
  };
  return failing.reduce((worst, code) => (rank(code) < rank(worst) ? code : worst));
}

const memberSchema = z
  .object({
    context: z.string().min(1),
    namespace: z.string().min(1).optional(),
    cluster: z.string().min(1).optional(),
    kubeconfig: z.string().min(1).optional(),
    caFile: z.string().min(1).optional(),
  })
  .strict();

/** A fleet file: a YAML (or JSON) list of `{context, namespace?, cluster?, kubeconfig?, caFile?}`. */
export async function loadFleetFile(path: string): Promise<FleetMember[]> {
  let text: string;
  try {
    text = await readInputFile('--fleet', path, INPUT_FILE_LIMITS.fleet);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read the fleet file ${path}: ${(error as Error).message}`, {
      hint: 'Pass a YAML list of {context, namespace, cluster, kubeconfig, caFile} entries to --fleet.',
    });
  }
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    // Where and what, never the lines themselves (a fleet file's lines may hold secrets).
    throw new UsageError(`the fleet file ${path} is not YAML: ${yamlProblem(error)}`, {
      hint: 'Write a YAML list, e.g. "- context: prod-eu" on each line.',
    });
  }
  const parsed = z.array(memberSchema).min(1).safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `entry ${issue.path.join('.')}` : 'the document';
    throw new UsageError(`the fleet file ${path} is not a list of clusters: ${where}: ${issue?.message}`, {
      hint: 'Each entry needs context and may have namespace, cluster, kubeconfig and caFile; nothing else.',
    });
  }
  // As in a kubeconfig, a relative path is relative to the file that names it.
  const relative = (file: string | undefined) =>
    file && !isAbsolute(file) ? resolve(dirname(path), file) : file;
  return parsed.data.map((member) => {
    const kubeconfig = relative(member.kubeconfig);
    const caFile = relative(member.caFile);
    // Like the flags they stand for: regular files only, refused before any cluster is touched.
    checkFilePath(`${path}: kubeconfig`, kubeconfig, 'input', INPUT_FILE_LIMITS.kubeconfig);
    checkFilePath(`${path}: caFile`, caFile, 'input', INPUT_FILE_LIMITS.caFile);
    return { ...member, kubeconfig, caFile };
  });
}

export interface FleetInput extends RunCommandInput {
  members: FleetMember[];
  maxParallelClusters: number;
}

export interface MemberOutcome {
  member: FleetMember;
  label: string;
  record: RunRecord;
  error: unknown;
  /** The last pass's run on this cluster, when it raised (or tried) Active-Active databases. */
  activeActive?: RunRecord | undefined;
}

export async function runFleetCommand(input: FleetInput): Promise<void> {
  const { io } = input;
  checkFleetInput(input);
  const labels = memberLabels(input.members);
  if (!input.yes && !input.dryRun) await confirmFleet(input, labels);

  const { guardInterrupts, stopCauseOf } = await import('../run/signals.js');
  const { executeRun } = await import('./run.js');
  const { newRunRecord, finishRunRecord } = await import('../run/report.js');
  const guard = input.signal ? { signal: input.signal, dispose: () => {} } : guardInterrupts(io);
  const startedAt = new Date();
  const outcomes: MemberOutcome[] = new Array(input.members.length);
  try {
    io.info(
      `upgrading ${input.members.length} clusters, ${input.maxParallelClusters} at a time: ${labels.join(', ')}`,
    );
    let next = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const index = next;
        next += 1;
        if (index >= input.members.length) return;
        const member = input.members[index]!;
        const label = labels[index]!;
        const memberIo = taggedIo(io, input.env, label, member.context, input.maxParallelClusters > 1);
        if (guard.signal.aborted) {
          // Not started: recorded as interrupted, so the summary and exit code say so.
          const record = newRunRecord(input.dryRun);
          record.context = member.context;
          // What stopped the fleet, as the running clusters' own errors name it (a closed output
          // pipe too, exit 141 as theirs), not a SIGINT it was not.
          const stop = stopCauseOf(guard.signal.reason);
          const { InterruptedError } = await import('../errors.js');
          const error = new InterruptedError(
            stop.signal,
            `not started: the fleet was interrupted by ${stop.cause}`,
          );
          finishRunRecord(record, error, (text) => text);
          outcomes[index] = { member, label, record, error };
          continue;
        }
        const { record, error } = await executeRun(
          memberRunInput(input, member, memberIo, guard.signal, {
            // Active-Active databases wait for the last pass, once every cluster is upgraded.
            target: input.target && { ...input.target, deferActiveActive: FLEET_DEFERS_ACTIVE_ACTIVE },
          }),
        );
        record.context ??= member.context;
        if (error !== undefined) reportMemberError(memberIo, member.context, record);
        outcomes[index] = { member, label, record, error };
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(input.maxParallelClusters, input.members.length) }, () => worker()),
    );
    // The shared databases last, once (docs/fleet.md "Active-Active databases").
    const { raiseActiveActiveOnce } = await import('./fleet-active-active.js');
    await raiseActiveActiveOnce({
      io,
      outcomes,
      interrupted: guard.signal.aborted,
      run: (outcome, databases) =>
        executeRun(
          memberRunInput(
            input,
            outcome.member,
            taggedIo(io, input.env, outcome.label, outcome.member.context, false),
            guard.signal,
            {
              target: input.target && { ...input.target, databases: { kind: 'names', names: databases } },
              only: ['databases'],
              skip: [],
            },
          ),
        ),
    });
  } finally {
    guard.dispose();
  }

  const finishedAt = new Date();
  const exitCode = mostSevereExitCode(outcomes.map((o) => o.record.exitCode));
  const failed = outcomes.filter((o) => o.record.exitCode !== ExitCode.ok);
  const result =
    exitCode === ExitCode.ok ? 'succeeded' : failed.every(isInterrupted) ? 'interrupted' : 'failed';
  const rows = outcomes.map(summaryRow);
  if (io.output === 'json') {
    io.json({
      ts: finishedAt.toISOString(),
      type: 'done',
      message: `fleet upgrade ${result}: ${outcomes.length - failed.length} of ${outcomes.length} clusters succeeded`,
      data: { result, exitCode, clusters: rows },
    });
  } else {
    io.stderrWrite(`\n${renderFleetSummary(rows)}\n`);
  }
  if (io.isGitHubActions) {
    const { writeStepSummary } = await import('../io/github.js');
    writeStepSummary(
      input.env,
      renderFleetMarkdown(result, rows),
      (text) => io.redactor.redact(text),
      (message) => io.warn(message),
    );
  }
  if (input.reportFile) {
    const { clusterReport, ctlVersion } = await import('../run/report.js');
    const { writeRunReport } = await import('./run.js');
    const report = {
      apiVersion: 'ctl/v1',
      kind: 'FleetUpgradeReport',
      ctlVersion: ctlVersion(),
      command: 'upgrade run',
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationMs: finishedAt.getTime() - startedAt.getTime(),
      maxParallelClusters: input.maxParallelClusters,
      result,
      exitCode,
      clusters: outcomes.map((o) => ({
        label: o.label,
        ...clusterReport(o.record),
        // Added to CLI.md's fleet report: the last pass that raised the shared Active-Active databases.
        ...(o.activeActive ? { activeActive: clusterReport(o.activeActive) } : {}),
      })),
    };
    await writeRunReport(io, input.reportFile, report, exitCode === ExitCode.ok ? undefined : true);
  }
  if (exitCode === ExitCode.ok) return;
  const names = failed.map((o) => `${o.label} (exit ${o.record.exitCode})`).join(', ');
  throw new CtlError(
    exitCode as ExitCodeValue,
    `${failed.length} of ${outcomes.length} clusters did not finish their upgrade: ${names}`,
    {
      hint: "Each cluster's error and resume command are above, tagged with its context. Running the same command again resumes each cluster from its saved state; finished ones are only re-checked.",
    },
  );
}

/**
 * Why a fleet's first pass holds every Active-Active database back: Redis's procedure upgrades
 * Redis Software on every participating cluster first and the database instances after.
 */
export const FLEET_DEFERS_ACTIVE_ACTIVE =
  'the fleet raises Active-Active databases once, after every cluster of the fleet is upgraded';

/** One member's run: the fleet's flags, the member's cluster, its tagged output. */
function memberRunInput(
  input: FleetInput,
  member: FleetMember,
  io: Io,
  signal: AbortSignal,
  overrides: Partial<RunCommandInput>,
): RunCommandInput {
  return {
    ...input,
    globals: {
      ...input.globals,
      context: member.context,
      contexts: [member.context],
      namespace: member.namespace ?? input.globals.namespace,
      cluster: member.cluster ?? input.globals.cluster,
      kubeconfig: member.kubeconfig ?? input.globals.kubeconfig,
    },
    connection: {
      ...input.connection,
      ...(member.caFile
        ? { caFile: member.caFile, caFileFrom: `the fleet's caFile of ${member.context}` }
        : {}),
    },
    io,
    // Confirmed once for the whole fleet.
    yes: true,
    signal,
    reportFile: undefined,
    session: undefined,
    liveDisplay: undefined,
    ...overrides,
  };
}

function checkFleetInput(input: FleetInput): void {
  if (input.members.length === 0) {
    throw new UsageError('the fleet is empty', { hint: 'Pass --context more than once, or --fleet FILE.' });
  }
  if (input.planFile) {
    throw new UsageError('--plan runs the saved plan of one cluster, not a fleet', {
      hint: 'Run a saved plan per cluster (ctl upgrade run --context CONTEXT --plan FILE), or drop --plan.',
    });
  }
  if (input.statePath) {
    throw new UsageError('--state names one file, but a fleet keeps one state per cluster', {
      hint: 'Drop --state (each cluster gets its default file), or use --state-store configmap.',
    });
  }
  const seen = new Set<string>();
  for (const member of input.members) {
    const key = JSON.stringify([member.kubeconfig, member.context, member.namespace, member.cluster]);
    if (seen.has(key)) {
      throw new UsageError(`the fleet names context ${member.context} twice`, {
        hint: 'List each cluster once (give namespace or cluster to tell two clusters of one context apart).',
      });
    }
    seen.add(key);
  }
}

/** The context, or context/namespace[/cluster] when several members share a context. */
function memberLabels(members: readonly FleetMember[]): string[] {
  const counts = new Map<string, number>();
  for (const m of members) counts.set(m.context, (counts.get(m.context) ?? 0) + 1);
  return members.map((m) =>
    (counts.get(m.context) ?? 0) > 1
      ? [m.context, m.namespace ?? '-', ...(m.cluster ? [m.cluster] : [])].join('/')
      : m.context,
  );
}

async function confirmFleet(input: FleetInput, labels: string[]): Promise<void> {
  if (!input.io.isStdinTTY) {
    throw new UsageError('stdin is not a terminal, so ctl cannot ask for confirmation', {
      hint: 'Pass --yes to run without a prompt (as in CI), or --dry-run to see what would change.',
    });
  }
  const to = input.target?.operator ?? 'the target version';
  input.io.stderrWrite(
    `These clusters will be upgraded to ${to}, ${input.maxParallelClusters} at a time:\n${labels.map((l) => `  - ${l}`).join('\n')}\n` +
      `(${fleetPlanCommand(input, to)} shows each plan.)\n`,
  );
  const rl = createInterface({ input: input.stdin as NodeJS.ReadableStream, output: process.stderr });
  try {
    const answer = await rl.question(`Upgrade ${labels.length} clusters? [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new NotConfirmedError('not confirmed: nothing was changed');
  } finally {
    rl.close();
  }
}

/** A member's plan: the same plan flags as this run, with its context (CONTEXT, a plain word). */
function fleetPlanCommand(input: FleetInput, to: string): string {
  const args = input.planArgs ?? NO_PLAN_ARGS;
  // The fleet's own --context flags name every member: each member's plan takes one of them.
  const location = args.location.filter((_, i, all) => all[i] !== '--context' && all[i - 1] !== '--context');
  return nextPlanCommand({ ...args, location }, to).replace(
    /^ctl upgrade plan /,
    'ctl upgrade plan --context CONTEXT ',
  );
}

/**
 * The member's own Io: same settings, every text line prefixed with `[label] ` (stderr's, and
 * stdout's: its result table, its "already at" line; docs/fleet.md "every line a cluster
 * prints"), every NDJSON event given `data.context` instead (an NDJSON line stays JSON). Never a terminal, so members print plain lines, not spinners
 * that would fight over the screen.
 */
function taggedIo(parent: Io, env: NodeJS.ProcessEnv, label: string, context: string, parallel: boolean): Io {
  // The label comes from a kubeconfig or fleet file: the prefix goes out unescaped, so escape it here.
  const prefix = `[${oneLine(label)}] `;
  const command = parent.isGitHubActions ? githubCommandTagger(prefix, parallel) : undefined;
  return new TaggedIo(
    {
      // What a member writes has passed its own Io's edge (escaped, coloured): written as is.
      stdout:
        parent.output === 'text'
          ? linePrefixer(prefix, undefined, (text) => parent.passThrough('stdout', text))
          : { write: (chunk: string) => parent.passThrough('stdout', String(chunk)) },
      stderr: linePrefixer(prefix, command, (text) => parent.passThrough('stderr', text)),
      stdin: { isTTY: false },
      env,
      output: parent.output,
      verbose: parent.verbose,
      quiet: parent.quiet,
      color: parent.colorEnabled,
    },
    context,
  );
}

class TaggedIo extends Io {
  readonly #context: string;

  constructor(options: ConstructorParameters<typeof Io>[0], context: string) {
    super(options);
    this.#context = context;
  }

  override json(value: unknown): void {
    if (value && typeof value === 'object' && !Array.isArray(value) && 'type' in value) {
      const event = value as { data?: Record<string, unknown> };
      super.json({ ...event, data: { ...(event.data ?? {}), context: this.#context } });
      return;
    }
    super.json(value);
  }
}

/**
 * On GitHub Actions a workflow command counts only at the start of its line, so `[east] ::group::`
 * would print as text: the label goes into the command's data instead (`::group::[east] ...`,
 * `::error title=...::[east] ...`). Only ctl writes lines that start with `::` (cluster text is
 * neutralized at the Io's edge). Clusters upgraded in parallel would interleave their groups,
 * and GitHub's log has no nested groups: then the group commands are left out and every line
 * keeps its label.
 */
function githubCommandTagger(prefix: string, parallel: boolean): (line: string) => string | undefined {
  const data = escapeData(prefix);
  return (line) => {
    if (line.startsWith('::endgroup::')) return parallel ? undefined : line;
    if (line.startsWith('::group::')) return parallel ? undefined : `::group::${data}${line.slice(9)}`;
    const end = line.indexOf('::', 2);
    return end < 0 ? `${prefix}${line}` : `${line.slice(0, end + 2)}${data}${line.slice(end + 2)}`;
  };
}

/**
 * Prefixes each line; a chunk may end mid-line, the next chunk continues it. A workflow command
 * (a whole line starting with `::`, as Io.workflowCommand writes it) goes to `command` instead,
 * which rewrites it or drops it (undefined).
 */
function linePrefixer(
  prefix: string,
  command: ((line: string) => string | undefined) | undefined,
  write: (text: string) => void,
): WritableLike {
  let atLineStart = true;
  return {
    isTTY: false,
    write: (chunk: string) => {
      let out = '';
      for (const piece of String(chunk).split(/(?<=\n)/)) {
        if (piece === '') continue;
        if (atLineStart && command && piece.startsWith('::') && piece.endsWith('\n')) {
          const rewritten = command(piece.slice(0, -1));
          if (rewritten !== undefined) out += `${rewritten}\n`;
          continue;
        }
        if (atLineStart && piece !== '\n') out += prefix;
        out += piece;
        atLineStart = piece.endsWith('\n');
      }
      if (out) write(out);
      return true;
    },
  };
}

/** What main prints for a single run (error and hint), tagged; plus an NDJSON error event. */
function reportMemberError(io: Io, context: string, record: RunRecord): void {
  if (!record.error) return;
  io.error(record.error.message);
  if (record.error.hint) io.hint(record.error.hint);
  if (io.output === 'json') {
    io.json({
      ts: new Date().toISOString(),
      type: 'error',
      message: record.error.message,
      data: { context, exitCode: record.exitCode, ...(record.error.hint ? { hint: record.error.hint } : {}) },
    });
  }
}

function isInterrupted(outcome: MemberOutcome): boolean {
  return outcome.record.result === 'interrupted';
}

export interface FleetSummaryRow {
  label: string;
  context: string | null;
  namespace: string | null;
  cluster: string | null;
  result: string;
  exitCode: number;
  durationMs: number;
  failedStep: string | null;
  message: string | null;
  /** The cluster's measured availability, aggregated (null when nothing was measured). */
  availability: FleetAvailability | null;
}

/** One cluster's databases' availability in one row (src/run/availability/). */
export interface FleetAvailability {
  databases: number;
  measured: number;
  /** Databases with at least one outage, and all their outages. */
  withOutages: number;
  outages: number;
  longestOutageMs: number;
  /** The lowest availability share of a measured database (0..1); null when none was measured. */
  lowest: number | null;
}

function aggregateAvailability(
  entries: readonly import('../run/availability/ledger.js').AvailabilityEntry[] | undefined,
): FleetAvailability | null {
  if (!entries || entries.length === 0) return null;
  const measured = entries.filter((entry) => entry.measured);
  return {
    databases: entries.length,
    measured: measured.length,
    withOutages: entries.filter((entry) => entry.outages.length > 0).length,
    outages: entries.reduce((sum, entry) => sum + entry.outages.length, 0),
    longestOutageMs: Math.max(0, ...entries.map((entry) => entry.longestOutageMs)),
    lowest: measured.length > 0 ? Math.min(...measured.map((entry) => entry.availability ?? 1)) : null,
  };
}

function describeAvailability(a: FleetAvailability | null): string {
  if (!a) return '-';
  if (a.measured === 0) return `${a.databases} not measured`;
  if (a.outages === 0) return `${a.measured}/${a.databases} dbs, no outage`;
  return `${a.withOutages}/${a.databases} dbs down, longest ${(a.longestOutageMs / 1000).toFixed(1)} s`;
}

function summaryRow(outcome: MemberOutcome): FleetSummaryRow {
  const { record } = outcome;
  const failedStep = record.steps.find((s) => s.result === 'failed' || s.result === 'interrupted')?.id;
  return {
    label: outcome.label,
    context: record.context ?? outcome.member.context,
    namespace: record.namespace ?? null,
    cluster: record.cluster ?? null,
    result: record.result,
    exitCode: record.exitCode,
    durationMs: record.durationMs,
    failedStep: failedStep ?? null,
    message: record.error?.message.split('\n')[0] ?? null,
    availability: aggregateAvailability(record.availability),
  };
}

export function renderFleetSummary(rows: readonly FleetSummaryRow[]): string {
  const header = ['CLUSTER', 'RESULT', 'DURATION', 'FAILED STEP', 'EXIT', 'AVAILABILITY', 'NOTE'];
  const body = rows.map((r) => [
    `${r.label}${r.namespace && r.cluster ? ` (${r.namespace}/${r.cluster})` : ''}`,
    r.result,
    formatDuration(r.durationMs),
    r.failedStep ?? '-',
    String(r.exitCode),
    describeAvailability(r.availability),
    truncate(r.message ?? '', 70),
  ]);
  return renderColumns(header, body);
}

function renderFleetMarkdown(result: string, rows: readonly FleetSummaryRow[]): string {
  const lines = [
    `### ctl fleet upgrade: ${markdownText(result)}`,
    '',
    '| cluster | result | duration | failed step | exit | availability | note |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    // Labels and messages may come from a kubeconfig or the cluster: no row, cell or link of theirs.
    const cells = [
      r.label,
      r.result,
      formatDuration(r.durationMs),
      r.failedStep ?? '-',
      r.exitCode,
      describeAvailability(r.availability),
      r.message ?? '',
    ];
    lines.push(`| ${cells.map(markdownText).join(' | ')} |`);
  }
  return `${lines.join('\n')}\n`;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
