/**
 * A recorded run that stopped in its preflight step changed nothing: preflight only reads the
 * cluster, judges the plan's checks and saves a backup of the cluster resource beside the state
 * (src/steps/preflight.ts). Such a run must not hold the state against a run to another
 * `--to`, e.g. the target its own failed check suggested (issue 27 item 7).
 */

import type { UpgradeState } from './state.js';

/** Why the recorded run may be replaced, or undefined when it may have changed something. */
export function runThatStoppedInPreflight(
  state: UpgradeState,
  stepIds: readonly string[],
): string | undefined {
  // A later hop: the hops before it did change the cluster.
  if ((state.hop ?? 0) > 0 || state.hops?.some((hop) => hop.finishedAt !== undefined)) return undefined;
  const preflight = state.steps.preflight;
  // in-progress: killed while judging the checks, which changes nothing either.
  if (!preflight || (preflight.status !== 'failed' && preflight.status !== 'in-progress')) return undefined;
  const later = stepIds.filter((id) => id !== 'preflight');
  if (later.some((id) => (state.steps[id]?.status ?? 'pending') !== 'pending')) return undefined;
  return preflight.status === 'failed'
    ? 'stopped in preflight, having changed nothing'
    : 'was stopped during preflight, having changed nothing';
}
