/**
 * Every Kubernetes permission an upgrade uses, as data: the snapshot reviews them (from
 * SelfSubjectRulesReview rules, else SelfSubjectAccessReview), the `permissions` check compares, and an RBAC manifest test can
 * compare a Role/ClusterRole against the same table.
 */

import type { StepId } from '../steps/types.js';

/** Where a permission is needed: cluster-wide, in the cluster's namespace, or in every watched namespace. */
export type PermissionScope = 'cluster' | 'namespace' | 'watched-namespaces';

/**
 * When a permission is needed. `always`: every upgrade; `helm`/`bundle`: the operator upgrade
 * method; `openshift`: the SCC step; `admission`: the webhook is installed and ctl reapplies it;
 * `multi-namespace`: databases live in namespaces other than the cluster's;
 * `namespace-label`: the operator picks its namespaces by label (REDB_NAMESPACES_LABEL);
 * `cluster-state`: the run keeps its state and lock in the cluster (`--state-store configmap`).
 */
export type PermissionCondition =
  | 'always'
  | 'helm'
  | 'bundle'
  | 'openshift'
  | 'admission'
  | 'multi-namespace'
  | 'namespace-label'
  | 'cluster-state';

export interface RequiredPermission {
  group: string;
  resource: string;
  subresource?: string;
  verbs: readonly string[];
  scope: PermissionScope;
  when: PermissionCondition;
  step: StepId;
  why: string;
}

const RE = 'app.redislabs.com';
const READ = ['get', 'list', 'watch'] as const;
const APPLY = ['get', 'create', 'patch'] as const;

