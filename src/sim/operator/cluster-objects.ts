import { type SimDialect as Dialect, simDialectFields } from '../world/dialect.js';
import { templateHash } from '../kube/controllers/pods.js';
import type { KubeObject } from '../kube/types.js';
import type { Scenario, ScenarioDatabase } from '../scenario.js';
import { setPath } from './kube-access.js';
import type { ClusterLicense } from '../rest/license.js';
import { SHARDS_USAGE_FROM } from '../crds.js';
import { operatorAtLeast } from '../world/versions.js';

/**
 * The objects of the Redis Enterprise cluster itself, as the real operator creates them:
 * the REC, its StatefulSet and pods, the credentials Secret, the database resources. Shared by
 * the seeding and by the operator's own reconcilers so both write the same shapes.
 */

export const CRD_API_VERSION = 'app.redislabs.com/v1';
export const DATABASE_API_VERSION = 'app.redislabs.com/v1alpha1';
export const CLUSTER_KIND = 'RedisEnterpriseCluster';
export const DATABASE_KIND = 'RedisEnterpriseDatabase';
export const ACTIVE_ACTIVE_KIND = 'RedisEnterpriseActiveActiveDatabase';

export const NODE_CONTAINER = 'redis-enterprise-node';
export const BOOTSTRAPPER_CONTAINER = 'bootstrapper';
export const ADMISSION_TLS_SECRET = 'admission-tls';
/** The port of the management API inside every node pod (redis-facts.md §4). */
export const API_PORT = 9443;

const APP_LABEL = { app: 'redis-enterprise' } as const;

export function clusterSelectorLabels(clusterName: string): Record<string, string> {
  return { ...APP_LABEL, 'redis.io/cluster': clusterName, 'redis.io/role': 'node' };
}

/** The tag of an image reference (`redislabs/redis:7.4.6-22` -> `7.4.6-22`). */
export function imageTag(image: string | undefined): string | undefined {
  if (!image) return undefined;
  const withoutDigest = image.split('@')[0] ?? '';
  const colon = withoutDigest.lastIndexOf(':');
  return colon > withoutDigest.lastIndexOf('/') ? withoutDigest.slice(colon + 1) : undefined;
}

/**
 * The REC's image specs besides the node image, by scenario key: where each sits in the spec
 * (K8S `crds/rec_crd.yaml`) and its default repository (DOCS `deployment/helm.md`: rigger
 * `redislabs/k8s-controller`, bootstrapper `redislabs/operator`; call-home client
 * `re-call-home-client`, 8.0.18-11 notes).
 */
export const OTHER_IMAGE_SPECS = {
  rigger: { field: ['redisEnterpriseServicesRiggerImageSpec'], repository: 'redislabs/k8s-controller' },
  bootstrapper: { field: ['bootstrapperImageSpec'], repository: 'redislabs/operator' },
  callHomeClient: {
    field: ['usageMeter', 'callHomeClient', 'imageSpec'],
    repository: 'redislabs/re-call-home-client',
  },
} as const;

/**
 * The repository of each such image on OpenShift: Red Hat's registry, as the certified CSV's
 * relatedImages name them (services-rigger `services-manager`, bootstrapper the operator's own
 * image, call-home-client; src/sim/olm/objects.ts), the operator itself being
 * `registry.connect.redhat.com/redislabs/redis-enterprise-operator` there (redis-facts.md §1).
 */
const OPENSHIFT_IMAGE_REPOSITORIES: Record<keyof typeof OTHER_IMAGE_SPECS, string> = {
  rigger: 'registry.connect.redhat.com/redislabs/services-manager',
  bootstrapper: 'registry.connect.redhat.com/redislabs/redis-enterprise-operator',
  callHomeClient: 'registry.connect.redhat.com/redislabs/call-home-client',
};

/** The default repository of a release component's image on the platform. */
export function componentRepository(
  component: keyof typeof OTHER_IMAGE_SPECS,
  platform: 'kubernetes' | 'openshift',
): string {
  return platform === 'openshift'
    ? OPENSHIFT_IMAGE_REPOSITORIES[component]
    : OTHER_IMAGE_SPECS[component].repository;
}

/** An image spec (ImageSpec of the REC CRD) as the spec holds it. */
export interface SimImageSpec {
  repository?: string | undefined;
  versionTag?: string | undefined;
  digestHash?: string | undefined;
}

