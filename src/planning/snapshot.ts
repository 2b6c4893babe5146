/**
 * The snapshot: everything the checks and the planner look at, read once and in parallel.
 *
 * Reads are lists, never one get per object, so the number of requests depends on the number of
 * watched namespaces at most, never on the number of databases. Reads that fail (a 403, a
 * missing API group) do not abort the snapshot: they are recorded in `readErrors` and the
 * checks say what they could not verify. Only the first read of the cluster resources is fatal:
 * without it there is nothing to plan.
 */

import type { ArtifactAvailability } from './target-available.js';
import type { HelmClientProbe } from '../exec/helm-probe.js';
import { randomBytes } from 'node:crypto';
import { type Dialect, dialectFields } from '../release/dialect.js';
import { AuthError, OperationError } from '../errors.js';
import { detectLiveDialect } from '../kube/dialect.js';
import { describeKubeError, isForbidden } from '../kube/errors.js';
import { credentialSecretNameOf } from '../kube/management-access.js';
import {
  ACTIVE_ACTIVE_RESOURCE,
  CLUSTER_RESOURCE,
  type ClusterReads,
  type CustomResourceType,
  DATABASE_RESOURCE,
  type KubeObject,
  type RulesAnswer,
  SCC_RESOURCE,
} from '../kube/reads.js';
import { readOpenshiftVersion } from './openshift-version.js';
import {
  type ApiCredentials,
  type ApiSnapshot,
  type ManagementReader,
  type ManagementReaderFactory as ReaderFactoryOf,
  bdbFieldsFor,
  readManagementApi,
  unreachableApi,
} from './management-snapshot.js';
import {
  type PermissionCondition,
  type PermissionQuery,
  type PermissionReview,
  type RequiredPermission,
  permissionKey,
  requiredPermissionQueries,
  rulesAllow,
} from './permissions.js';
import type { StateStoreKind } from './state-store-kind.js';
import { ruleFieldValuesOf } from './rule-field-values.js';
import { specFieldsOf } from './spec-fields.js';
import { array, getPath, num, record, str } from '../json-read.js';
import { type PinnedOperatorImage, pinnedOperatorImage, releaseConfigOf } from './helm-values.js';
import { type OlmSnapshot, olmOwnerOf, operatorVersionOfDeployment, readOlm } from './olm.js';
import { type RemoteClusterReader, type RemoteClusterSnapshot, readRemoteClusters } from './participants.js';
import { compareNatural } from '../io/text-order.js';

export type {
  ApiCredentials,
  ApiSnapshot,
  Bdb,
  ManagementCluster,
  ManagementReader,
  Module,
  Node,
} from './management-snapshot.js';
export type ManagementReaderFactory = ReaderFactoryOf<ClusterSnapshot>;

// ---- the snapshot

export type Platform = 'kubernetes' | 'openshift';

export interface ObjectVersion {
  uid?: string | undefined;
  resourceVersion?: string | undefined;
  generation?: number | undefined;
}

export interface ImageSpec {
  repository?: string | undefined;
  versionTag?: string | undefined;
  imagePullPolicy?: string | undefined;
  digestHash?: string | undefined;
}

export interface ClusterSnapshot extends ObjectVersion {
  name: string;
  namespace: string;
  apiVersion: string;
  state?: string | undefined;
  specStatus?: string | undefined;
  nodes?: number | undefined;
  image: ImageSpec;
  /** Other image specs set in the spec, by field name (`bootstrapperImageSpec`, ...). */
  otherImages: Record<string, ImageSpec>;
  autoUpgrade: boolean;
  upgradePolicy?: string | undefined;
  license?: { state?: string | undefined; expirationDate?: string | undefined } | undefined;
  licenseSecretName?: string | undefined;
  /**
   * True when the licence is written inline in `spec.license` (only the fact: the key itself is
   * a secret and never leaves the cluster object).
   */
  licenseInline?: boolean | undefined;
  bundledDatabaseVersions: { dbType?: string | undefined; version: string; major?: boolean | undefined }[];
  serviceAccountName: string;
  /** `spec.securityContext.resourceLimits.allowAutoAdjustment`: keeps the SCC on OpenShift. */
  allowAutoAdjustment: boolean;
  userDefinedModules: string[];
  /** `spec.userDefinedModules` as written (names, sources, Secret names): what a patch of the list keeps. */
  userDefinedModuleEntries?: unknown[] | undefined;
  credentialSecretName: string;
  /** Every field path set under `spec` (`spec.ldap.protocol`), names only: what rules of kind field-used read. */
  specFields?: readonly string[] | undefined;
  /** The values rules of kind field-value list, where this resource holds them (rule-field-values.ts). */
  ruleFieldValues?: Record<string, string | number | boolean> | undefined;
}

