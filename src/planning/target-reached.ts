import type { Plan } from './plan.js';

/**
 * Whether the cluster already is where the plan would take it: one hop, no failed check, and
 * every step after preflight planned to do nothing (preflight always re-checks and saves the
 * cluster resource, so it never counts). The monitor step plans nothing only when the cluster
 * runs the target tag and is Running, so a roll still going on is never "reached". The steps
 * are planned whatever --only/--skip say, so a step left out never hides work still to do.
 */
export function targetReached(plan: Plan): boolean {
  if (plan.blocked) return false;
  if ((plan.hops?.length ?? 1) > 1) return false;
  return plan.steps.every((step) => step.id === 'preflight' || step.skip !== null);
}