/** The image spec pins an image (a tag or a digest); otherwise the operator's default is used. */
export function pinsImage(spec: SimImageSpec | undefined): boolean {
  return Boolean(spec?.versionTag || spec?.digestHash);
}

/**
 * The image a release component runs: its pinned image spec's (`repository:versionTag`, and
 * `@digestHash` when pinned by digest: the CRD's ImageSpec.digestHash "the container image is
 * pulled according to the digest hash instead of the image tag"), else the component's default
 * repository at the operator's version.
 */
export function componentImage(
  spec: SimImageSpec | undefined,
  defaultRepository: string,
  operatorVersion: string,
): string {
  const repository = spec?.repository ?? defaultRepository;
  if (!spec || !pinsImage(spec)) return `${repository}:${operatorVersion}`;
  const name = spec.versionTag ? `${repository}:${spec.versionTag}` : repository;
  return spec.digestHash ? `${name}@${spec.digestHash}` : name;
}

export const SERVICES_RIGGER_CONTAINER = 'services-rigger';

/** `<rec>-services-rigger`: the Deployment of the services rigger the operator creates beside the StatefulSet. */
export function servicesRiggerName(clusterName: string): string {
  return `${clusterName}-services-rigger`;
}

/**
 * The services rigger's Deployment, as the operator creates it: one replica named
 * `<rec>-services-rigger`, its pods `<rec>-services-rigger-<hash>-<id>` (`kubectl get pods` in
 * the docs' quick starts and in public write-ups show `rec-services-rigger-5cc8877ff5-2qkr7`
 * 1/1 beside `rec-0`...), one container running the rigger's image. Its strategy is
 * Kubernetes' default (RollingUpdate): nothing on record says otherwise. The labels are ours:
 * `app` as the operator's other objects and a `redis.io/role` beside the nodes' `node`; no
 * `redis.io/cluster` (not on record for the rigger), so `-l redis.io/cluster=<rec>` selects the
 * nodes alone as it did.
 */
export function servicesRiggerDeployment(clusterName: string, namespace: string, image: string): KubeObject {
  const labels = { ...APP_LABEL, 'redis.io/role': 'services-rigger' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: servicesRiggerName(clusterName), namespace, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: SERVICES_RIGGER_CONTAINER,
              image,
              imagePullPolicy: 'IfNotPresent',
              resources: {
                requests: { cpu: '500m', memory: '500Mi' },
                limits: { cpu: '500m', memory: '500Mi' },
              },
            },
          ],
        },
      },
    },
  };
}

/** Not a licence: a placeholder of the right shape, so no real key ever sits in a scenario. */
export const SIMULATED_LICENSE =
  '----- LICENSE START -----\nsimulated licence: not a real key\n----- LICENSE END -----';

/** The Secret that holds the licence under key `license` when it is not inline. */
export function licenseSecretName(clusterName: string): string {
  return `${clusterName}-license`;
}

export function clusterResource(scenario: Scenario): KubeObject {
  const fields = simDialectFields(scenario.dialect);
  const { cluster } = scenario;
  const spec: Record<string, unknown> = { nodes: cluster.nodes };
  const imageSpec: Record<string, unknown> = {
    imagePullPolicy: 'IfNotPresent',
    repository: cluster.repository,
    versionTag: cluster.versionTag,
  };
  if (cluster.digestHash) imageSpec.digestHash = cluster.digestHash;
  // Inline (spec.license) or in a Secret (spec.licenseSecretName, key `license`): DOCS
  // redis_enterprise_cluster_api.md. Never both: only one of the fields may be non-empty.
  if (cluster.licenseIn === 'spec') spec.license = SIMULATED_LICENSE;
  else spec.licenseSecretName = licenseSecretName(cluster.name);
  for (const [key, path] of Object.entries(OTHER_IMAGE_SPECS)) {
    const given = cluster.imageSpecs[key as keyof typeof OTHER_IMAGE_SPECS];
    if (!given) continue;
    setPath(spec, path.field, {
      repository:
        given.repository ?? componentRepository(key as keyof typeof OTHER_IMAGE_SPECS, scenario.platform),
      ...(given.versionTag ? { versionTag: given.versionTag } : {}),
      ...(given.digestHash ? { digestHash: given.digestHash } : {}),
    });
  }
  const root: Record<string, unknown> = { spec };
  setPath(root, fields.imageSpecPath, imageSpec);
  setPath(root, fields.autoUpgradePath, cluster.autoUpgrade);
  if (cluster.upgradePolicy) setPath(root, fields.upgradePolicyPath, cluster.upgradePolicy);
  if (cluster.allowAutoAdjustment) spec.securityContext = { resourceLimits: { allowAutoAdjustment: true } };
  return {
    apiVersion: CRD_API_VERSION,
    kind: CLUSTER_KIND,
    metadata: { name: cluster.name, namespace: scenario.namespace, labels: { ...APP_LABEL } },
    spec: root.spec,
  };
}