export interface OperatorSnapshot extends ObjectVersion {
  deploymentName: string;
  namespace: string;
  image: string;
  /** The image tag, when it is an operator version; for an image by digest only, the version of the CSV that owns the Deployment (OLM). */
  version?: string | undefined;
  replicas: number;
  readyReplicas: number;
  /** From the Deployment's helm labels/annotations. */
  helmRelease?: { name: string; namespace: string; chart?: string | undefined } | undefined;
  /** The OpenShift bundle sets IS_OPENSHIFT=true on the operator. */
  openshiftBundle: boolean;
}

export interface HelmReleaseSnapshot {
  name: string;
  namespace: string;
  /** The newest revision and its status (`deployed`, `failed`, `pending-upgrade`, ...). */
  revision: number;
  status: string;
  /** The newest revision that reached `deployed` or `superseded`: the rollback target. */
  lastDeployedRevision?: number | undefined;
  /** `operator.image.{tag,repository}` the user set (the newest revision's values; src/planning/helm-values.ts). */
  pinnedOperatorImage?: PinnedOperatorImage | undefined;
}

export interface StatefulSetSnapshot extends ObjectVersion {
  name: string;
  replicas: number;
  readyReplicas: number;
  updatedReplicas: number;
  currentRevision?: string | undefined;
  updateRevision?: string | undefined;
  observedGeneration?: number | undefined;
  /** `spec.updateStrategy.type`: `RollingUpdate` (Kubernetes' default) or `OnDelete`. */
  updateStrategy?: string | undefined;
}

export interface PodSnapshot {
  name: string;
  phase?: string | undefined;
  ready: boolean;
  image?: string | undefined;
}

export interface DatabaseSnapshot extends ObjectVersion {
  name: string;
  namespace: string;
  /** The version field of the spec (`7.2`, `major`, `latest`), in the dialect's name. */
  versionSpec?: string | undefined;
  /** `status.version`, e.g. `7.2.4`. */
  statusVersion?: string | undefined;
  status?: string | undefined;
  /** `status.databaseUID`: the bdb uid in the management API. */
  databaseUid?: string | undefined;
  modules: { name: string; version?: string | undefined }[];
  /** Every field path set under `spec`, names only (field-used rules). */
  specFields?: readonly string[] | undefined;
  /** The values rules of kind field-value list, where this resource holds them (rule-field-values.ts). */
  ruleFieldValues?: Record<string, string | number | boolean> | undefined;
}

export interface ActiveActiveSnapshot extends ObjectVersion {
  name: string;
  namespace: string;
  versionSpec?: string | undefined;
  status?: string | undefined;
  participatingClusters: { name: string; namespace?: string | undefined }[];
  /** Every field path set under `spec`, names only (field-used rules). */
  specFields?: readonly string[] | undefined;
  /** The values rules of kind field-value list, where this resource holds them (rule-field-values.ts). */
  ruleFieldValues?: Record<string, string | number | boolean> | undefined;
}

export interface WebhookSnapshot extends ObjectVersion {
  name: string;
  /** The ClusterServiceVersion that owns it (OLM's labels), when OLM installed it from the CSV's webhookdefinitions. */
  olmOwner?: string | undefined;
  webhooks: {
    name: string;
    caBundle?: string | undefined;
    serviceNamespace?: string | undefined;
    /** `namespaceSelector.matchLabels.namespace-name` (DOCS deployment/quick-start.md). */
    selectorNamespace?: string | undefined;
  }[];
}

export interface SecretPresence extends ObjectVersion {
  name: string;
  present: boolean;
}

export interface AdmissionTlsSnapshot extends SecretPresence {
  /** `data.cert`, base64 as stored: the webhook's caBundle must equal it. */
  cert?: string | undefined;
}

export interface SccSnapshot extends ObjectVersion {
  name: string;
  present: boolean;
  users: string[];
  /** Installed by the operator's helm chart (openshift.scc.install): a chart upgrade may delete it. */
  helmOwned?: boolean;
}

export interface CredentialsSnapshot extends SecretPresence {
  hasUsername: boolean;
  hasPassword: boolean;
}

