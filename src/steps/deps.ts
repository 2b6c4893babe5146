import type { ApiClient } from '../api/client.js';
import type { ApiWriter } from '../api/writer.js';
import type { Helm } from '../exec/helm.js';
import type { KubeClients } from '../kube/client.js';
import type { KubeWriter } from '../kube/write.js';
import type { Plan, StepPlanner } from '../planning/plan.js';
import type { ResolvedUpgrade } from '../planning/resolve.js';
import type { Snapshot } from '../planning/snapshot.js';
import type { Target } from '../planning/target.js';
import type { AvailabilityMeasurement } from '../run/availability/measurement.js';
import type { Step } from '../run/step.js';

/** A clock the steps wait with; tests pass one that does not really sleep. */
export interface StepClock {
  now(): number;
  /** Resolves after ms, or rejects when the signal aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** The options of `ctl upgrade run` that change what steps do (already validated by the CLI). */
export interface RunSettings {
  remediate: boolean;
  moduleFiles: string[];
  /** Databases upgraded at once by the databases step. */
  maxParallel: number;
  keepScc: boolean;
  /** Overall deadline of the run and no-progress limit of waits, in ms. */
  timeoutMs: number;
  stallTimeoutMs: number;
  /** Where preflight saves the cluster resource: next to the state, not in the working folder. */
  backupDir?: string | undefined;
}

/**
 * What every step gets (release-it's container): clients built once by the command. Every
 * change goes through a writer bound to the run (kubeWriter, apiWriter, helm.change), which
 * honours dry-run itself, so steps never branch on it to write; they only ask `ctx.dryRun`
 * to skip waiting for a change that was not made.
 * `snapshot` and `plan` are read by the CLI at the start of every invocation (a resumed run
 * reads them afresh); they can be stale once a step has changed something, so steps re-read
 * live state before acting and use them for names, dialect, target and the planned actions.
 */
export interface UpgradeDeps {
  /** Reads of the cluster; changes go through kubeWriter. */
  kube: KubeClients;
  kubeWriter: KubeWriter;
  /** Reads of the management API; changes go through apiWriter. */
  api: ApiClient;
  apiWriter: ApiWriter;
  helm: Helm;
  settings: RunSettings;
  clock: StepClock;
  snapshot: Snapshot;
  plan: Plan;
  /** What the plan was made for (from the flags, or the saved plan's selection with --plan). */
  target: Target;
  /**
   * `target` settled against the snapshot (method, bundle, helm release and chart), by the same
   * function the plan used: a step's run and its plan cannot disagree on them.
   */
  resolved: ResolvedUpgrade;
  /**
   * The run's measurement of database availability (src/run/availability/): the monitor tells
   * it which pod is restarting. Absent in a dry run and in tests that do not measure.
   */
  availability?: AvailabilityMeasurement | undefined;
}

/**
 * One step of the upgrade, in one module: its id and title, its pure `plan` (what it would do,
 * shown by `ctl upgrade plan`) and its idempotent `run`. src/steps/index.ts puts them in order.
 */
export interface UpgradeStep<Id extends string = string> extends Step<UpgradeDeps>, StepPlanner {
  readonly id: Id;
}
