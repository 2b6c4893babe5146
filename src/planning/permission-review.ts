/**
 * Which of the permissions the steps need the user holds (the permissions check reads the
 * answers): the questions of ./permissions.ts asked of the Kubernetes API in as few requests as
 * it allows.
 */

import { randomBytes } from 'node:crypto';
import { describeKubeError } from '../kube/errors.js';
import type { ClusterReads, KubeObject, RulesAnswer } from '../kube/reads.js';
import {
  type PermissionCondition,
  type PermissionQuery,
  type PermissionReview,
  permissionKey,
  rulesAllow,
} from './permissions.js';
import type { StateStoreKind } from './state-store-kind.js';
import { MAX_NAMESPACED_LISTS, type Platform, READ_CONCURRENCY, type Snapshot } from './snapshot-model.js';
import { toWebhook, unique } from './snapshot-parts.js';
import { type ErrorLog, mapWithLimit } from './snapshot-reads.js';

/** Which permissions apply to this installation (PermissionCondition: ./permissions.ts). */
export function permissionConditions(input: {
  platform: Platform;
  operatorConfig: Snapshot['operatorConfig'];
  watchedNamespaces: string[];
  webhookConfigs: KubeObject[];
  stateStore: StateStoreKind | undefined;
  olm: boolean;
  /** `--user-defined-modules` is given: the plan reads the cluster resource's CRD. */
  userDefinedModules?: boolean;
}): Set<PermissionCondition> {
  // Both operator methods are reviewed: the method is chosen after the snapshot (--method);
  // OLM's permissions only when a ClusterServiceVersion owns the operator.
  const conditions = new Set<PermissionCondition>(['always', 'helm', 'bundle']);
  if (input.olm) conditions.add('olm');
  if (input.platform === 'openshift') conditions.add('openshift');
  if (input.webhookConfigs.map(toWebhook).some((w) => w.webhooks.length > 0)) conditions.add('admission');
  if (input.watchedNamespaces.length > 1) conditions.add('multi-namespace');
  if (input.operatorConfig.redbNamespacesLabel) conditions.add('namespace-label');
  if (input.stateStore === 'configmap') conditions.add('cluster-state');
  if (input.userDefinedModules) conditions.add('user-defined-modules');
  return conditions;
}

/** The two rules reviews of reviewPermissions, asked before any question is known. */
export interface StartedRulesReviews {
  /** The cluster-wide grants: the rules of a namespace nobody uses. */
  clusterWide: Promise<RulesAnswer | undefined>;
  /** The rules of the cluster's namespace. */
  own: Promise<RulesAnswer | undefined>;
  /** Asks the rules of one more namespace; never rejects. */
  rulesOf(namespace: string): Promise<RulesAnswer | undefined>;
}

/**
 * Sends the two rules reviews that answer the usual case (reviewPermissions). They need no
 * question, only the namespace: the snapshot sends them before it knows the questions (which
 * wait for the namespaces the operator selects by label). Undefined when the reader has no rules
 * reviews (then each question is asked on its own).
 */
export function startRulesReviews(kube: ClusterReads, namespace: string): StartedRulesReviews | undefined {
  if (!kube.reviewRules) return undefined;
  const reviewRules = kube.reviewRules.bind(kube);
  // A server without rules reviews (or refusing them) is asked question by question instead.
  const rulesOf = (ns: string): Promise<RulesAnswer | undefined> => reviewRules(ns).catch(() => undefined);
  return { clusterWide: rulesOf(clusterWideProbeNamespace()), own: rulesOf(namespace), rulesOf };
}

/**
 * The permission questions, answered from SelfSubjectRulesReview rules where they are complete
 * and by SelfSubjectAccessReview where not. Two rules reviews answer the usual case, whatever
 * the number of namespaces: the cluster's namespace (its RoleBindings and every
 * ClusterRoleBinding), and a namespace that does not exist, so holds no RoleBinding: its rules
 * are the cluster-wide grants, which answer cluster-scoped questions and questions about every
 * namespace. A question about another watched namespace that no cluster-wide grant answers takes
 * one rules review of that namespace. Rules that grant are always right; rules that do not grant
 * are only believed when the server says they are complete (RBAC alone can list its rules; a
 * webhook authorizer cannot): the rest is asked one SelfSubjectAccessReview each, as before.
 */