export interface Snapshot {
  context: string;
  namespace: string;
  dialect: Dialect;
  dialectSource: 'cluster' | 'crd' | 'default';
  platform: Platform;
  kubernetesVersion?: string | undefined;
  /** OpenShift only: the ClusterVersion's version (`4.16.12`); undefined when unreadable. */
  openshiftVersion?: string | undefined;
  /** Cluster resources found in the namespace (for "which one?" messages). */
  clusterCandidates: string[];
  /** The name asked for with --cluster, if any. */
  requestedCluster?: string | undefined;
  /** What the run will fetch for the plan's targets, asked before planning (src/planning/target-available.ts). */
  artifacts?: ArtifactAvailability[] | undefined;
  /** The helm client the run would call, asked before planning when the method is helm (check helm-available). */
  helmClient?: HelmClientProbe | undefined;
  cluster?: ClusterSnapshot | undefined;
  operator?: OperatorSnapshot | undefined;
  /** Set when OLM (OperatorHub) owns the operator Deployment: its CSV and Subscription (src/planning/olm.ts). */
  olm?: OlmSnapshot | undefined;
  helmRelease?: HelmReleaseSnapshot | undefined;
  operatorConfig: {
    redbNamespaces?: string | undefined;
    redbNamespacesLabel?: string | undefined;
  } & ObjectVersion;
  /** The cluster's namespace first, then every other namespace the operator watches. */
  watchedNamespaces: string[];
  statefulSet?: StatefulSetSnapshot | undefined;
  pods: PodSnapshot[];
  databases: DatabaseSnapshot[];
  activeActiveDatabases: ActiveActiveSnapshot[];
  /**
   * The RERCs the Active-Active databases name, each remote one with its RS version or why it is
   * unknown (src/planning/participants.ts); absent in snapshots made before it was read.
   */
  remoteClusters?: RemoteClusterSnapshot[] | undefined;
  webhooks: WebhookSnapshot[];
  admissionTls: AdmissionTlsSnapshot;
  /** Only read on OpenShift. */
  scc?: SccSnapshot | undefined;
  credentials: CredentialsSnapshot;
  api: ApiSnapshot;
  permissions: PermissionReview[];
  /** `--state-store` of the run this snapshot is for (absent: file), which decides permissions. */
  stateStore?: StateStoreKind | undefined;
  /** Reads that failed without stopping the snapshot, e.g. `list namespaces: forbidden`. */
  readErrors: string[];
}

// ---- names and thresholds of the upstream deployment

export const OPERATOR_DEPLOYMENT = 'redis-enterprise-operator';
export const OPERATOR_CONFIGMAP = 'operator-environment-config';
export const ADMISSION_TLS_SECRET = 'admission-tls';
export const SCC_NAME = 'redis-enterprise-scc-v2';
/** Above this many watched namespaces, one cluster-wide list replaces the per-namespace lists. */
export const MAX_NAMESPACED_LISTS = 3;
/** In-flight requests at once; enough for speed, not a flood for the API server. */
const CONCURRENCY = 16;

export interface SnapshotDeps {
  kube: ClusterReads;
  /** The kubeconfig context, for the plan and messages. */
  context: string;
  /** The cluster resource's namespace (`-n`, else the context's, else `default`). */
  namespace: string;
  /** `--cluster`; default: the only cluster resource in the namespace. */
  clusterName?: string | undefined;
  /** The management API; without it `api.reachable` is false. */
  management?: ManagementReader | ManagementReaderFactory | undefined;
  /** Reads a remote participant's RS version (src/commands/remote-clusters.ts); without it they are unknown. */
  remoteClusters?: RemoteClusterReader | undefined;
  /** Where the run keeps its state: `configmap` adds the ConfigMap and Lease permissions to review. */
  stateStore?: StateStoreKind | undefined;
  /** The permissions the steps need (src/steps/index.ts REQUIRED_PERMISSIONS): reviewed here. */
  requiredPermissions: readonly RequiredPermission[];
}

/**
 * Reads the whole snapshot in four rounds of parallel requests: what needs only the namespace;
 * the dialect (only when the cluster resource does not tell) and label-selected namespaces;
 * everything that needs the cluster's name or the watched namespaces, with the permission
 * reviews; then the management API with the credentials from the cluster's Secret (started as
 * soon as the Secret is read, while the rest of the third round is still coming in).
 */
