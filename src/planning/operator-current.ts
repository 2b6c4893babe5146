import { compareOperatorVersions, parseOperatorVersion } from '../release/versions.js';
import type { ResolvedUpgrade } from './resolve.js';
import type { OperatorSnapshot } from './snapshot-model.js';

/** The operator already runs the target or later: the operator step has nothing to do. */
export function operatorIsCurrent(resolved: Pick<ResolvedUpgrade, 'operator'>): boolean {
  const current = resolved.operator.current ? parseOperatorVersion(resolved.operator.current) : undefined;
  const wanted = parseOperatorVersion(resolved.operator.target);
  return Boolean(current && wanted && compareOperatorVersions(current, wanted) >= 0);
}

/**
 * The operator runs the target itself, but its Deployment has fewer ready replicas than it wants
 * (a restart not finished, a crash loop, an image that cannot be pulled): not "already at the
 * target". The operator step applies the target again and waits for it, as `kubectl apply` then
 * `kubectl rollout status` would (the run half: src/steps/operator.ts upgradeOperator), and fails
 * with what the rollout shows when it does not come up.
 */
export function operatorAtTargetNotReady(
  operator: Pick<OperatorSnapshot, 'replicas' | 'readyReplicas'> | undefined,
  resolved: Pick<ResolvedUpgrade, 'operator'>,
): boolean {
  if (!operator || operator.readyReplicas >= operator.replicas) return false;
  const current = resolved.operator.current ? parseOperatorVersion(resolved.operator.current) : undefined;
  const wanted = parseOperatorVersion(resolved.operator.target);
  return Boolean(current && wanted && compareOperatorVersions(current, wanted) === 0);
}

/** The operator step has nothing to do: the operator runs the target or later, and is ready at the target. */
export function operatorStepIsDone(
  operator: Pick<OperatorSnapshot, 'replicas' | 'readyReplicas'> | undefined,
  resolved: Pick<ResolvedUpgrade, 'operator'>,
): boolean {
  return operatorIsCurrent(resolved) && !operatorAtTargetNotReady(operator, resolved);
}