/**
 * `status.licenseStatus` of the cluster's licence (the management API's, rest/license.ts: the
 * same dates and limit GET /v1/license answers) as operator `operatorVersion` writes it.
 *
 * The sources (redis/docs):
 * - kubernetes/release-notes/7-8-6-releases/7-8-6-1-march2025.md, "API changes": 7.8.6-1 added
 *   `shardsUsage`, the "Total number of shards (both RAM and flash) currently in use under this
 *   license", `ramShards` / `flashShards` those in use of each kind, `ramShardsLimit` /
 *   `flashShardsLimit` what the license allows: an older operator writes none of them (its REC
 *   CRD shows `shardsLimit` instead, src/sim/crds.ts clusterPrinterColumns);
 *   kubernetes/reference/api/redis_enterprise_cluster_api.md `status.licenseStatus`: shardsUsage
 *   a string, the others int32 (the real CRD says the same).
 * - rs/clusters/configure/license-keys.md: trial mode is "limited to ... 4 shards, including
 *   master and replica shards": a replica counts as a shard of its own; from RS 7.2 the limits
 *   are by shard type, RAM or flash. The simulator has no Auto Tiering: every shard is a RAM one.
 * - rs/references/rest-api/requests/license: GET /v1/license `ram_shards_in_use`,
 *   `flash_shards_in_use`, `shards_limit`, what the operator mirrors here.
 */
export function licenseStatus(
  license: ClusterLicense,
  shardsInUse: number,
  operatorVersion: string | undefined,
): Record<string, unknown> {
  const status: Record<string, unknown> = {
    licenseState: license.state,
    activationDate: license.activationDate,
    expirationDate: license.expirationDate,
    shardsLimit: license.shardsLimit,
  };
  if (operatorVersion !== undefined && !operatorAtLeast(operatorVersion, SHARDS_USAGE_FROM)) return status;
  return {
    ...status,
    shardsUsage: String(shardsInUse),
    ramShards: shardsInUse,
    ramShardsLimit: license.shardsLimit,
    flashShards: 0,
  };
}

/** The node pod template: the node container's image and the bootstrapper's (componentImage). */
export function nodePodTemplate(
  clusterName: string,
  image: string,
  bootstrapperImage: string,
): Record<string, unknown> {
  return {
    metadata: { labels: clusterSelectorLabels(clusterName) },
    spec: {
      serviceAccountName: clusterName,
      containers: [
        {
          name: NODE_CONTAINER,
          image,
          imagePullPolicy: 'IfNotPresent',
          ports: [
            { name: 'api', containerPort: API_PORT },
            { name: 'ui', containerPort: 8443 },
          ],
          resources: { requests: { cpu: '2', memory: '4Gi' }, limits: { cpu: '2', memory: '4Gi' } },
        },
        {
          name: BOOTSTRAPPER_CONTAINER,
          image: bootstrapperImage,
          imagePullPolicy: 'IfNotPresent',
          ports: [{ name: 'bootstrapper', containerPort: 8787 }],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '100m', memory: '128Mi' } },
        },
      ],
    },
  };
}

/** The revision name the StatefulSet controller gives a template (`<sts>-<hash>`), shared with the default controller. */
export function revisionOf(statefulSetName: string, template: unknown): string {
  return `${statefulSetName}-${templateHash(template)}`;
}

export function clusterStatefulSet(
  clusterName: string,
  namespace: string,
  nodes: number,
  template: unknown,
  strategy: 'RollingUpdate' | 'OnDelete' = 'RollingUpdate',
): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: clusterName, namespace, labels: { ...APP_LABEL, 'redis.io/cluster': clusterName } },
    spec: {
      replicas: nodes,
      serviceName: clusterName,
      selector: { matchLabels: clusterSelectorLabels(clusterName) },
      updateStrategy:
        strategy === 'OnDelete'
          ? { type: 'OnDelete' }
          : { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      template,
    },
  };
}

