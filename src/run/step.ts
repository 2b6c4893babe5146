import type { Io } from '../io/io.js';
import type { StepState } from './state.js';

/** What a step sees: its dependencies (clients), and the runner's services. Never raw CLI options. */
export interface StepContext<Deps> {
  readonly deps: Deps;
  readonly io: Io;
  readonly dryRun: boolean;
  /** Aborted on SIGINT/SIGTERM: long waits and child processes must stop when it fires. */
  readonly signal: AbortSignal;
  /** This step's record from an earlier, interrupted attempt (resume), if any. */
  readonly previous: StepState | undefined;
  /** Writes what is about to change into the state file, before the change is made. */
  recordIntent(intent: Record<string, unknown>): Promise<void>;
  progress(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
}

export interface StepResult {
  /** Why nothing needed doing; the step is recorded as skipped. */
  skipped?: string;
  /** What was verified after the change. */
  outcome?: Record<string, unknown>;
  /**
   * What the step did, in a few words for its last progress line (`7.8.2-6 running, 1/1
   * ready`); without it the line says `done`.
   */
  summary?: string;
}

/**
 * What the run engine knows of a step (src/steps/ holds the upgrade's seven), as data like
 * kubeadm's phases: `run` must be idempotent, re-reading live state before it acts, so that
 * resuming after a crash at any point is safe.
 */
export interface Step<Deps> {
  /** A stable id (CLI.md's step ids); the state file records each step under it. */
  readonly id: string;
  readonly title: string;
  run(ctx: StepContext<Deps>): Promise<StepResult>;
}