export async function readSnapshot(deps: SnapshotDeps): Promise<Snapshot> {
  const { kube, namespace } = deps;
  const errors = new ErrorLog();

  // Round 1: everything that needs no name but the namespace.
  const [
    clusterObjects,
    deployments,
    configMap,
    webhookConfigs,
    admissionSecret,
    apiGroups,
    kubernetesVersion,
  ] = await Promise.all([
    readClusterResources(kube, namespace),
    errors.guard('list deployments', kube.listDeployments(namespace), []),
    errors.guard(
      `get configmap ${OPERATOR_CONFIGMAP}`,
      kube.getConfigMap(namespace, OPERATOR_CONFIGMAP),
      undefined,
    ),
    errors.guard('list validatingwebhookconfigurations', kube.listValidatingWebhookConfigurations(), []),
    errors.guard(
      `get secret ${ADMISSION_TLS_SECRET}`,
      kube.getSecret(namespace, ADMISSION_TLS_SECRET),
      undefined,
    ),
    errors.guard('list API groups', kube.listApiGroups(), undefined),
    errors.guard('get version', kube.serverVersion(), undefined),
  ]);

  const clusterCandidates = clusterObjects.map((o) => o.metadata?.name ?? '').filter(Boolean);
  const clusterObject = pickCluster(clusterObjects, deps.clusterName);
  const operatorDeployment = findOperatorDeployment(deployments);
  const operator = toOperator(operatorDeployment, namespace);
  const olmCsv = olmOwnerOf(operatorDeployment);
  // Started now, awaited with the last round: only an OLM-owned operator costs these reads.
  const olmRead = olmCsv && operator ? readOlm(kube, operator.namespace, olmCsv) : Promise.resolve(undefined);
  const platform: Platform =
    apiGroups?.includes('security.openshift.io') || operator?.openshiftBundle ? 'openshift' : 'kubernetes';
  const operatorConfig = toOperatorConfig(configMap);

  // Round 2: the dialect from the CRD (only when the cluster resource does not tell), and the
  // namespaces the operator selects by label.
  const [detected, labelledNamespaces] = await Promise.all([
    detectLiveDialect(clusterObject, kube),
    operatorConfig.redbNamespacesLabel
      ? errors.guard(
          'list namespaces',
          kube.listNamespaceNames(labelSelectorFor(operatorConfig.redbNamespacesLabel)),
          [] as string[],
        )
      : Promise.resolve([] as string[]),
  ]);
  const dialect = detected.dialect;
  const cluster = clusterObject ? toCluster(clusterObject, dialect, namespace) : undefined;
  const watchedNamespaces = unique([
    namespace,
    ...splitList(operatorConfig.redbNamespaces),
    ...labelledNamespaces,
  ]);

  // Round 3: what needs the cluster's name or the watched namespaces.
  const conditions = permissionConditions({
    platform,
    operatorConfig,
    watchedNamespaces,
    webhookConfigs,
    stateStore: deps.stateStore,
    olm: olmCsv !== undefined,
  });
  const credentialRead = cluster
    ? errors.guard(
        `get secret ${cluster.credentialSecretName}`,
        kube.getSecret(namespace, cluster.credentialSecretName),
        undefined,
      )
    : Promise.resolve(undefined);
  // Round 4's management API read starts as soon as the credentials are in, not after the
  // database lists: at 10,000 databases its answers travel while the lists are read and parsed.
  // It never rejects (an unreachable API is an answer: readManagementApi).
  const apiRead = credentialRead.then((secret): Promise<ApiSnapshot> =>
    cluster
      ? readManagementApi(
          deps.management,
          cluster,
          readCredentials(secret, cluster.credentialSecretName).secret,
          bdbFieldsFor(detected.source === 'default' ? undefined : dialect),
        )
      : Promise.resolve(unreachableApi('no cluster resource')),
  );
  const [
    statefulSet,
    pods,
    credentialSecret,
    databaseObjects,
    activeActiveObjects,
    scc,
    helmSecrets,
    permissions,
    openshiftVersion,
  ] = await Promise.all([
    cluster
      ? errors.guard(
          `get statefulset ${cluster.name}`,
          kube.getStatefulSet(namespace, cluster.name),
          undefined,
        )
      : undefined,
    cluster ? errors.guard('list pods', kube.listPods(namespace), []) : [],
    credentialRead,
    listAcrossNamespaces(kube, DATABASE_RESOURCE, watchedNamespaces, errors),
    listAcrossNamespaces(kube, ACTIVE_ACTIVE_RESOURCE, watchedNamespaces, errors),
    platform === 'openshift'
      ? errors.guard(`get scc ${SCC_NAME}`, kube.getClusterCustomObject(SCC_RESOURCE, SCC_NAME), undefined)
      : undefined,
    operator?.helmRelease
      ? errors.guard(
          'list helm release secrets',
          kube.listSecrets(operator.helmRelease.namespace, `owner=helm,name=${operator.helmRelease.name}`),
          [],
        )
      : [],
    reviewPermissions(
      kube,
      namespace,
      requiredPermissionQueries(deps.requiredPermissions, { namespace, watchedNamespaces, conditions }),
      errors,
    ),
    platform === 'openshift' ? readOpenshiftVersion(kube) : undefined,
  ]);

  const credentials = readCredentials(credentialSecret, cluster?.credentialSecretName ?? '');
  const olm = await olmRead;
  // Round 4: the management API (started with the credentials, above); the Active-Active
  // databases' remote participants, each through its own API, at the same time.
  const [api, remoteClusters] = await Promise.all([
    apiRead,
    cluster
      ? readRemoteClusters({
          kube,
          namespace,
          cluster,
          activeActive: activeActiveObjects,
          reader: deps.remoteClusters,
          readErrors: errors.messages,
        })
      : Promise.resolve([]),
  ]);

  return {
    context: deps.context,
    namespace,
    dialect,
    dialectSource: detected.source,
    platform,
    kubernetesVersion,
    ...(openshiftVersion ? { openshiftVersion } : {}),
    clusterCandidates,
    requestedCluster: deps.clusterName,
    cluster,
    operator,
    olm,
    helmRelease: operator?.helmRelease ? toHelmRelease(operator.helmRelease, helmSecrets) : undefined,
    operatorConfig,
    watchedNamespaces,
    statefulSet: statefulSet ? toStatefulSet(statefulSet) : undefined,
    pods: cluster ? toPods(pods, cluster.name) : [],
    databases: cluster ? toDatabases(databaseObjects, cluster, dialect) : [],
    activeActiveDatabases: cluster ? activeActiveObjects.map((o) => toActiveActive(o, dialect)) : [],
    remoteClusters,
    webhooks: webhookConfigs.map(toWebhook).filter((w) => w.webhooks.length > 0),
    admissionTls: toAdmissionTls(admissionSecret),
    scc: platform === 'openshift' ? toScc(scc) : undefined,
    credentials: credentials.presence,
    api,
    permissions,
    ...(deps.stateStore ? { stateStore: deps.stateStore } : {}),
    readErrors: errors.messages,
  };
}

