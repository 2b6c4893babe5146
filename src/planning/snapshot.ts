/**
 * The snapshot: everything the checks and the planner look at, read once and in parallel.
 *
 * Reads are lists, never one get per object, so the number of requests depends on the number of
 * watched namespaces at most, never on the number of databases. Reads that fail (a 403, a
 * missing API group) do not abort the snapshot: they are recorded in `readErrors` and the
 * checks say what they could not verify. Only the first read of the cluster resources is fatal:
 * without it there is nothing to plan.
 *
 * What the snapshot holds: ./snapshot-model.ts; how each object becomes a part of it:
 * ./snapshot-parts.ts; how it reads: ./snapshot-reads.ts; the permissions: ./permission-review.ts.
 */

import { detectLiveDialect } from '../kube/dialect.js';
import {
  ACTIVE_ACTIVE_RESOURCE,
  CLUSTER_CRD_NAME,
  type ClusterReads,
  DATABASE_RESOURCE,
  SCC_RESOURCE,
} from '../kube/reads.js';
import { describeKubeError } from '../kube/errors.js';
import { helmReleaseLocationProblem } from '../exec/helm-release-name.js';
import { DEFAULT_KUBE_TARGET, type KubeTarget } from '../kube/kube-target.js';
import { type ClusterCrdFacts, clusterCrdFacts } from './cluster-crd.js';
import { readOpenshiftVersion } from './openshift-version.js';
import {
  type ApiSnapshot,
  type ManagementReader,
  type ManagementReaderFactory as ReaderFactoryOf,
  bdbFieldsFor,
  readManagementApi,
  unreachableApi,
} from './management-snapshot.js';
import { type RequiredPermission, requiredPermissionQueries } from './permissions.js';
import { permissionConditions, reviewPermissions, startRulesReviews } from './permission-review.js';
import type { StateStoreKind } from './state-store-kind.js';
import { olmOwnerOf, readOlm } from './olm.js';
import { type RemoteClusterReader, readRemoteClusters } from './participants.js';
import {
  ADMISSION_TLS_SECRET,
  type ClusterSnapshot,
  OPERATOR_CONFIGMAP,
  type OperatorBasis,
  type Platform,
  SCC_NAME,
  type Snapshot,
} from './snapshot-model.js';
import {
  findOperatorDeployment,
  labelSelectorFor,
  readCredentials,
  splitList,
  toActiveActive,
  toAdmissionTls,
  toCluster,
  toDatabases,
  toHelmRelease,
  toOperator,
  toOperatorConfig,
  toPods,
  toScc,
  toStatefulSet,
  toWebhook,
  unique,
} from './snapshot-parts.js';
import { ErrorLog, listAcrossNamespaces, pickCluster, readClusterResources } from './snapshot-reads.js';

export type {
  ApiCredentials,
  ApiSnapshot,
  Bdb,
  ManagementCluster,
  ManagementReader,
  Module,
  Node,
} from './management-snapshot.js';
export * from './snapshot-model.js';
export { OTHER_IMAGE_SPECS, otherImageSpecPath, toCluster, toWebhook } from './snapshot-parts.js';
export { mapWithLimit } from './snapshot-reads.js';
export type ManagementReaderFactory = ReaderFactoryOf<ClusterSnapshot>;

export interface SnapshotDeps {
  kube: ClusterReads;
  /** The kubeconfig context, for the plan and messages. */
  context: string;
  /** The kubeconfig and context chosen, for the commands the plan prints; default: none chosen. */
  kubeTarget?: KubeTarget | undefined;
  /** The cluster resource's namespace (`-n`, else the context's, else `default`). */
  namespace: string;
  /** `--cluster`; default: the only cluster resource in the namespace. */
  clusterName?: string | undefined;
  /** `-n` as given (undefined without it), for the ctl commands a fix proposes. */
  requestedNamespace?: string | undefined;
  /** The management API; without it `api.reachable` is false. */
  management?: ManagementReader | ManagementReaderFactory | undefined;
  /** Reads a remote participant's RS version (src/commands/remote-clusters.ts); without it they are unknown. */
  remoteClusters?: RemoteClusterReader | undefined;
  /** Where the run keeps its state: `configmap` adds the ConfigMap and Lease permissions to review. */
  stateStore?: StateStoreKind | undefined;
  /**
   * `--user-defined-modules` is given: read the cluster resource's CRD (does it declare
   * spec.userDefinedModules?) and review that read's permission. Without it, no extra request.
   */
  readClusterCrd?: boolean | undefined;
  /** The permissions the steps need (src/steps/index.ts REQUIRED_PERMISSIONS): reviewed here. */
  requiredPermissions: readonly RequiredPermission[];
  /**
   * Told the operator and the platform as soon as the first answers settle them, when the
   * namespace has the cluster resource asked for: the plan asks for its target's artifact then,
   * beside the rest of the snapshot (src/commands/plan.ts).
   */
  onOperatorKnown?: ((basis: OperatorBasis) => void) | undefined;
}

