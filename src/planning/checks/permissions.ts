/**
 * `permissions`: every Kubernetes permission the run needs is granted: reads the
 * SelfSubjectAccessReviews of the snapshot against what the steps need (src/steps/index.ts
 * REQUIRED_PERMISSIONS) under this cluster's conditions (method, platform, webhooks, namespaces,
 * state store). A denied one fails; one not reviewed warns.
 */

import {
  canIArgs,
  describePermission,
  type PermissionCondition,
  requiredPermissionQueries,
  reviewLookup,
} from '../permissions.js';
import type { ResolvedUpgrade } from '../resolve.js';
import type { Snapshot } from '../snapshot.js';
import { type Check, type CheckInput, fail, list, type Outcome, pass, warn } from './check.js';
import { kubectl } from '../equivalent-commands.js';

export function permissionConditionsFor(
  snapshot: Snapshot,
  resolved: ResolvedUpgrade,
): Set<PermissionCondition> {
  const conditions = new Set<PermissionCondition>(['always']);
  conditions.add(resolved.method);
  if (snapshot.platform === 'openshift') conditions.add('openshift');
  // Under OLM the webhooks OLM owns are OLM's (src/steps/admission.ts); one applied by hand is ctl's.
  const ownedByCtl = snapshot.webhooks.some(
    (w) => resolved.method === 'bundle' || (resolved.method === 'olm' && !w.olmOwner),
  );
  if (ownedByCtl) conditions.add('admission');
  if (snapshot.watchedNamespaces.length > 1) conditions.add('multi-namespace');
  if (snapshot.operatorConfig.redbNamespacesLabel) conditions.add('namespace-label');
  if (snapshot.stateStore === 'configmap') conditions.add('cluster-state');
  // Read only for --user-defined-modules (src/planning/cluster-crd.ts).
  if (snapshot.clusterCrd) conditions.add('user-defined-modules');
  return conditions;
}

function checkPermissions({ snapshot, resolved, required }: CheckInput): Outcome {
  const queries = requiredPermissionQueries(required, {
    namespace: snapshot.namespace,
    watchedNamespaces: snapshot.watchedNamespaces,
    conditions: permissionConditionsFor(snapshot, resolved),
  });
  const review = reviewLookup(snapshot.permissions);
  const denied = queries.filter((q) => review(q)?.allowed === false);
  const unreviewed = queries.filter((q) => review(q) === undefined);
  if (denied.length > 0) {
    return fail(
      `${denied.length} of ${queries.length} permissions the plan needs are denied: ${list(denied.map(describePermission), 6)}`,
      `Ask a cluster admin to grant them; check each with kubectl auth can-i, e.g. ${kubectl(snapshot.kubeTarget, 'auth', 'can-i', ...canIArgs(denied[0] as (typeof denied)[number]))}`,
    );
  }
  if (unreviewed.length > 0) {
    return warn(
      `${unreviewed.length} of ${queries.length} permissions could not be reviewed: ${list(unreviewed.map(describePermission), 6)}`,
      // A real question, quoted, rather than placeholders: `<verb>` pasted is a redirection.
      `Check each with kubectl auth can-i, e.g. ${kubectl(snapshot.kubeTarget, 'auth', 'can-i', ...canIArgs(unreviewed[0] as (typeof unreviewed)[number]))}`,
    );
  }
  return pass(`all ${queries.length} permissions the plan needs are granted`);
}

export const permissionsCheck = {
  id: 'permissions',
  run: checkPermissions,
} as const satisfies Check;