/** The Service of the management API (`<rec>:9443`), as the operator creates it. */
export function clusterApiService(clusterName: string, namespace: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: clusterName, namespace, labels: { ...APP_LABEL, 'redis.io/cluster': clusterName } },
    spec: {
      selector: clusterSelectorLabels(clusterName),
      ports: [{ name: 'api', port: API_PORT, targetPort: API_PORT, protocol: 'TCP' }],
    },
  };
}

export function clusterServiceAccount(clusterName: string, namespace: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: clusterName, namespace, labels: { ...APP_LABEL } },
  };
}

/** The admin credentials Secret named after the cluster (redis-facts.md §1). */
export function clusterCredentialsSecret(
  clusterName: string,
  namespace: string,
  user: { username: string; password: string },
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: { name: clusterName, namespace, labels: { ...APP_LABEL, 'redis.io/cluster': clusterName } },
    data: {
      username: Buffer.from(user.username, 'utf8').toString('base64'),
      password: Buffer.from(user.password, 'utf8').toString('base64'),
    },
  };
}

export interface DatabaseStatusInput {
  uid: number;
  version: string;
  port: number;
  clusterName: string;
  shards: number;
  now: string;
}

export function databaseResource(
  dialect: Dialect,
  clusterName: string,
  database: ScenarioDatabase,
): KubeObject {
  const fields = simDialectFields(dialect);
  const spec: Record<string, unknown> = {
    redisEnterpriseCluster: { name: clusterName },
    memorySize: database.memorySize ?? '100MB',
    shardCount: database.shardCount ?? 1,
    replication: database.replication ?? true,
  };
  if (database.modules.length > 0) {
    spec.modulesList = database.modules.map((module) => ({ name: module.name, version: module.version }));
  }
  const root: Record<string, unknown> = { spec };
  // A database's own policy word (`major`/`latest`) takes the place of a fixed version, as in the real CRD.
  setPath(root, fields.databaseVersionPath, database.upgradePolicy ?? database.version);
  return {
    apiVersion: DATABASE_API_VERSION,
    kind: DATABASE_KIND,
    metadata: { name: database.name, namespace: database.namespace, labels: { ...APP_LABEL } },
    spec: root.spec,
  };
}

export function databaseStatus(
  database: { name: string; namespace: string },
  input: DatabaseStatusInput,
): Record<string, unknown> {
  return {
    status: 'active',
    specStatus: 'Valid',
    version: input.version,
    databaseUID: String(input.uid),
    redisEnterpriseCluster: input.clusterName,
    internalEndpoints: [
      { host: `${database.name}.${database.namespace}.svc.cluster.local`, port: input.port },
    ],
    shardStatuses: { active: input.shards },
    createdTime: input.now,
    lastUpdated: input.now,
    observedGeneration: 1,
  };
}

export function activeActiveResource(
  dialect: Dialect,
  clusterName: string,
  database: ScenarioDatabase,
): KubeObject {
  const fields = simDialectFields(dialect);
  const globalConfigurations: Record<string, unknown> = {
    memorySize: database.memorySize ?? '100MB',
    shardCount: database.shardCount ?? 1,
    replication: database.replication ?? true,
  };
  if (database.modules.length > 0) {
    globalConfigurations.modulesList = database.modules.map((module) => ({
      name: module.name,
      version: module.version,
    }));
  }
  const root: Record<string, unknown> = {
    // This cluster's participant is named after it (its own RERC, when remoteClusters seeds them).
    spec: {
      globalConfigurations,
      participatingClusters: [clusterName, ...database.participants].map((name) => ({ name })),
    },
  };
  setPath(root, fields.activeActiveVersionPath, database.upgradePolicy ?? database.version);
  return {
    apiVersion: DATABASE_API_VERSION,
    kind: ACTIVE_ACTIVE_KIND,
    metadata: { name: database.name, namespace: database.namespace, labels: { ...APP_LABEL } },
    spec: root.spec,
  };
}

export function activeActiveStatus(database: { name: string }): Record<string, unknown> {
  return { status: 'active', specStatus: 'Valid', replicationStatus: 'up', linkedRedbs: [database.name] };
}
