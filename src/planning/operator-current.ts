import { compareOperatorVersions, parseOperatorVersion } from '../release/versions.js';
import type { ResolvedUpgrade } from './resolve.js';

/** The operator already runs the target or later: the operator step has nothing to do. */
export function operatorIsCurrent(resolved: Pick<ResolvedUpgrade, 'operator'>): boolean {
  const current = resolved.operator.current ? parseOperatorVersion(resolved.operator.current) : undefined;
  const wanted = parseOperatorVersion(resolved.operator.target);
  return Boolean(current && wanted && compareOperatorVersions(current, wanted) >= 0);
}
