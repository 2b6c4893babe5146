/**
 * The Kubernetes permissions an upgrade uses, as data. Each step lists its own (src/steps/);
 * src/steps/index.ts gathers them into REQUIRED_PERMISSIONS. The snapshot reviews them (from
 * SelfSubjectRulesReview rules, else SelfSubjectAccessReview), the `permissions` check
 * compares, and an RBAC manifest test can compare a Role/ClusterRole against the same table.
 */

/** Where a permission is needed: cluster-wide, in the cluster's namespace, or in every watched namespace. */
export type PermissionScope = 'cluster' | 'namespace' | 'watched-namespaces';

/**
 * When a permission is needed. `always`: every upgrade; `helm`/`bundle`/`olm`: the operator
 * upgrade method; `openshift`: the SCC step; `admission`: the webhook is installed and ctl reapplies it;
 * `multi-namespace`: databases live in namespaces other than the cluster's;
 * `namespace-label`: the operator picks its namespaces by label (REDB_NAMESPACES_LABEL);
 * `cluster-state`: the run keeps its state and lock in the cluster (`--state-store configmap`);
 * `user-defined-modules`: `--user-defined-modules` is given (the cluster resource's CRD is read).
 */
export type PermissionCondition =
  | 'always'
  | 'helm'
  | 'bundle'
  | 'olm'
  | 'openshift'
  | 'admission'
  | 'multi-namespace'
  | 'namespace-label'
  | 'cluster-state'
  | 'user-defined-modules';

export interface RequiredPermission {
  group: string;
  resource: string;
  subresource?: string;
  verbs: readonly string[];
  scope: PermissionScope;
  when: PermissionCondition;
  /** The step that needs it (an id of src/steps/index.ts). */
  step: string;
  why: string;
}

export const REDIS_API_GROUP = 'app.redislabs.com';
export const READ_VERBS = ['get', 'list', 'watch'] as const;
export const APPLY_VERBS = ['get', 'create', 'patch'] as const;

/** A permission as a step lists it (src/steps/<step>.ts); the step's id is added when they are gathered. */
export type StepPermission = Omit<RequiredPermission, 'step'>;

/** Every permission the steps need, each tagged with its step: the table the plan reviews. */
export function requiredPermissionsOf(
  steps: readonly { id: string; permissions: readonly StepPermission[] }[],
): RequiredPermission[] {
  return steps.flatMap((step) => step.permissions.map((permission) => ({ ...permission, step: step.id })));
}

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
export function requiredPermissionQueries(
  required: readonly RequiredPermission[],
  situation: PermissionSituation,
): PermissionQuery[] {
  const seen = new Set<string>();
  const queries: PermissionQuery[] = [];
  for (const permission of required) {
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

/**
 * `patch redisenterpriseclusters.app.redislabs.com -n redis`, the way `kubectl auth can-i` takes
 * it: for the messages that list permissions. A command to paste takes canIArgs instead, each
 * word quoted (a namespace is a value from outside).
 */
export function describePermission(query: PermissionQuery): string {
  return canIArgs(query).join(' ');
}

/** The arguments of `kubectl auth can-i` that ask for `query`: verb, resource, namespace. */
export function canIArgs(query: PermissionQuery): string[] {
  const resource = query.subresource ? `${query.resource}/${query.subresource}` : query.resource;
  const qualified = query.group ? `${resource}.${query.group}` : resource;
  const where =
    query.namespace === undefined
      ? []
      : query.namespace === ''
        ? ['--all-namespaces']
        : ['-n', query.namespace];
  return [query.verb, qualified, ...where];
}

/** Whether a review answers a query: the same question, or the same one for every namespace. */
export function findReview(
  reviews: readonly PermissionReview[],
  query: PermissionQuery,
): PermissionReview | undefined {
  return reviewLookup(reviews)(query);
}

/**
 * `findReview` for many questions: the reviews indexed once by their question, so that checking
 * every permission of 100 watched namespaces is not a search of every review for each question.
 * The first review of a question wins, as in a search from the start.
 */
export function reviewLookup(
  reviews: readonly PermissionReview[],
): (query: PermissionQuery) => PermissionReview | undefined {
  const byKey = new Map<string, PermissionReview>();
  for (const review of reviews) {
    const key = permissionKey(review);
    if (!byKey.has(key)) byKey.set(key, review);
  }
  return (query) => {
    const exact = byKey.get(permissionKey(query));
    if (exact) return exact;
    if (query.namespace === undefined || query.namespace === '') return undefined;
    const everywhere = byKey.get(permissionKey({ ...query, namespace: '' }));
    return everywhere?.allowed ? everywhere : undefined;
  };
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