export const REQUIRED_PERMISSIONS: readonly RequiredPermission[] = [
  // ---- reads of the snapshot and the monitor, and the changes every upgrade makes
  {
    group: RE,
    resource: 'redisenterpriseclusters',
    verbs: [...READ, 'patch'],
    scope: 'namespace',
    when: 'always',
    step: 'cluster',
    why: 'read the cluster resource and set its image tag',
  },
  {
    group: RE,
    resource: 'redisenterprisedatabases',
    verbs: ['list', 'patch'],
    scope: 'watched-namespaces',
    when: 'always',
    step: 'databases',
    why: 'read the databases and set their version',
  },
  {
    group: RE,
    resource: 'redisenterpriseactiveactivedatabases',
    verbs: ['list', 'patch'],
    scope: 'watched-namespaces',
    when: 'always',
    step: 'databases',
    why: 'read the Active-Active databases and set their version',
  },
  {
    group: 'apps',
    resource: 'deployments',
    verbs: READ,
    scope: 'namespace',
    when: 'always',
    step: 'operator',
    why: 'read the operator Deployment and wait for its rollout',
  },
  {
    group: 'apps',
    resource: 'statefulsets',
    verbs: READ,
    scope: 'namespace',
    when: 'always',
    step: 'monitor',
    why: 'follow the rolling upgrade of the cluster pods',
  },
  {
    group: '',
    resource: 'pods',
    verbs: ['list', 'watch'],
    scope: 'namespace',
    when: 'always',
    step: 'monitor',
    why: 'follow each cluster pod',
  },
  {
    group: '',
    resource: 'pods',
    subresource: 'portforward',
    verbs: ['create'],
    scope: 'namespace',
    when: 'always',
    step: 'preflight',
    why: 'reach the management API on port 9443 from outside the cluster',
  },
  {
    group: '',
    resource: 'events',
    verbs: ['list', 'watch'],
    scope: 'namespace',
    when: 'always',
    step: 'monitor',
    why: "report the operator's warnings during the upgrade",
  },
  {
    group: '',
    resource: 'configmaps',
    verbs: ['get'],
    scope: 'namespace',
    when: 'always',
    step: 'preflight',
    why: "read operator-environment-config (the operator's watched namespaces)",
  },
  {
    group: '',
    resource: 'secrets',
    verbs: ['get'],
    scope: 'namespace',
    when: 'always',
    step: 'preflight',
    why: 'read the API credentials and admission-tls',
  },
  {
    group: 'admissionregistration.k8s.io',
    resource: 'validatingwebhookconfigurations',
    verbs: ['list'],
    scope: 'cluster',
    when: 'always',
    step: 'preflight',
    why: 'find the admission webhook',
  },
  {
    group: '',
    resource: 'namespaces',
    verbs: ['list'],
    scope: 'cluster',
    when: 'namespace-label',
    step: 'preflight',
    why: 'find the namespaces labelled for the operator',
  },

  // ---- operator upgrade from the bundle (kubectl apply -f bundle.yaml)
  {
    group: 'apps',
    resource: 'deployments',
    verbs: APPLY,
    scope: 'namespace',
    when: 'bundle',
    step: 'operator',
    why: 'apply the operator Deployment of the bundle',
  },
  {
    group: '',
    resource: 'serviceaccounts',
    verbs: APPLY,
    scope: 'namespace',
    when: 'bundle',
    step: 'operator',
    why: 'apply the operator ServiceAccount of the bundle',
  },
  {
    group: '',
    resource: 'services',
    verbs: APPLY,
    scope: 'namespace',
    when: 'bundle',
    step: 'operator',
    why: 'apply the admission Service of the bundle',
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'roles',
    verbs: APPLY,
    scope: 'namespace',
    when: 'bundle',
    step: 'operator',
    why: 'apply the operator Role of the bundle',
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'rolebindings',
    verbs: APPLY,
    scope: 'namespace',
    when: 'bundle',
    step: 'operator',
    why: 'apply the operator RoleBinding of the bundle',
  },
  {
    group: 'apiextensions.k8s.io',
    resource: 'customresourcedefinitions',
    verbs: APPLY,
    scope: 'cluster',
    when: 'bundle',
    step: 'operator',
    why: 'apply the CRDs of the bundle',
  },

  // ---- operator upgrade with helm (the chart's resources, and helm's release Secrets)
  {
    group: '',
    resource: 'secrets',
    verbs: ['list', 'create', 'update', 'patch', 'delete'],
    scope: 'namespace',
    when: 'helm',
    step: 'operator',
    why: "store the helm release (helm's storage driver)",
  },
  {
    group: 'apps',
    resource: 'deployments',
    verbs: APPLY,
    scope: 'namespace',
    when: 'helm',
    step: 'operator',
    why: "upgrade the chart's operator Deployment",
  },
  {
    group: '',
    resource: 'serviceaccounts',
    verbs: APPLY,
    scope: 'namespace',
    when: 'helm',
    step: 'operator',
    why: "upgrade the chart's ServiceAccount",
  },
  {
    group: '',
    resource: 'services',
    verbs: APPLY,
    scope: 'namespace',
    when: 'helm',
    step: 'operator',
    why: "upgrade the chart's admission Service",
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'roles',
    verbs: APPLY,
    scope: 'namespace',
    when: 'helm',
    step: 'operator',
    why: "upgrade the chart's Role",
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'rolebindings',
    verbs: APPLY,
    scope: 'namespace',
    when: 'helm',
    step: 'operator',
    why: "upgrade the chart's RoleBinding",
  },
  {
    group: 'apiextensions.k8s.io',
    resource: 'customresourcedefinitions',
    verbs: APPLY,
    scope: 'cluster',
    when: 'helm',
    step: 'operator',
    why: "upgrade the chart's CRDs",
  },
  {
    group: 'admissionregistration.k8s.io',
    resource: 'validatingwebhookconfigurations',
    verbs: APPLY,
    scope: 'cluster',
    when: 'helm',
    step: 'operator',
    why: "upgrade the chart's admission webhook",
  },

  // ---- admission webhook reapplied after a bundle upgrade
  {
    group: 'admissionregistration.k8s.io',
    resource: 'validatingwebhookconfigurations',
    verbs: [...APPLY, 'delete'],
    scope: 'cluster',
    when: 'admission',
    step: 'admission',
    why: 'reapply the webhook, set its caBundle, delete the pre-6.4.2 one',
  },

  // ---- OpenShift: the SCC of privileged clusters
  {
    group: 'security.openshift.io',
    resource: 'securitycontextconstraints',
    verbs: [...APPLY, 'delete'],
    scope: 'cluster',
    when: 'openshift',
    step: 'security-context',
    why: 'remove or reapply redis-enterprise-scc-v2',
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'rolebindings',
    verbs: [...APPLY, 'delete'],
    scope: 'namespace',
    when: 'openshift',
    step: 'security-context',
    why: 'bind or unbind the SCC for the cluster service account (oc adm policy)',
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'rolebindings',
    verbs: ['list'],
    scope: 'cluster',
    when: 'openshift',
    step: 'security-context',
    why: "find other namespaces' clusters bound to the SCC before deleting it",
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'clusterrolebindings',
    verbs: ['list'],
    scope: 'cluster',
    when: 'openshift',
    step: 'security-context',
    why: 'find cluster-wide bindings of the SCC before deleting it',
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'clusterroles',
    // bind: creating a RoleBinding to a ClusterRole needs it (RBAC escalation prevention).
    verbs: [...APPLY, 'delete', 'bind'],
    scope: 'cluster',
    when: 'openshift',
    step: 'security-context',
    why: 'the ClusterRole system:openshift:scc:<scc> of oc adm policy add-scc-to-user',
  },

  // ---- --state-store configmap: the state in a ConfigMap, the lock in a Lease (state-store-configmap.ts)
  {
    group: '',
    resource: 'configmaps',
    verbs: ['get', 'create', 'update'],
    scope: 'namespace',
    when: 'cluster-state',
    step: 'preflight',
    why: 'keep the run state in ConfigMap ctl-upgrade-state-<cluster> (--state-store configmap)',
  },
  {
    group: 'coordination.k8s.io',
    resource: 'leases',
    verbs: ['get', 'create', 'update', 'delete'],
    scope: 'namespace',
    when: 'cluster-state',
    step: 'preflight',
    why: 'hold the upgrade lock as Lease ctl-upgrade-lock-<cluster> (--state-store configmap)',
  },

  // ---- databases in other namespaces: the operator's role there is reapplied on each upgrade
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'roles',
    verbs: APPLY,
    scope: 'watched-namespaces',
    when: 'multi-namespace',
    step: 'operator',
    why: 'reapply redb-role in each managed namespace',
  },
  {
    group: 'rbac.authorization.k8s.io',
    resource: 'rolebindings',
    verbs: APPLY,
    scope: 'watched-namespaces',
    when: 'multi-namespace',
    step: 'operator',
    why: 'reapply the redb-role binding in each managed namespace',
  },
];

