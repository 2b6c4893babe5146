import { resolve } from 'node:path';
import { StalePlanError, UsageError } from '../errors.js';
import { INPUT_FILE_LIMITS, readInputFile } from '../io/paths.js';
import { shellQuote } from '../io/shell-words.js';
import { type CtlTarget, ctlPlanTo, ctlRunPlan } from '../planning/equivalent-commands.js';
import type { Plan, PlanTarget } from '../planning/plan.js';
import { DEFAULT_HELM_CHART, DEFAULT_HELM_REPO } from '../planning/target.js';
import type { ClusterIdentity, UpgradeState } from '../run/state.js';
import type { StateStore } from '../run/state-store.js';
import { recordedCommand, UNSHOWN_RECORDED_COMMAND } from './next-command.js';

// A saved plan (`run --plan <file>`) and the run it started. The state records which plan
// (`savedPlan`: its file and fingerprint, never its content), so that:
// - the resume command ctl prints (the same `--plan <file>`) resumes the run, although the run's
//   own changes (the operator, the cluster's versionTag, ...) make the cluster differ from the
//   plan: only changes the run did not make leave a plan stale (exit 7);
// - a resume with `--to` instead goes on only when it keeps the plan's selection (target
//   versions, method, databases, ignored checks, bundle, helm, modules); else exit 2 says how.

/** What the state keeps of the saved plan a run was started from. */
export interface SavedPlanRecord {
  /** The plan file, absolute (the resume may run from another folder). */
  file: string;
  fingerprint: string;
}

export function savedPlanRecord(planFile: string, plan: Plan): SavedPlanRecord {
  return { file: resolve(planFile), fingerprint: plan.fingerprint };
}

/**
 * Whether `state` is an unfinished run that this saved plan started. A state file of an earlier
 * ctl names no plan: the fingerprint it recorded is the plan's when its last invocation was
 * the `run --plan` that started it (a plan that passed its staleness check plans the same again).
 */
export function startedFromSavedPlan(state: UpgradeState, plan: Plan, finished: boolean): boolean {
  if (finished || state.target.operator !== plan.target.operator) return false;
  const recorded = state.savedPlan ? state.savedPlan.fingerprint : state.planFingerprint;
  return recorded === plan.fingerprint;
}

/**
 * Read-only, before the lock: the unfinished run of this cluster that the saved plan started,
 * if the store records one. A state that cannot be used (unreadable, corrupt, shared-writable,
 * another cluster's) is reported as the run would report it under the lock: that must be fixed
 * before any run, a new plan or not.
 */
export async function recordedRunOfSavedPlan(
  store: StateStore,
  identity: ClusterIdentity,
  plan: Plan,
): Promise<UpgradeState | undefined> {
  const state = await store.load();
  if (!state) return undefined;
  const { checkStateBelongsHere } = await import('../run/cluster-identity.js');
  checkStateBelongsHere(state, identity, store.location, { byContext: store.kind === 'file' });
  const { isFinished } = await import('../run/state.js');
  return startedFromSavedPlan(state, plan, isFinished(state)) ? state : undefined;
}

/**
 * Exit 7, with the plan to make again: the same selection (read from the stale plan) and the
 * same location flags, so following the hint does not quietly go back to the defaults.
 */
export function stalePlanError(planFile: string, plan: Plan, location: readonly string[]): StalePlanError {
  const modules = plan.target.selection?.userDefinedModules
    ? ' (and --user-defined-modules FILE as before)'
    : '';
  const command = [
    'ctl',
    'upgrade',
    'plan',
    '--to',
    plan.target.operator,
    ...selectionFlags(plan.target),
    ...location,
    '--out',
    planFile,
  ];
  return new StalePlanError(`the cluster changed since the plan in ${planFile} was made`, {
    hint: `Make a new plan: ${command.map(shellQuote).join(' ')}${modules}`,
  });
}

/**
 * The plan flags that gave this selection (those a plan records as given, flag or environment,
 * not as resolved), the bundle and helm ones only for the method that uses them.
 */
export function selectionFlags(target: PlanTarget): string[] {
  const selection = target.selection;
  if (!selection) return [];
  const flags: string[] = [];
  const { databases, helm } = selection;
  if (databases.kind !== 'all')
    flags.push('--databases', databases.kind === 'none' ? 'none' : databases.names.join(','));
  for (const id of selection.ignoreChecks) flags.push('--ignore-check', id);
  if (target.method === 'bundle' && selection.bundle) flags.push('--bundle', selection.bundle);
  if (target.method === 'helm') {
    if (helm.release) flags.push('--helm-release', helm.release);
    if (helm.chart && helm.chart !== DEFAULT_HELM_CHART) flags.push('--helm-chart', helm.chart);
    if (helm.repo && helm.repo !== DEFAULT_HELM_REPO) flags.push('--helm-repo', helm.repo);
  }
  return flags;
}

/**
 * A run resumed without `--plan` (e.g. `--to` alone) whose state says a saved plan started it:
 * it goes on only when this run's plan keeps that plan's selection. Exit 2 otherwise, naming
 * what differs, or, when the plan file is gone or changed, that it cannot be known.
 */
