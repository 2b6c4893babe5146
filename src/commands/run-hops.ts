/**
 * The hops of `ctl upgrade run` (src/planning/hops.ts): which targets a run goes through, as the
 * state file records them, and the plan of each hop from a fresh read of the cluster. A run of
 * one hop has no `hops` in its state and goes through the target alone, as before.
 */

import { pastedRunCommand } from './next-command.js';
import type { HopState, UpgradeState } from '../run/state.js';
import { hopTarget, hopTargetsOf } from '../planning/hops.js';
import type { Plan } from '../planning/plan.js';
import type { Snapshot } from '../planning/snapshot.js';
import type { StateStoreKind } from '../planning/state-store-kind.js';
import type { Target } from '../planning/target.js';
import type { UpgradeSession } from './session.js';

/** The hops a new state records for this plan; undefined for a single hop. */
export function hopStatesOf(plan: Plan, final: Target): HopState[] | undefined {
  if (!plan.hops) return undefined;
  return hopTargetsOf(plan, final).map((target) => ({
    operator: target.operator,
    ...(target.clusterVersion ? { clusterVersion: target.clusterVersion } : {}),
  }));
}

/**
 * The targets of a run's hops: those the state recorded when the run began (the cluster has
 * moved since, so they are not planned again), the final one being the run's own target.
 */
export function hopTargetsOfState(state: UpgradeState, final: Target): Target[] {
  const hops = state.hops;
  if (!hops) return [final];
  return hops.map((hop, index) =>
    index === hops.length - 1
      ? final
      : hopTarget(final, { operator: hop.operator, clusterVersion: hop.clusterVersion }),
  );
}

/** `hop 2/3 (to 7.8.2-6)`, for messages. */
export function describeHop(state: UpgradeState, index: number): string {
  const hops = state.hops;
  if (!hops) return '';
  return `hop ${index + 1}/${hops.length} (to ${hops[index]?.operator ?? '?'})`;
}

/**
 * A hop's plan from a fresh read of the cluster: the hop before changed it, so this hop's
 * checks see the cluster as it is now, and the preflight step stops the run (exit 3, state
 * kept) when one fails.
 */
export async function planNextHop(
  session: UpgradeSession,
  target: Target,
  stateStore: StateStoreKind | undefined,
): Promise<{ snapshot: Snapshot; plan: Plan }> {
  const { readClusterSnapshot } = await import('./plan.js');
  const { planUpgrade } = await import('../steps/index.js');
  const snapshot = await readClusterSnapshot(session, {
    stateStore,
    readClusterCrd: target.userDefinedModules !== undefined,
  });
  return { snapshot, plan: planUpgrade(snapshot, target) };
}

/**
 * The steps of the current hop a run left pending: those `--only`/`--skip` did not select. The
 * next hop starts from what this one leaves (its operator manages this hop's cluster version),
 * so a run does not go on to it before they are done.
 */
export function stepsLeftInHop(state: UpgradeState, stepIds: readonly string[]): string[] {
  return stepIds.filter((id) => {
    const status = state.steps[id]?.status;
    return status !== 'done' && status !== 'skipped';
  });
}

/**
 * The later hop(s) a run stopped before, as its Next line: the same command without
 * `--only`/`--skip` (and --dry-run), which finishes this hop's steps left, then runs the rest;
 * naming the kubeconfig the run read and its files absolute (pastedRunCommand).
 */
export function laterHopLeft(
  state: UpgradeState,
  index: number,
  stepsLeft: readonly string[],
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): { what: string; command: string } {
  const hops = state.hops ?? [];
  const later = hops
    .slice(index + 1)
    .map((hop, i) => `hop ${index + i + 2}/${hops.length} (to ${hop.operator})`)
    .join(', ');
  return {
    what: `${describeHop(state, index)} left step(s) ${stepsLeft.join(', ')} not run (--only/--skip); then ${later}`,
    command: pastedRunCommand(withoutStepSelection(argv), env),
  };
}

/** argv without `--only X`, `--skip X` (and their `=` forms) and without --dry-run. */
export function withoutStepSelection(argv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--only' || arg === '--skip') {
      i += 1;
      continue;
    }
    if (arg.startsWith('--only=') || arg.startsWith('--skip=')) continue;
    if (arg === '--dry-run' || arg.startsWith('--dry-run=')) continue;
    kept.push(arg);
  }
  return kept;
}
