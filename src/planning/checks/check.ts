/**
 * What every check is made of (CLI.md "Check ids"): a pure function of the snapshot and the
 * target that says pass, warn or fail, what it saw, and — when not passing — the exact command
 * or field that fixes it. One check per module in this folder; index.ts runs them in order.
 */

import type { RequiredPermission } from '../permissions.js';
import type { ResolvedUpgrade } from '../resolve.js';
import type { ClusterSnapshot, Snapshot } from '../snapshot.js';
import type { Target } from '../target.js';

export type CheckStatus = 'pass' | 'warn' | 'fail';

/** What a check decides: its status, what it saw, and the fix ('' when passing). */
export interface Outcome {
  status: CheckStatus;
  message: string;
  /** The command or field that fixes it; '' when passing. */
  fix: string;
  /**
   * false on a fail that `--ignore-check` cannot get past: the run itself needs what the check
   * found missing (no cluster resource, no management API, a release that is not there), so
   * ignoring it only moves the failure into the change window. Hints never offer
   * `--ignore-check` for it, and naming it with `--ignore-check` leaves it failing, saying why
   * (runChecks): a plan that says Ready must finish.
   */
  ignorable?: false;
  /** With `ignorable: false`: why ignoring cannot get past it (said when --ignore-check names it). */
  firmBecause?: string;
}

/** What every check reads: all of it was read once, before planning (a check makes no request). */
export interface CheckInput {
  snapshot: Snapshot;
  target: Target;
  resolved: ResolvedUpgrade;
  /** Every permission the steps need (src/steps/index.ts REQUIRED_PERMISSIONS). */
  required: readonly RequiredPermission[];
}

export interface Check<Id extends string = string> {
  /** Its id in CLI.md "Check ids" (also what `--ignore-check` names). */
  readonly id: Id;
  /**
   * True when the check reads the cluster resource: without one it cannot say anything, and
   * warns "not checked" instead of running (cluster-found says what is missing).
   */
  readonly needsCluster?: boolean;
  readonly run: (input: CheckInput) => Outcome;
}

export const pass = (message: string): Outcome => ({ status: 'pass', message, fix: '' });
export const warn = (message: string, fix = ''): Outcome => ({ status: 'warn', message, fix });
export const fail = (message: string, fix: string): Outcome => ({ status: 'fail', message, fix });
/** What a firm fail says when no reason of its own is given. */
export const FIRM_BECAUSE = 'the run itself needs what this check found missing';

/**
 * A fail the run cannot get past by --ignore-check (see Outcome.ignorable); `because` says why,
 * in a few words that follow "cannot get past it:".
 */
export const failFirm = (message: string, fix: string, because = FIRM_BECAUSE): Outcome => ({
  status: 'fail',
  message,
  fix,
  ignorable: false,
  firmBecause: because,
});

/** The cluster resource, for a check marked `needsCluster` (runChecks guarantees it). */
export function clusterOf(input: CheckInput): ClusterSnapshot {
  return input.snapshot.cluster as ClusterSnapshot;
}

/** `a, b, c and 4 more`: at most `max` items of a list. */
export function list(items: string[], max = 10): string {
  if (items.length <= max) return items.join(', ');
  return `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}