/** What decides which permissions apply. */
export interface PermissionSituation {
  namespace: string;
  watchedNamespaces: readonly string[];
  conditions: ReadonlySet<PermissionCondition>;
}

/** One SelfSubjectAccessReview question. `namespace` undefined: cluster-scoped; '': every namespace. */
export interface PermissionQuery {
  verb: string;
  group: string;
  resource: string;
  subresource?: string | undefined;
  namespace?: string | undefined;
}

export interface PermissionReview extends PermissionQuery {
  allowed: boolean;
  reason?: string | undefined;
}

/** The concrete questions for a situation, one per verb and namespace, without duplicates. */
export function requiredPermissionQueries(situation: PermissionSituation): PermissionQuery[] {
  const seen = new Set<string>();
  const queries: PermissionQuery[] = [];
  for (const permission of REQUIRED_PERMISSIONS) {
    if (permission.when !== 'always' && !situation.conditions.has(permission.when)) continue;
    const namespaces =
      permission.scope === 'cluster'
        ? [undefined]
        : permission.scope === 'namespace'
          ? [situation.namespace]
          : unique([situation.namespace, ...situation.watchedNamespaces]);
    for (const namespace of namespaces) {
      for (const verb of permission.verbs) {
        const query: PermissionQuery = {
          verb,
          group: permission.group,
          resource: permission.resource,
          ...(permission.subresource ? { subresource: permission.subresource } : {}),
          ...(namespace !== undefined ? { namespace } : {}),
        };
        const key = permissionKey(query);
        if (seen.has(key)) continue;
        seen.add(key);
        queries.push(query);
      }
    }
  }
  return queries;
}

export function permissionKey(query: PermissionQuery): string {
  const resource = query.subresource ? `${query.resource}/${query.subresource}` : query.resource;
  return `${query.verb} ${query.group || 'core'}/${resource} ${query.namespace ?? '(cluster)'}`;
}

/** `patch redisenterpriseclusters.app.redislabs.com -n redis`, the way `kubectl auth can-i` takes it. */
export function describePermission(query: PermissionQuery): string {
  const resource = query.subresource ? `${query.resource}/${query.subresource}` : query.resource;
  const qualified = query.group ? `${resource}.${query.group}` : resource;
  const where =
    query.namespace === undefined
      ? ''
      : query.namespace === ''
        ? ' --all-namespaces'
        : ` -n ${query.namespace}`;
  return `${query.verb} ${qualified}${where}`;
}

/** Whether a review answers a query: the same question, or the same one for every namespace. */
export function findReview(
  reviews: readonly PermissionReview[],
  query: PermissionQuery,
): PermissionReview | undefined {
  const key = permissionKey(query);
  const exact = reviews.find((review) => permissionKey(review) === key);
  if (exact) return exact;
  if (query.namespace === undefined || query.namespace === '') return undefined;
  const everywhere = reviews.find(
    (review) => permissionKey(review) === permissionKey({ ...query, namespace: '' }),
  );
  return everywhere?.allowed ? everywhere : undefined;
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/** One RBAC rule, as a SelfSubjectRulesReview lists it. */
export interface PermissionRule {
  verbs: readonly string[];
  apiGroups?: readonly string[] | undefined;
  resources?: readonly string[] | undefined;
  resourceNames?: readonly string[] | undefined;
}

/**
 * Whether one of the rules grants the question, with RBAC's matching: `*` for verbs, groups and
 * resources, `<resource>/<subresource>`, or a wildcard resource with that subresource. A rule limited to
 * resourceNames never grants a question about every object, which these questions are.
 */
export function rulesAllow(rules: readonly PermissionRule[], query: PermissionQuery): boolean {
  const combined = query.subresource ? `${query.resource}/${query.subresource}` : query.resource;
  return rules.some(
    (rule) =>
      (rule.resourceNames ?? []).length === 0 &&
      (rule.verbs.includes('*') || rule.verbs.includes(query.verb)) &&
      ((rule.apiGroups ?? []).includes('*') || (rule.apiGroups ?? []).includes(query.group)) &&
      (rule.resources ?? []).some(
        (resource) =>
          resource === '*' ||
          resource === combined ||
          (query.subresource !== undefined && resource === `*/${query.subresource}`),
      ),
  );
}
