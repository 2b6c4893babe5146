/**
 * Turning the objects the snapshot read into its parts (./snapshot-model.ts): pure functions of
 * what Kubernetes answered, one per part.
 */

import { type Dialect, dialectFields } from '../release/dialect.js';
import { credentialSecretNameOf } from '../kube/management-access.js';
import { isPodReady } from '../kube/pod-ready.js';
import { CLUSTER_RESOURCE, type KubeObject } from '../kube/reads.js';
import type { ApiCredentials } from './management-snapshot.js';
import { ruleFieldValuesOf } from './rule-field-values.js';
import { specFieldsOf } from './spec-fields.js';
import { array, getPath, num, record, str } from '../json-read.js';
import { pinnedOperatorImage, releaseConfigOf } from './helm-values.js';
import { olmOwnerOf, operatorVersionOfDeployment } from './olm.js';
import { compareNatural } from '../io/text-order.js';
import {
  ADMISSION_TLS_SECRET,
  type ActiveActiveSnapshot,
  type AdmissionTlsSnapshot,
  type ClusterSnapshot,
  type CredentialsSnapshot,
  type DatabaseSnapshot,
  type HelmReleaseSnapshot,
  type ImageSpec,
  OPERATOR_DEPLOYMENT,
  type ObjectVersion,
  type OperatorSnapshot,
  type PodSnapshot,
  SCC_NAME,
  type SccSnapshot,
  type Snapshot,
  type StatefulSetSnapshot,
  type WebhookSnapshot,
} from './snapshot-model.js';

export function versionOf(object: KubeObject | undefined): ObjectVersion {
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

export function findOperatorDeployment(deployments: KubeObject[]): KubeObject | undefined {
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

export function toOperator(
  deployment: KubeObject | undefined,
  namespace: string,
): OperatorSnapshot | undefined {
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

export function toHelmRelease(
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

export function toOperatorConfig(configMap: KubeObject | undefined): Snapshot['operatorConfig'] {
  const data = configMap?.data ?? {};
  return {
    ...versionOf(configMap),
    redbNamespaces: data.REDB_NAMESPACES || undefined,
    redbNamespacesLabel: data.REDB_NAMESPACES_LABEL || undefined,
  };
}

/** `REDB_NAMESPACES_LABEL` names a label; a bare key selects every namespace carrying it. */
export function labelSelectorFor(label: string): string {
  return label.trim();
}

export function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

export function toStatefulSet(object: KubeObject): StatefulSetSnapshot {
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

export function toPods(pods: KubeObject[], clusterName: string): PodSnapshot[] {
  // The StatefulSet's pods are `<cluster>-<ordinal>`; the rigger and operator pods are not.
  const ordinal = new RegExp(`^${clusterName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d+$`);
  return pods
    .filter((pod) => ordinal.test(pod.metadata?.name ?? ''))
    .map((pod) => {
      const status = record(pod.status);
      const containers = array(getPath(pod, ['spec', 'containers'])) as ContainerLike[];
      const node = containers.find((c) => c.name === 'redis-enterprise-node') ?? containers[0];
      return {
        name: pod.metadata?.name ?? '',
        phase: str(status.phase),
        ready: isPodReady(pod),
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
export function toDatabases(
  objects: KubeObject[],
  cluster: ClusterSnapshot,
  dialect: Dialect,
): DatabaseSnapshot[] {
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

export function toActiveActive(object: KubeObject, dialect: Dialect): ActiveActiveSnapshot {
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

export function toAdmissionTls(secret: KubeObject | undefined): AdmissionTlsSnapshot {
  return {
    ...versionOf(secret),
    name: ADMISSION_TLS_SECRET,
    present: secret !== undefined,
    cert: secret?.data?.cert || undefined,
  };
}

export function toScc(object: KubeObject | undefined): SccSnapshot {
  return {
    ...versionOf(object),
    name: SCC_NAME,
    present: object !== undefined,
    users: array(object?.users).filter((u): u is string => typeof u === 'string'),
    helmOwned: object?.metadata?.labels?.['app.kubernetes.io/managed-by'] === 'Helm',
  };
}

export function readCredentials(
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
