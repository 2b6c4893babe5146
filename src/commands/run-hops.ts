/**
 * The hops of `ctl upgrade run` (src/planning/hops.ts): which targets a run goes through, as the
 * state file records them, and the plan of each hop from a fresh read of the cluster. A run of
 * one hop has no `hops` in its state and goes through the target alone, as before.
 */

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
  const snapshot = await readClusterSnapshot(session, stateStore);
  return { snapshot, plan: planUpgrade(snapshot, target) };
}
