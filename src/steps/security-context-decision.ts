/**
 * What happens to the OpenShift SCC `redis-enterprise-scc-v2` in an upgrade, decided once for
 * the plan and the steps (sources: redis-facts.md §3 and §12):
 *
 * - Targets before 7.22.0-6 still run privileged pods: "Reapply the SCC" of the target release
 *   (`oc apply -f openshift/scc.yaml`) and bind it with `oc adm policy add-scc-to-user`
 *   (DOCS `kubernetes/7.8.6/upgrade/openshift-cli.md`). It is never removed.
 * - From 7.22.0-6 pods run unprivileged: the SCC is unbound and deleted "after you complete the
 *   upgrade" (DOCS `kubernetes/security/allow-resource-adjustment.md`; `openshift-cli.md`:
 *   "After upgrading, remove ..."). Until the cluster has rolled its pods still use the old,
 *   privileged template, so the removal runs after the monitor step, never before the cluster step.
 * - With `spec.securityContext.resourceLimits.allowAutoAdjustment: true` the SCC is kept and
 *   the target release's `openshift/scc.yaml` is RE-APPLIED (same page): its content changed at
 *   7.22 (privilege escalation allowed from v7.22.0-7, K8S `openshift/scc.yaml`), so the old one
 *   would refuse the new pods.
 */

export type SccDecision =
  | { kind: 'skip'; reason: string }
  /** Re-apply the target's scc.yaml before the cluster step and keep the SA bound. */
  | { kind: 'keep'; why: string }
  /** Keep the cluster admitted until it has rolled, then unbind (and delete when unshared). */
  | { kind: 'remove-after-roll' };

export interface SccDecisionInput {
  platform: 'kubernetes' | 'openshift';
  /** The target operator runs unprivileged pods (7.22.0-6 and later). */
  unprivilegedTarget: boolean;
  allowAutoAdjustment: boolean;
  keepScc: boolean;
}

export const SCC_NAME = 'redis-enterprise-scc-v2';

export function decideScc(input: SccDecisionInput): SccDecision {
  if (input.platform !== 'openshift') return { kind: 'skip', reason: 'not OpenShift' };
  if (input.keepScc) return { kind: 'skip', reason: `--keep-scc: ${SCC_NAME} is left as it is` };
  if (!input.unprivilegedTarget) {
    return { kind: 'keep', why: `the target still runs privileged pods: the docs reapply ${SCC_NAME}` };
  }
  if (input.allowAutoAdjustment) {
    return {
      kind: 'keep',
      why: `spec.securityContext.resourceLimits.allowAutoAdjustment is on: the pods still need ${SCC_NAME}`,
    };
  }
  return { kind: 'remove-after-roll' };
}
