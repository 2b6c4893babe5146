import type { Io } from '../io/io.js';
import type { StepState } from '../upgrade/state.js';

/** The seven steps, in the order CLI.md fixes; src/steps/index.ts holds the step objects. */
export const STEP_IDS = [
  'preflight',
  'operator',
  'admission',
  'security-context',
  'cluster',
  'monitor',
  'databases',
] as const;

export type StepId = (typeof STEP_IDS)[number];

export function isStepId(value: string): value is StepId {
  return (STEP_IDS as readonly string[]).includes(value);
}

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
}

/**
 * A step, as data (kubeadm's phases): `run` must be idempotent, re-reading live state before it
 * acts, so that resuming after a crash at any point is safe.
 */
export interface Step<Deps> {
  id: StepId;
  title: string;
  run(ctx: StepContext<Deps>): Promise<StepResult>;
}