export async function checkResumeKeepsSavedPlan(
  state: UpgradeState,
  plan: Plan,
  statePath: string,
  /** The cluster this run was given (kubeconfig, context, `-n`, `--cluster`), for the hints. */
  kube: CtlTarget,
  warn: (message: string) => void,
): Promise<void> {
  const recorded = state.savedPlan;
  // The state's own command, printed only in ctl's form (next-command.ts recordedCommand).
  const recordedResume = state.resumeCommand && recordedCommand(state.resumeCommand, 'ctl upgrade run');
  if (!recorded) {
    // A state of an earlier ctl names no plan; its resume command may still show one was used.
    if (state.resumeCommand && startedWithPlanFlag(state.resumeCommand)) {
      warn(
        `the upgrade to ${state.target.operator} recorded in ${statePath} was started with --plan by an earlier ctl, which did not record the plan: this run goes on with its own options; to keep the plan's selection, stop and run: ${recordedResume ?? UNSHOWN_RECORDED_COMMAND}`,
      );
    }
    return;
  }
  // Both name the cluster this run was given (`kube`), quoted, as every hint's command does.
  const resume = recordedResume || ctlRunPlan(kube, recorded.file);
  const newPlan = `make a new plan with the selection you want (${ctlPlanTo(kube, plan.target.operator, '--out', 'FILE')}, plus the flags of that selection) and run it with ${ctlRunPlan(kube, 'FILE')}`;
  const started = `the upgrade to ${state.target.operator} recorded in ${statePath} was started from the saved plan ${recorded.file}`;
  const saved = await readRecordedPlan(recorded, kube);
  if (typeof saved === 'string') {
    throw new UsageError(`${started}, which ${saved}: ctl cannot tell whether this run keeps its selection`, {
      hint: `Put that plan back and run: ${resume}. Or ${newPlan}.`,
    });
  }
  // The plan file holds the bundle location with its credentials redacted; this run's has them.
  const { asSavedTarget } = await import('../planning/saved-plan.js');
  const differences = selectionDifferences(saved.target, asSavedTarget(plan.target));
  if (differences.length > 0) {
    throw new UsageError(`${started}; this run would change its selection: ${differences.join('; ')}`, {
      hint: `Resume it as it was started: ${resume}. Or ${newPlan}.`,
    });
  }
}

/** Whether a recorded command line (shell words, src/commands/next-command.ts) passes --plan. */
export function startedWithPlanFlag(command: string): boolean {
  return /(^|\s)--plan(=|\s)/.test(command);
}

/** The recorded plan, or why it cannot be used (unreadable, or not the plan the run started from). */
async function readRecordedPlan(recorded: SavedPlanRecord, kube: CtlTarget): Promise<Plan | string> {
  let text: string;
  try {
    // The path comes from the state file: read as `--plan` is, never a device or a FIFO, bounded.
    text = await readInputFile('the plan', recorded.file, INPUT_FILE_LIMITS.plan);
  } catch (error) {
    if (error instanceof UsageError) return `cannot be read (${error.message})`;
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'is gone' : `cannot be read (${code ?? (error as Error).message})`;
  }
  try {
    // Read as `run --plan` reads it (src/planning/saved-plan.ts), not as any JSON.
    const { parseSavedPlan } = await import('../planning/saved-plan.js');
    const plan = parseSavedPlan(text, recorded.file, kube);
    if (plan.fingerprint === recorded.fingerprint) return plan;
  } catch {
    // Not a plan any more: changed since.
  }
  return 'has changed since';
}

/** `what: plan → this run` for each choice the two targets make differently. */
export function selectionDifferences(saved: PlanTarget, now: PlanTarget): string[] {
  const a = choices(saved);
  const b = choices(now);
  return Object.keys(a)
    .filter((key) => a[key]?.value !== b[key]?.value)
    .map((key) => {
      const [was, is] = [a[key]?.shown, b[key]?.shown];
      // Modules with the same names but other sources: say so rather than print their sources.
      return was === is ? `${key} differ from the plan's (${was})` : `${key} ${was} in the plan, ${is} now`;
    });
}

function choices(target: PlanTarget): Record<string, { value: string; shown: string }> {
  const s = target.selection;
  const databases = s?.databases ?? { kind: 'all' };
  const plain = (value: string) => ({ value, shown: value });
  const modules = s?.userDefinedModules;
  return {
    'cluster version': plain(target.clusterVersion ?? 'default'),
    'database version': plain(target.databaseVersion ?? 'default'),
    method: plain(target.method),
    databases: plain(databases.kind === 'names' ? databases.names.join(',') : databases.kind),
    'ignored checks': plain([...(s?.ignoreChecks ?? [])].sort().join(',') || 'none'),
    bundle: plain(s?.bundle ?? 'default'),
    'helm release': plain(s?.helm.release ?? 'default'),
    'helm chart': plain(s?.helm.chart ?? DEFAULT_HELM_CHART),
    'helm repository': plain(s?.helm.repo ?? DEFAULT_HELM_REPO),
    'user-defined modules': modules
      ? { value: JSON.stringify(modules), shown: modules.map((m) => m.name).join(',') }
      : plain('none'),
  };
}