// ---- reading

class ErrorLog {
  readonly messages: string[] = [];

  /** Awaits a read; on failure records `what: message` and returns the fallback. */
  async guard<T, F>(what: string, read: Promise<T>, fallback: F): Promise<T | F> {
    try {
      return await read;
    } catch (error) {
      this.messages.push(`${what}: ${describeKubeError(error).message}`);
      return fallback;
    }
  }
}

async function readClusterResources(kube: ClusterReads, namespace: string): Promise<KubeObject[]> {
  try {
    return await kube.listCustomObjects(CLUSTER_RESOURCE, namespace);
  } catch (error) {
    const info = describeKubeError(error);
    if (info.code === 401) {
      throw new AuthError(`the Kubernetes API refused the credentials: ${info.message}`, {
        hint: 'Refresh the kubeconfig credentials (log in again), or pass --kubeconfig/--context.',
        cause: error,
      });
    }
    if (info.code === 404) {
      // The CRD is not installed: no operator here. The cluster-found check explains it.
      return [];
    }
    if (info.code === 403) {
      // CLI.md: 401 and 403 are exit 4, authentication or authorization.
      throw new AuthError(
        `not allowed to list the cluster resources in namespace ${namespace}: ${info.message}`,
        {
          hint: `Ask for read access: kubectl auth can-i list redisenterpriseclusters.app.redislabs.com -n ${namespace}`,
          cause: error,
        },
      );
    }
    throw new OperationError(`cannot list the cluster resources in namespace ${namespace}: ${info.message}`, {
      hint: 'Check that the Kubernetes API is reachable: kubectl get rec -n <namespace>.',
      cause: error,
    });
  }
}

function pickCluster(clusters: KubeObject[], requested: string | undefined): KubeObject | undefined {
  if (requested !== undefined) return clusters.find((c) => c.metadata?.name === requested);
  return clusters.length === 1 ? clusters[0] : undefined;
}

/**
 * Lists a database kind in every watched namespace. A few namespaces: one list each. Many: one
 * cluster-wide list filtered here, unless that is forbidden, then one list each after all.
 * Either way the count depends on namespaces, never on databases.
 */