export async function reviewPermissions(
  kube: ClusterReads,
  namespace: string,
  started: StartedRulesReviews | undefined,
  queries: PermissionQuery[],
  errors: ErrorLog,
): Promise<PermissionReview[]> {
  if (!started) return reviewEach(kube, queries, errors);
  const { rulesOf } = started;
  const [clusterWide, own] = await Promise.all([started.clusterWide, started.own]);
  if (!clusterWide && !own) return reviewEach(kube, queries, errors);

  const others = unique(
    queries
      .filter((q) => q.namespace !== undefined && q.namespace !== namespace)
      .filter((q) => !(clusterWide && rulesAllow(clusterWide.rules, q)))
      .map((q) => q.namespace as string),
  );
  const otherRules = await mapWithLimit(others, READ_CONCURRENCY, rulesOf);
  const byNamespace = new Map<string | undefined, RulesAnswer | undefined>([
    [undefined, clusterWide],
    [namespace, own],
    ...others.map((ns, i) => [ns, otherRules[i]] as const),
  ]);

  const answered: PermissionReview[] = [];
  const unsettled: PermissionQuery[] = [];
  for (const query of queries) {
    const rules = byNamespace.get(query.namespace);
    const allowed =
      (clusterWide !== undefined && rulesAllow(clusterWide.rules, query)) ||
      (rules !== undefined && rulesAllow(rules.rules, query));
    if (allowed) answered.push({ ...query, allowed: true });
    else if (rules && !rules.incomplete && !rules.evaluationError) {
      answered.push({ ...query, allowed: false, reason: 'not granted by any rule (SelfSubjectRulesReview)' });
    } else unsettled.push(query);
  }
  return [...answered, ...(await reviewEach(kube, unsettled, errors))];
}

/** A namespace name nobody uses: only cluster-wide grants apply in it. */
function clusterWideProbeNamespace(): string {
  return `ctl-rules-probe-${randomBytes(6).toString('hex')}`;
}

/**
 * One SelfSubjectAccessReview per question. Questions about many watched namespaces are first
 * asked once for every namespace; only those refused there are asked namespace by namespace.
 */
async function reviewEach(
  kube: ClusterReads,
  queries: PermissionQuery[],
  errors: ErrorLog,
): Promise<PermissionReview[]> {
  if (queries.length === 0) return [];
  const byQuestion = new Map<string, PermissionQuery[]>();
  const direct: PermissionQuery[] = [];
  for (const query of queries) {
    if (query.namespace === undefined) {
      direct.push(query);
      continue;
    }
    const key = permissionKey({ ...query, namespace: '' });
    const group = byQuestion.get(key) ?? [];
    group.push(query);
    byQuestion.set(key, group);
  }
  const everywhere: PermissionQuery[] = [];
  for (const group of byQuestion.values()) {
    const first = group[0];
    if (group.length > MAX_NAMESPACED_LISTS && first) everywhere.push({ ...first, namespace: '' });
    else direct.push(...group);
  }

  let failed = false;
  const ask = (query: PermissionQuery): Promise<PermissionReview | undefined> =>
    kube.reviewAccess(query).then(
      (answer) => ({
        ...query,
        allowed: answer.allowed,
        ...(answer.reason ? { reason: answer.reason } : {}),
      }),
      (error: unknown) => {
        if (!failed) errors.messages.push(`selfsubjectaccessreview: ${describeKubeError(error).message}`);
        failed = true;
        return undefined;
      },
    );

  const first = await mapWithLimit([...direct, ...everywhere], READ_CONCURRENCY, ask);
  const refusedEverywhere = first.filter((r): r is PermissionReview => r?.namespace === '' && !r.allowed);
  const expanded = refusedEverywhere.flatMap((review) => byQuestion.get(permissionKey(review)) ?? []);
  const second = await mapWithLimit(expanded, READ_CONCURRENCY, ask);
  return [...first, ...second].filter((r): r is PermissionReview => r !== undefined);
}
