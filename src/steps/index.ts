import type { Plan } from '../planning/plan.js';
import { DEFAULT_MAX_HOPS, planPath } from '../planning/hops.js';
import { buildPlan, planFingerprint } from '../planning/plan.js';
import { type RequiredPermission, requiredPermissionsOf } from '../planning/permissions.js';
import type { Snapshot } from '../planning/snapshot.js';
import type { Target } from '../planning/target.js';
import { admissionStep } from './admission.js';
import { clusterStep } from './cluster.js';
import { databasesStep } from './databases.js';
import { monitorStep } from './monitor.js';
import { operatorStep } from './operator.js';
import { preflightStep } from './preflight.js';
import { securityContextStep } from './security-context.js';
import { withSccRemovalAfterRoll } from './security-context-removal.js';
import { withSummary } from './outcome-summary.js';

import { releaseFilesReadBy } from './release-files.js';

/**
 * The seven steps in the documented order (CLI.md): the only place where order lives. Each
 * result says what the step did, for its last progress line (outcome-summary.ts).
 */
export const STEPS = [
  withSummary(preflightStep),
  withSummary(operatorStep),
  withSummary(admissionStep),
  withSummary(securityContextStep),
  withSummary(clusterStep),
  // The monitor step also removes the OpenShift SCC once the roll is over (7.22.0-6 and later).
  withSummary(withSccRemovalAfterRoll(monitorStep)),
  withSummary(databasesStep),
] as const;

export type StepId = (typeof STEPS)[number]['id'];

/** The files next to a target's bundle that the run may read (the target-available probes). */
export const releaseFilesRead = releaseFilesReadBy(STEPS);

export const STEP_IDS: readonly StepId[] = STEPS.map((step) => step.id);

/** Every Kubernetes permission the steps need, each tagged with its step. */
export const REQUIRED_PERMISSIONS: readonly RequiredPermission[] = requiredPermissionsOf(STEPS);

export function isStepId(value: string): value is StepId {
  return (STEP_IDS as readonly string[]).includes(value);
}

/** The plan of the whole upgrade: each step's own `plan`, in order. */
export function planUpgrade(snapshot: Snapshot, target: Target): Plan {
  return buildPlan(snapshot, target, STEPS);
}

/**
 * The plan of the upgrade to `target` in as many hops as it needs, at most `maxHops`
 * (src/planning/hops.ts): the single-target plan when one hop suffices.
 */
export function planUpgradePath(snapshot: Snapshot, target: Target, maxHops = DEFAULT_MAX_HOPS): Plan {
  return planPath(snapshot, target, maxHops, planUpgrade, (snap, plan) => planFingerprint(snap, plan.target));
}
