/**
 * The multi-namespace RoleBinding `redb-role` may point at a ClusterRole instead of the
 * release's Role (DOCS kubernetes/re-clusters/multi-namespace.md). `roleRef` is immutable: the
 * API server answers 422 ("cannot change roleRef") to an apply that changes it, which would fail
 * the operator step after the operator was already upgraded. So the live binding is read
 * first; one whose roleRef differs from the release's is kept as it is (with a warning), and
 * only the Role is applied.
 */

import type { KubeObject } from '../kube/reads.js';

interface RoleRef {
  apiGroup?: string;
  kind?: string;
  name?: string;
}

function roleRefOf(object: KubeObject | undefined): RoleRef | undefined {
  const ref = (object as { roleRef?: unknown } | undefined)?.roleRef;
  return ref && typeof ref === 'object' ? (ref as RoleRef) : undefined;
}

export function describeRoleRef(ref: RoleRef | undefined): string {
  return ref ? `${ref.kind ?? '?'} ${ref.name ?? '?'}` : 'nothing';
}

/** Whether to apply the release's binding over the live one; a warning when it is kept. */
export function bindingDecision(
  live: KubeObject | undefined,
  desired: KubeObject,
  namespace: string,
): { apply: true } | { apply: false; warning: string } {
  const liveRef = roleRefOf(live);
  const wantedRef = roleRefOf(desired);
  if (!live || !liveRef || !wantedRef) return { apply: true };
  const same =
    liveRef.kind === wantedRef.kind &&
    liveRef.name === wantedRef.name &&
    (liveRef.apiGroup ?? 'rbac.authorization.k8s.io') === (wantedRef.apiGroup ?? 'rbac.authorization.k8s.io');
  if (same) return { apply: true };
  return {
    apply: false,
    warning:
      `RoleBinding ${live.metadata?.name ?? 'redb-role'} in ${namespace} points at ${describeRoleRef(liveRef)}, not ${describeRoleRef(wantedRef)}: ` +
      `kept as it is (roleRef cannot change); only the Role was reapplied. Check that ${describeRoleRef(liveRef)} grants what the release's Role does ` +
      `(multi-namespace-redb/role.yaml).`,
  };
}