/**
 * Reads the whole snapshot, each read sent once what it needs is known:
 * - first, every read that needs only the namespace: the cluster resources, the operator's
 *   Deployment and ConfigMap, the webhooks, the admission Secret, discovery, the version;
 * - once the cluster resources answer: the dialect (from the CRD, only when the cluster resource
 *   does not tell), the cluster's Secret and the management API, whose URL and credentials from
 *   flags or env need nothing more (credentials from the Secret wait for that read:
 *   readManagementApi);
 * - once all the first reads have answered: the StatefulSet and pods, the two permission rules
 *   reviews, the namespaces the operator selects by label, then the database lists of every
 *   watched namespace and the rest of the permission review; the plan's `onOperatorKnown`.
 * Nothing is sent to the management API before the namespace is known to hold the cluster: a
 * failed or empty list of cluster resources ends here, as before.
 */
export async function readSnapshot(deps: SnapshotDeps): Promise<Snapshot> {
  const { kube, namespace } = deps;
  const errors = new ErrorLog();

  // The first wave: everything that needs no name but the namespace. Every read but the cluster
  // resources' records its failure and never rejects.
  const clusterList = readClusterResources(kube, namespace);
  const firstReads = Promise.all([
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
  // Only for --user-defined-modules; the dialect below reuses the answer instead of asking again.
  const crdRead = deps.readClusterCrd ? kube.getCustomResourceDefinition(CLUSTER_CRD_NAME) : undefined;
  const crdFacts = crdRead ? readCrdFacts(crdRead) : undefined;

  // 401, 403, no answer: the snapshot ends here (the reads above are settled or recorded).
  const clusterObjects = await clusterList;
  const clusterCandidates = clusterObjects.map((o) => o.metadata?.name ?? '').filter(Boolean);
  const clusterObject = pickCluster(clusterObjects, deps.clusterName);
  const detected = await detectLiveDialect(clusterObject, kube, crdRead);
  const dialect = detected.dialect;
  const cluster = clusterObject ? toCluster(clusterObject, dialect, namespace) : undefined;

  // Once the cluster is found: its Secret (on the connection of the list that answered) and the
  // management API, whose requests are the longest chain left (authorize, then its reads). It
  // never rejects: an unreachable API is an answer (readManagementApi).
  const credentialRead = cluster
    ? errors.guard(
        `get secret ${cluster.credentialSecretName}`,
        kube.getSecret(namespace, cluster.credentialSecretName),
        undefined,
      )
    : Promise.resolve(undefined);
  const apiRead: Promise<ApiSnapshot> = cluster
    ? readManagementApi(
        deps.management,
        cluster,
        () => credentialRead.then((secret) => readCredentials(secret, cluster.credentialSecretName).secret),
        bdbFieldsFor(detected.source === 'default' ? undefined : dialect),
      )
    : Promise.resolve(unreachableApi('no cluster resource'));

  // The rest waits for all the first answers: sent before them, each would open a connection of
  // its own to the Kubernetes API while the first reads hold theirs, and a TLS handshake costs
  // more CPU than the wait saves (docs/performance.md, "The plan's requests").
  const [deployments, configMap, webhookConfigs, admissionSecret, apiGroups, kubernetesVersion] =
    await firstReads;
  const statefulSetRead = cluster
    ? errors.guard(`get statefulset ${cluster.name}`, kube.getStatefulSet(namespace, cluster.name), undefined)
    : undefined;
  const podsRead = cluster ? errors.guard('list pods', kube.listPods(namespace), []) : [];
  const rules = startRulesReviews(kube, namespace);
  const operatorDeployment = findOperatorDeployment(deployments);
  const operator = toOperator(operatorDeployment, namespace);
  const olmCsv = olmOwnerOf(operatorDeployment);
  // Started now, awaited with the last reads: only an OLM-owned operator costs these reads.
  const olmRead = olmCsv && operator ? readOlm(kube, operator.namespace, olmCsv) : Promise.resolve(undefined);
  const platform: Platform =
    apiGroups?.includes('security.openshift.io') || operator?.openshiftBundle ? 'openshift' : 'kubernetes';
  if (cluster)
    deps.onOperatorKnown?.({
      namespace,
      platform,
      operator,
      olmOwned: olmCsv !== undefined && operator !== undefined,
    });
  const operatorConfig = toOperatorConfig(configMap);

  // The namespaces the operator selects by label, then the lists of every watched namespace.
  const labelledNamespaces = operatorConfig.redbNamespacesLabel
    ? await errors.guard(
        'list namespaces',
        kube.listNamespaceNames(labelSelectorFor(operatorConfig.redbNamespacesLabel)),
        [] as string[],
      )
    : [];
  const watchedNamespaces = unique([
    namespace,
    ...splitList(operatorConfig.redbNamespaces),
    ...labelledNamespaces,
  ]);
  const conditions = permissionConditions({
    platform,
    operatorConfig,
    watchedNamespaces,
    webhookConfigs,
    stateStore: deps.stateStore,
    olm: olmCsv !== undefined,
    userDefinedModules: deps.readClusterCrd === true,
  });
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
    statefulSetRead,
    podsRead,
    credentialRead,
    listAcrossNamespaces(kube, DATABASE_RESOURCE, watchedNamespaces, errors),
    listAcrossNamespaces(kube, ACTIVE_ACTIVE_RESOURCE, watchedNamespaces, errors),
    platform === 'openshift'
      ? errors.guard(`get scc ${SCC_NAME}`, kube.getClusterCustomObject(SCC_RESOURCE, SCC_NAME), undefined)
      : undefined,
    // Only a release helm could hold: the name from the Deployment's annotation goes into a
    // label selector (helm-release-healthy fails the plan on any other).
    operator?.helmRelease &&
    !helmReleaseLocationProblem(operator.helmRelease.name, operator.helmRelease.namespace)
      ? errors.guard(
          'list helm release secrets',
          kube.listSecrets(operator.helmRelease.namespace, `owner=helm,name=${operator.helmRelease.name}`),
          [],
        )
      : [],
    reviewPermissions(
      kube,
      namespace,
      rules,
      requiredPermissionQueries(deps.requiredPermissions, { namespace, watchedNamespaces, conditions }),
      errors,
    ),
    platform === 'openshift' ? readOpenshiftVersion(kube) : undefined,
  ]);

  const credentials = readCredentials(credentialSecret, cluster?.credentialSecretName ?? '');
  const olm = await olmRead;
  const clusterCrd = await crdFacts;
  // The management API (started with the cluster, above); the Active-Active databases' remote
  // participants, each through its own API, at the same time.
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
    kubeTarget: deps.kubeTarget ?? DEFAULT_KUBE_TARGET,
    namespace,
    dialect,
    dialectSource: detected.source,
    platform,
    kubernetesVersion,
    ...(openshiftVersion ? { openshiftVersion } : {}),
    clusterCandidates,
    requestedCluster: deps.clusterName,
    ...(deps.requestedNamespace ? { requestedNamespace: deps.requestedNamespace } : {}),
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
    ...(clusterCrd ? { clusterCrd } : {}),
    readErrors: errors.messages,
  };
}

/** What the CRD says of spec.userDefinedModules, or why it could not be read (never rejects). */
async function readCrdFacts(
  read: Promise<import('../kube/reads.js').KubeObject | undefined>,
): Promise<ClusterCrdFacts> {
  try {
    const crd = await read;
    return crd ? clusterCrdFacts(crd) : { read: false, error: `get crd ${CLUSTER_CRD_NAME}: not found` };
  } catch (error) {
    return { read: false, error: `get crd ${CLUSTER_CRD_NAME}: ${describeKubeError(error).message}` };
  }
}
