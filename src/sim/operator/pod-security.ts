import { compareVersions } from '../rest/model.js';
import { NODE_CONTAINER } from './cluster-objects.js';

/**
 * The security context the operator writes into the node pod template, by the operator release
 * that renders it. On OpenShift it decides which SCC admits the pods (src/sim/kube/scc-admission.ts).
 *
 * - Before 7.22.0-6 the node container adds SYS_RESOURCE and runs as UID/GID 1001: only
 *   `redis-enterprise-scc-v2` grants that, which is why the docs have it bound to the cluster's
 *   service account before every upgrade to those releases (DOCS
 *   `kubernetes/7.8.6/upgrade/openshift-cli.md` "Reapply the SCC").
 * - From 7.22.0-6 pods run unprivileged by default, so OpenShift's restricted-v2 admits them and
 *   the SCC can be removed (DOCS `kubernetes/security/allow-resource-adjustment.md`).
 * - With `spec.securityContext.resourceLimits.allowAutoAdjustment: true` the node adjusts its
 *   own resource limits and needs SYS_RESOURCE again, so the SCC stays and is re-applied
 *   (same page). That it also asks for privilege escalation is an inference: the 7.22 SCC,
 *   "the minimal SCC needed ... with automatic FD limit adjustment enabled" (its description),
 *   is the first to allow it (K8S `openshift/scc.yaml` v7.8.6-15 vs v7.22.0-7). Exact container
 *   fields of the real operator are not documented (docs/simulator-internals.md).
 */

export const UNPRIVILEGED_FROM = '7.22.0-6';
const RE_UID = 1001;

export type PodSecurity = 'privileged' | 'unprivileged' | 'auto-adjust';

export function podSecurityFor(operatorVersion: string, allowAutoAdjustment: boolean): PodSecurity {
  if (compareVersions(operatorVersion, UNPRIVILEGED_FROM) < 0) return 'privileged';
  return allowAutoAdjustment ? 'auto-adjust' : 'unprivileged';
}

/** Writes the pod- and node-container security context of `kind` into a pod template (in place). */
export function applyPodSecurity(template: Record<string, unknown>, kind: PodSecurity): void {
  const spec = (template.spec ??= {}) as Record<string, unknown>;
  const containers = Array.isArray(spec.containers) ? (spec.containers as Record<string, unknown>[]) : [];
  if (kind === 'unprivileged') {
    spec.securityContext = { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };
  } else {
    spec.securityContext = { runAsUser: RE_UID, fsGroup: RE_UID, seccompProfile: { type: 'RuntimeDefault' } };
  }
  for (const container of containers) {
    if (container.name !== NODE_CONTAINER) {
      container.securityContext = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
      continue;
    }
    container.securityContext =
      kind === 'unprivileged'
        ? { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } }
        : {
            runAsUser: RE_UID,
            allowPrivilegeEscalation: kind === 'auto-adjust',
            capabilities: { add: ['SYS_RESOURCE'] },
          };
  }
}

/** `spec.securityContext.resourceLimits.allowAutoAdjustment` of a cluster resource. */
export function allowsAutoAdjustment(rec: { spec?: unknown } | Record<string, unknown>): boolean {
  const spec = rec.spec as
    { securityContext?: { resourceLimits?: { allowAutoAdjustment?: unknown } } } | undefined;
  return spec?.securityContext?.resourceLimits?.allowAutoAdjustment === true;
}

/**
 * applyPodSecurity for a template that goes out as a merge patch: pod-level fields the new
 * context no longer has are sent as null, or the merge would keep the old UID and fsGroup.
 */
export function applyPodSecurityAsPatch(template: Record<string, unknown>, kind: PodSecurity): void {
  const spec = (template.spec ??= {}) as Record<string, unknown>;
  const before = (spec.securityContext ?? {}) as Record<string, unknown>;
  applyPodSecurity(template, kind);
  const after = spec.securityContext as Record<string, unknown>;
  for (const key of Object.keys(before)) if (!(key in after)) after[key] = null;
}