async function listAcrossNamespaces(
  kube: ClusterReads,
  type: CustomResourceType,
  namespaces: string[],
  errors: ErrorLog,
): Promise<KubeObject[]> {
  if (namespaces.length > MAX_NAMESPACED_LISTS) {
    try {
      const wanted = new Set(namespaces);
      const all = await kube.listCustomObjects(type, 'all');
      return all.filter((o) => wanted.has(o.metadata?.namespace ?? ''));
    } catch (error) {
      if (!isForbidden(error)) {
        errors.messages.push(`list ${type.plural} in all namespaces: ${describeKubeError(error).message}`);
        return [];
      }
    }
  }
  const lists = await mapWithLimit(namespaces, CONCURRENCY, (ns) =>
    errors.guard(`list ${type.plural} -n ${ns}`, kube.listCustomObjects(type, ns), [] as KubeObject[]),
  );
  return lists.flat();
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
async function reviewPermissions(
  kube: ClusterReads,
  namespace: string,
  queries: PermissionQuery[],
  errors: ErrorLog,
): Promise<PermissionReview[]> {
  if (!kube.reviewRules) return reviewEach(kube, queries, errors);
  const reviewRules = kube.reviewRules.bind(kube);
  // A server without rules reviews (or refusing them) is asked question by question instead.
  const rulesOf = (ns: string): Promise<RulesAnswer | undefined> => reviewRules(ns).catch(() => undefined);
  const [clusterWide, own] = await Promise.all([rulesOf(clusterWideProbeNamespace()), rulesOf(namespace)]);
  if (!clusterWide && !own) return reviewEach(kube, queries, errors);

  const others = unique(
    queries
      .filter((q) => q.namespace !== undefined && q.namespace !== namespace)
      .filter((q) => !(clusterWide && rulesAllow(clusterWide.rules, q)))
      .map((q) => q.namespace as string),
  );
  const otherRules = await mapWithLimit(others, CONCURRENCY, rulesOf);
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

  const first = await mapWithLimit([...direct, ...everywhere], CONCURRENCY, ask);
  const refusedEverywhere = first.filter((r): r is PermissionReview => r?.namespace === '' && !r.allowed);
  const expanded = refusedEverywhere.flatMap((review) => byQuestion.get(permissionKey(review)) ?? []);
  const second = await mapWithLimit(expanded, CONCURRENCY, ask);
  return [...first, ...second].filter((r): r is PermissionReview => r !== undefined);
}

export async function mapWithLimit<T, R>(
  items: T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

// ---- turning objects into snapshot parts

function permissionConditions(input: {
  platform: Platform;
  operatorConfig: Snapshot['operatorConfig'];
  watchedNamespaces: string[];
  webhookConfigs: KubeObject[];
  stateStore: StateStoreKind | undefined;
  olm: boolean;
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
  return conditions;
}

function versionOf(object: KubeObject | undefined): ObjectVersion {
  const metadata = object?.metadata;
  return {
    uid: metadata?.uid,
    resourceVersion: metadata?.resourceVersion,
    generation: metadata?.generation,
  };
}

function toImageSpec(value: unknown): ImageSpec {
  const spec = record(value);
  return {
    repository: str(spec.repository),
    versionTag: str(spec.versionTag),
    imagePullPolicy: str(spec.imagePullPolicy),
    digestHash: str(spec.digestHash),
  };
}

/**
 * Image specs besides the node's, which carry the operator's version when they are set, keyed
 * by their path under `spec` (dotted). The four specs whose digestHash invalidates the spec with
 * auto-upgrade on (DOCS kubernetes/upgrade/upgrade-redis-cluster.md; redis-facts.md §12) are
 * these three and the node's; call-home-client images ship as `re-call-home-client:<operator
 * version>` (8.0.18-11 release notes).
 */
export const OTHER_IMAGE_SPECS = [
  'redisEnterpriseServicesRiggerImageSpec',
  'bootstrapperImageSpec',
  'usageMeter.callHomeClient.imageSpec',
] as const;

/** `usageMeter.callHomeClient.imageSpec` -> `['spec', 'usageMeter', 'callHomeClient', 'imageSpec']`. */
export function otherImageSpecPath(field: string): string[] {
  return ['spec', ...field.split('.')];
}

export function toCluster(object: KubeObject, dialect: Dialect, namespace: string): ClusterSnapshot {
  const fields = dialectFields(dialect);
  const spec = record(object.spec);
  const status = record(object.status);
  const license = status.licenseStatus === undefined ? undefined : record(status.licenseStatus);
  const name = object.metadata?.name ?? '';
  const otherImages: Record<string, ImageSpec> = {};
  for (const field of OTHER_IMAGE_SPECS) {
    const value = getPath(object, otherImageSpecPath(field));
    if (value !== undefined) otherImages[field] = toImageSpec(value);
  }
  return {
    ...versionOf(object),
    name,
    namespace: object.metadata?.namespace ?? namespace,
    apiVersion: object.apiVersion ?? `${CLUSTER_RESOURCE.group}/${CLUSTER_RESOURCE.version}`,
    state: str(status.state),
    specStatus: str(status.specStatus),
    nodes: num(spec.nodes),
    image: toImageSpec(getPath(object, fields.imageSpecPath)),
    otherImages,
    autoUpgrade: getPath(object, fields.autoUpgradePath) === true,
    upgradePolicy: str(getPath(object, fields.upgradePolicyPath)),
    license: license && { state: str(license.licenseState), expirationDate: str(license.expirationDate) },
    licenseSecretName: str(spec.licenseSecretName),
    licenseInline: typeof spec.license === 'string' && spec.license.trim() !== '',
    bundledDatabaseVersions: array(status.bundledDatabaseVersions).map((entry) => {
      const v = record(entry);
      return {
        dbType: str(v.dbType),
        version: str(v.version) ?? '',
        major: v.major === true ? true : undefined,
      };
    }),
    serviceAccountName: str(spec.serviceAccountName) ?? name,
    allowAutoAdjustment: getPath(spec, ['securityContext', 'resourceLimits', 'allowAutoAdjustment']) === true,
    userDefinedModules: array(spec.userDefinedModules)
      .map((m) => str(record(m).name))
      .filter((n): n is string => n !== undefined),
    userDefinedModuleEntries: array(spec.userDefinedModules),
    credentialSecretName: credentialSecretNameOf(spec, status, name),
    specFields: specFieldsOf(object),
    ruleFieldValues: ruleFieldValuesOf(object, 'REC'),
  };
}

function findOperatorDeployment(deployments: KubeObject[]): KubeObject | undefined {
  return (
    deployments.find((d) => d.metadata?.name === OPERATOR_DEPLOYMENT) ??
    // A helm release may prefix the name; the container keeps the upstream one.
    deployments.find((d) => containersOf(d).some((c) => c.name === OPERATOR_DEPLOYMENT))
  );
}

interface ContainerLike {
  name?: string;
  image?: string;
  env?: { name?: string; value?: string }[];
}

function containersOf(deployment: KubeObject): ContainerLike[] {
  return array(getPath(deployment, ['spec', 'template', 'spec', 'containers'])) as ContainerLike[];
}

function toOperator(deployment: KubeObject | undefined, namespace: string): OperatorSnapshot | undefined {
  if (!deployment) return undefined;
  const containers = containersOf(deployment);
  const container = containers.find((c) => c.name === OPERATOR_DEPLOYMENT) ?? containers[0];
  const image = container?.image ?? '';
  const labels = deployment.metadata?.labels ?? {};
  const annotations = deployment.metadata?.annotations ?? {};
  const releaseName = annotations['meta.helm.sh/release-name'];
  const managedByHelm = labels['app.kubernetes.io/managed-by'] === 'Helm' || releaseName !== undefined;
  const deploymentNamespace = deployment.metadata?.namespace ?? namespace;
  const status = record(deployment.status);
  return {
    ...versionOf(deployment),
    deploymentName: deployment.metadata?.name ?? OPERATOR_DEPLOYMENT,
    namespace: deploymentNamespace,
    image,
    version: operatorVersionOfDeployment(deployment, image),
    replicas: num(getPath(deployment, ['spec', 'replicas'])) ?? 1,
    readyReplicas: num(status.readyReplicas) ?? 0,
    helmRelease: managedByHelm
      ? {
          name: releaseName ?? labels['app.kubernetes.io/instance'] ?? 'redis-enterprise-operator',
          namespace: annotations['meta.helm.sh/release-namespace'] ?? deploymentNamespace,
          chart: labels['helm.sh/chart'],
        }
      : undefined,
    openshiftBundle: containers.some((c) =>
      (c.env ?? []).some((e) => e.name === 'IS_OPENSHIFT' && e.value === 'true'),
    ),
  };
}

function toHelmRelease(
  release: NonNullable<OperatorSnapshot['helmRelease']>,
  secrets: KubeObject[],
): HelmReleaseSnapshot {
  const revisions = secrets
    .map((s) => ({
      revision: Number(s.metadata?.labels?.version),
      status: s.metadata?.labels?.status ?? 'unknown',
    }))
    .filter((r) => Number.isInteger(r.revision))
    .sort((a, b) => b.revision - a.revision);
  const newest = revisions[0];
  const newestDeployed = revisions.find((r) => r.status === 'deployed' || r.status === 'superseded');
  const newestSecret = secrets.find((s) => Number(s.metadata?.labels?.version) === newest?.revision);
  const pinned = pinnedOperatorImage(releaseConfigOf(newestSecret?.data));
  return {
    name: release.name,
    namespace: release.namespace,
    revision: newest?.revision ?? 0,
    status: newest?.status ?? 'not-found',
    lastDeployedRevision: newestDeployed?.revision,
    ...(pinned.tag !== undefined || pinned.repository !== undefined ? { pinnedOperatorImage: pinned } : {}),
  };
}

function toOperatorConfig(configMap: KubeObject | undefined): Snapshot['operatorConfig'] {
  const data = configMap?.data ?? {};
  return {
    ...versionOf(configMap),
    redbNamespaces: data.REDB_NAMESPACES || undefined,
    redbNamespacesLabel: data.REDB_NAMESPACES_LABEL || undefined,
  };
}

/** `REDB_NAMESPACES_LABEL` names a label; a bare key selects every namespace carrying it. */
function labelSelectorFor(label: string): string {
  return label.trim();
}

function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

function toStatefulSet(object: KubeObject): StatefulSetSnapshot {
  const status = record(object.status);
  return {
    ...versionOf(object),
    name: object.metadata?.name ?? '',
    replicas: num(getPath(object, ['spec', 'replicas'])) ?? num(status.replicas) ?? 0,
    readyReplicas: num(status.readyReplicas) ?? 0,
    updatedReplicas: num(status.updatedReplicas) ?? 0,
    currentRevision: str(status.currentRevision),
    updateRevision: str(status.updateRevision),
    observedGeneration: num(status.observedGeneration),
    updateStrategy: str(getPath(object, ['spec', 'updateStrategy', 'type'])),
  };
}

function toPods(pods: KubeObject[], clusterName: string): PodSnapshot[] {
  // The StatefulSet's pods are `<cluster>-<ordinal>`; the rigger and operator pods are not.
  const ordinal = new RegExp(`^${clusterName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d+$`);
  return pods
    .filter((pod) => ordinal.test(pod.metadata?.name ?? ''))
    .map((pod) => {
      const status = record(pod.status);
      const conditions = array(status.conditions).map(record);
      const containers = array(getPath(pod, ['spec', 'containers'])) as ContainerLike[];
      const node = containers.find((c) => c.name === 'redis-enterprise-node') ?? containers[0];
      return {
        name: pod.metadata?.name ?? '',
        phase: str(status.phase),
        ready: conditions.some((c) => c.type === 'Ready' && c.status === 'True'),
        image: node?.image,
      };
    })
    .sort((a, b) => compareNatural(a.name, b.name));
}

function belongsToCluster(database: KubeObject, cluster: ClusterSnapshot): boolean {
  const named = str(getPath(database, ['spec', 'redisEnterpriseCluster', 'name']));
  if (named !== undefined) return named === cluster.name;
  // Without a name the operator binds a database to the cluster of its own namespace.
  return database.metadata?.namespace === cluster.namespace;
}

/** The database resources bound to the cluster, each read into the snapshot: one pass, no copy of the list. */
function toDatabases(objects: KubeObject[], cluster: ClusterSnapshot, dialect: Dialect): DatabaseSnapshot[] {
  const versionPath = dialectFields(dialect).databaseVersionPath;
  const databases: DatabaseSnapshot[] = [];
  for (const object of objects) {
    if (belongsToCluster(object, cluster)) databases.push(toDatabase(object, versionPath));
  }
  return databases;
}

function toDatabase(object: KubeObject, versionPath: readonly string[]): DatabaseSnapshot {
  const metadata = object.metadata;
  const status = record(object.status);
  return {
    uid: metadata?.uid,
    resourceVersion: metadata?.resourceVersion,
    generation: metadata?.generation,
    name: metadata?.name ?? '',
    namespace: metadata?.namespace ?? '',
    versionSpec: str(getPath(object, versionPath)),
    statusVersion: str(status.version),
    status: str(status.status),
    databaseUid: status.databaseUID === undefined ? undefined : String(status.databaseUID),
    modules: array(getPath(object, ['spec', 'modulesList'])).map((m) => {
      const entry = record(m);
      return { name: str(entry.name) ?? '', version: str(entry.version) };
    }),
    specFields: specFieldsOf(object),
    ruleFieldValues: ruleFieldValuesOf(object, 'REDB'),
  };
}

function toActiveActive(object: KubeObject, dialect: Dialect): ActiveActiveSnapshot {
  return {
    ...versionOf(object),
    name: object.metadata?.name ?? '',
    namespace: object.metadata?.namespace ?? '',
    versionSpec: str(getPath(object, dialectFields(dialect).activeActiveVersionPath)),
    status: str(record(object.status).status),
    participatingClusters: array(getPath(object, ['spec', 'participatingClusters'])).map((p) => {
      const entry = record(p);
      return { name: str(entry.name) ?? '', namespace: str(entry.namespace) };
    }),
    specFields: specFieldsOf(object),
    ruleFieldValues: ruleFieldValuesOf(object, 'REAADB'),
  };
}

/** Only the operator's webhooks (`*.admission.redislabs`) are kept. */
export function toWebhook(object: KubeObject): WebhookSnapshot {
  return {
    ...versionOf(object),
    name: object.metadata?.name ?? '',
    olmOwner: olmOwnerOf(object),
    webhooks: array(object.webhooks)
      .map(record)
      .filter((w) => (str(w.name) ?? '').endsWith('.admission.redislabs'))
      .map((w) => {
        const clientConfig = record(w.clientConfig);
        return {
          name: str(w.name) ?? '',
          caBundle: str(clientConfig.caBundle) || undefined,
          serviceNamespace: str(record(clientConfig.service).namespace),
          selectorNamespace: str(record(record(w.namespaceSelector).matchLabels)['namespace-name']),
        };
      }),
  };
}

function toAdmissionTls(secret: KubeObject | undefined): AdmissionTlsSnapshot {
  return {
    ...versionOf(secret),
    name: ADMISSION_TLS_SECRET,
    present: secret !== undefined,
    cert: secret?.data?.cert || undefined,
  };
}

function toScc(object: KubeObject | undefined): SccSnapshot {
  return {
    ...versionOf(object),
    name: SCC_NAME,
    present: object !== undefined,
    users: array(object?.users).filter((u): u is string => typeof u === 'string'),
    helmOwned: object?.metadata?.labels?.['app.kubernetes.io/managed-by'] === 'Helm',
  };
}

function readCredentials(
  secret: KubeObject | undefined,
  secretName: string,
): { presence: CredentialsSnapshot; secret: ApiCredentials | undefined } {
  const data = secret?.data ?? {};
  const decode = (value: string | undefined): string | undefined =>
    value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
  const username = decode(data.username);
  const password = decode(data.password);
  return {
    presence: {
      ...versionOf(secret),
      name: secretName,
      present: secret !== undefined,
      hasUsername: Boolean(username),
      hasPassword: Boolean(password),
    },
    secret: username && password ? { secretName, username, password } : undefined,
  };
}
