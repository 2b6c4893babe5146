/**
 * The simulator's own CustomResourceDefinitions for the operator's three resources, in both
 * dialects. Hand-written and deliberately small: only the fields ctl and the simulator read or
 * write are typed; `x-kubernetes-preserve-unknown-fields` on spec and status keeps whatever else
 * a user puts there. (The upstream CRDs carry no licence, so nothing of them is copied; the
 * tests prove the redis dialect agrees with them field by field.)
 */

import { type SimDialect as Dialect, simDialectFields, type FieldPath, toJsonPath } from './world/dialect.js';
import { operatorAtLeast } from './world/versions.js';

export const CRD_GROUP = 'app.redislabs.com';

/**
 * The first operator whose REC CRD declares spec.userDefinedModules: its notes list the field
 * under "API changes" (redis/docs `content/operate/kubernetes/release-notes/8-0-6-releases/`),
 * and the REC CRD of every certified bundle before it lacks it
 * (redhat-openshift-ecosystem/certified-operators, `redis-enterprise-operator-cert/<v>/manifests/rec_crd.yaml`).
 */
export const USER_DEFINED_MODULES_FROM = '8.0.6-8';

/**
 * The REC CRD's printer columns (what `kubectl get rec` shows) by operator release, read from
 * the REC CRD of each release's bundle: RedisLabs/redis-enterprise-k8s-docs `bundle.yaml` at
 * each tag, and the certified bundles (redhat-openshift-ecosystem/certified-operators
 * `operators/redis-enterprise-operator-cert/<v>/manifests/rec_crd.yaml`, 6.2.8-2 .. 8.2.0-13):
 * - up to 6.0.8-20 (tag v6.0.8-20) the CRD declares none: NAME and AGE only;
 * - from 6.0.12-5 (tag v6.0.12-5) to 7.8.4-9 (tag v7.8.4-9; certified 7.4.6-9.0 and 7.8.4-9.0):
 *   Nodes, Version, State, Spec Status, License State, Shards Limit
 *   (`.status.licenseStatus.shardsLimit`), License Expiration Date, Age;
 * - from 7.8.6-1 (tag 7.8.6-1, certified 7.8.6-1.0) on: Nodes, Shards
 *   (`.status.licenseStatus.shardsUsage`, a status field that release added: its notes' "API
 *   changes", redis/docs kubernetes/release-notes/7-8-6-releases/7-8-6-1-march2025.md), Version,
 *   State, Spec Status, License State, License Expiration Date, Age.
 * (Tag v7.4.6-9 of redis-enterprise-k8s-docs carries the 8.0.6-8 bundle; the certified 7.4.6-9
 * bundle has the Shards Limit column, as the version order says.) Every column is of type
 * string but Age, Nodes too, as upstream declares them.
 */
export const PRINTER_COLUMNS_FROM = '6.0.12-5';
export const SHARDS_USAGE_FROM = '7.8.6-1';

/** ClusterState of the real operator (redis-facts.md §2). */
export const CLUSTER_STATES = [
  'PendingCreation',
  'BootstrappingFirstPod',
  'Initializing',
  'RecoveryReset',
  'RecoveringFirstPod',
  'Running',
  'Error',
  'Invalid',
  'InvalidUpgrade',
  'Upgrade',
  'Deleting',
  'ClusterRecreating',
  'RunningRollingUpdate',
] as const;
export type ClusterState = (typeof CLUSTER_STATES)[number];

/** REDB `status.status`, the same values as the REST bdb `status`. */
export const DATABASE_STATUSES = [
  'pending',
  'active',
  'active-change-pending',
  'delete-pending',
  'import-pending',
  'creation-failed',
  'recovery',
  '',
] as const;

export const ACTIVE_ACTIVE_STATUSES = [
  'pending',
  'active',
  'active-change-pending',
  'delete-pending',
  'creation-failed',
  'error',
  'recovery',
  '',
] as const;

export const SPEC_STATUSES = ['Valid', 'Invalid'] as const;
export const UPGRADE_POLICIES = ['major', 'latest'] as const;
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'] as const;

// ---- a tiny vocabulary for OpenAPI v3 schemas --------------------------------------------

type Schema = Record<string, unknown>;

const str = (): Schema => ({ type: 'string' });
const int = (): Schema => ({ type: 'integer' });
const bool = (): Schema => ({ type: 'boolean' });
const oneOf = (values: readonly string[]): Schema => ({ type: 'string', enum: [...values] });
const list = (items: Schema): Schema => ({ type: 'array', items });
const mapOf = (values: Schema): Schema => ({ type: 'object', additionalProperties: values });

function obj(
  properties: Record<string, Schema>,
  options: { required?: string[]; open?: boolean } = {},
): Schema {
  return {
    type: 'object',
    ...(options.required ? { required: options.required } : {}),
    properties,
    ...(options.open ? { 'x-kubernetes-preserve-unknown-fields': true } : {}),
  };
}

/** Sets `value` at `path` below `root`, creating `obj({})` parents: the dialect tables give paths. */
function place(root: Record<string, Schema>, path: FieldPath, value: Schema): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (rest.length === 0) {
    root[head] = value;
    return;
  }
  root[head] ??= obj({});
  place((root[head] as { properties: Record<string, Schema> }).properties, rest, value);
}

/** The object-root schema every custom resource has; spec and status stay open. */
function resourceSchema(spec: Schema, status: Schema): Schema {
  return {
    openAPIV3Schema: obj({
      apiVersion: str(),
      kind: str(),
      metadata: { type: 'object' },
      spec: { ...spec, 'x-kubernetes-preserve-unknown-fields': true },
      status: { ...status, 'x-kubernetes-preserve-unknown-fields': true },
    }),
  };
}

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'date';
  jsonPath: string;
}

const column = (name: string, jsonPath: string, type: PrinterColumn['type'] = 'string'): PrinterColumn => ({
  name,
  type,
  jsonPath,
});
const AGE = column('Age', '.metadata.creationTimestamp', 'date');

interface Names {
  kind: string;
  plural: string;
  singular: string;
  shortName: string;
}

function definition(
  names: Names,
  versions: { name: string; storage: boolean }[],
  schema: Schema,
  columns: PrinterColumn[],
): object {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${CRD_GROUP}`, labels: { app: 'redis-enterprise' } },
    spec: {
      group: CRD_GROUP,
      scope: 'Namespaced',
      names: {
        kind: names.kind,
        listKind: `${names.kind}List`,
        plural: names.plural,
        singular: names.singular,
        shortNames: [names.shortName],
      },
      versions: versions.map((version) => ({
        name: version.name,
        served: true,
        storage: version.storage,
        subresources: { status: {} },
        // An operator before PRINTER_COLUMNS_FROM declares none: the API server's default Age column.
        ...(columns.length > 0 ? { additionalPrinterColumns: columns } : {}),
        // Each version gets its own copy: the API server may default into it independently.
        schema: structuredClone(schema),
      })),
    },
  };
}

// ---- the three resources -------------------------------------------------------------------

const modulesListSchema = list(obj({ name: str(), version: str(), config: str() }, { required: ['name'] }));
const upgradeModulesSpec = obj({ upgradeModulesToLatest: bool() }, { required: ['upgradeModulesToLatest'] });

function imageSpecSchema(): Schema {
  return obj({
    repository: str(),
    versionTag: str(),
    imagePullPolicy: oneOf(PULL_POLICIES),
    digestHash: str(),
  });
}

/** Whether the REC CRD of this operator version declares spec.userDefinedModules (undefined: the newest). */
export function declaresUserDefinedModules(operatorVersion: string | undefined): boolean {
  return operatorVersion === undefined || operatorAtLeast(operatorVersion, USER_DEFINED_MODULES_FROM);
}

function clusterDefinition(dialect: Dialect, operatorVersion: string | undefined): object {
  const fields = simDialectFields(dialect);
  const spec: Record<string, Schema> = {
    nodes: int(),
    serviceAccountName: str(),
    license: str(),
    licenseSecretName: str(),
    // The other image specs (K8S `crds/rec_crd.yaml`; the same names in both dialects).
    redisEnterpriseServicesRiggerImageSpec: imageSpecSchema(),
    bootstrapperImageSpec: imageSpecSchema(),
    usageMeter: obj(
      { callHomeClient: obj({ imageSpec: imageSpecSchema() }, { open: true }) },
      { open: true },
    ),
    // resourceLimits.allowAutoAdjustment as the real CRD declares it (K8S crds/rec_crd.yaml).
    securityContext: obj({ resourceLimits: obj({ allowAutoAdjustment: bool() }) }, { open: true }),
  };
  // An older operator's CRD has no such field. The simulator's spec stays open (see above), so
  // the field would still be kept here where the real, closed spec prunes it: ctl judges the
  // declaration (src/planning/cluster-crd.ts), which this CRD does not make.
  if (declaresUserDefinedModules(operatorVersion)) {
    spec.userDefinedModules = list(
      obj(
        {
          name: str(),
          source: obj({
            http: obj({ url: str(), credentialsSecret: str() }, { required: ['url'] }),
            https: obj({ url: str(), credentialsSecret: str() }, { required: ['url'] }),
          }),
        },
        { required: ['name', 'source'] },
      ),
    );
  }
  place(
    spec,
    fields.imageSpecPath.slice(1),
    obj({ repository: str(), versionTag: str(), imagePullPolicy: oneOf(PULL_POLICIES), digestHash: str() }),
  );
  place(spec, fields.autoUpgradePath.slice(1), bool());
  place(spec, fields.upgradePolicyPath.slice(1), oneOf(UPGRADE_POLICIES));
  // The real upgradeSpec demands its flag: an empty `upgradeSpec: {}` is rejected there too.
  const upgradeSpec = spec.upgradeSpec as Schema | undefined;
  if (upgradeSpec) upgradeSpec.required = [fields.autoUpgradePath.at(-1)];

  const status = obj({
    state: oneOf(CLUSTER_STATES),
    specStatus: oneOf(SPEC_STATUSES),
    licenseStatus: obj({
      licenseState: str(),
      expirationDate: str(),
      activationDate: str(),
      shardsUsage: str(),
      shardsLimit: int(),
      ramShards: int(),
      ramShardsLimit: int(),
      flashShards: int(),
      flashShardsLimit: int(),
    }),
    bundledDatabaseVersions: list(
      obj({ dbType: str(), version: str(), major: bool() }, { required: ['dbType', 'version'] }),
    ),
    modules: list(obj({ name: str(), displayName: str(), versions: list(str()) })),
  });

  return definition(
    {
      kind: 'RedisEnterpriseCluster',
      plural: 'redisenterpriseclusters',
      singular: 'redisenterprisecluster',
      shortName: 'rec',
    },
    [
      { name: 'v1', storage: true },
      { name: 'v1alpha1', storage: false },
    ],
    resourceSchema(obj(spec), status),
    clusterPrinterColumns(dialect, operatorVersion),
  );
}

/**
 * Which of the REC CRD's changes an operator release has, in the order they came: 0 no printer
 * columns, 1 the Shards Limit column (6.0.12-5), 2 the Shards column (7.8.6-1), 3
 * spec.userDefinedModules (8.0.6-8).
 */
export function recCrdRevision(operatorVersion: string): number {
  if (declaresUserDefinedModules(operatorVersion)) return 3;
  if (operatorAtLeast(operatorVersion, SHARDS_USAGE_FROM)) return 2;
  return operatorAtLeast(operatorVersion, PRINTER_COLUMNS_FROM) ? 1 : 0;
}

/** The REC's printer columns as operator `operatorVersion` declares them (PRINTER_COLUMNS_FROM). */
export function clusterPrinterColumns(
  dialect: Dialect,
  operatorVersion: string | undefined,
): PrinterColumn[] {
  const version = operatorVersion ?? SHARDS_USAGE_FROM;
  if (!operatorAtLeast(version, PRINTER_COLUMNS_FROM)) return [];
  const imageTag = column('Version', `${toJsonPath(simDialectFields(dialect).imageSpecPath)}.versionTag`);
  const licenseState = column('License State', '.status.licenseStatus.licenseState');
  const expiration = column('License Expiration Date', '.status.licenseStatus.expirationDate');
  const state = [column('State', '.status.state'), column('Spec Status', '.status.specStatus')];
  // string, as upstream declares it, though spec.nodes is an integer.
  const nodes = column('Nodes', '.spec.nodes');
  if (!operatorAtLeast(version, SHARDS_USAGE_FROM)) {
    const limit = column('Shards Limit', '.status.licenseStatus.shardsLimit');
    return [nodes, imageTag, ...state, licenseState, limit, expiration, AGE];
  }
  const usage = column('Shards', '.status.licenseStatus.shardsUsage');
  return [nodes, usage, imageTag, ...state, licenseState, expiration, AGE];
}

function databaseDefinition(dialect: Dialect): object {
  const fields = simDialectFields(dialect);
  const spec: Record<string, Schema> = {
    redisEnterpriseCluster: obj({ name: str() }, { required: ['name'] }),
    memorySize: str(),
    modulesList: modulesListSchema,
    shardCount: int(),
    replication: bool(),
    upgradeSpec: upgradeModulesSpec,
  };
  place(spec, fields.databaseVersionPath.slice(1), str());

  const status = obj({
    status: oneOf(DATABASE_STATUSES),
    specStatus: oneOf(SPEC_STATUSES),
    version: str(),
    databaseUID: str(),
    internalEndpoints: list(obj({ host: str(), port: int() })),
    redisEnterpriseCluster: str(),
    // Keyed by shard state (`active`, ...), valued by a count: the Shards column reads `.active`.
    shardStatuses: mapOf(int()),
    lastActionUid: str(),
    lastActionStatus: str(),
    observedGeneration: int(),
  });

  return definition(
    {
      kind: 'RedisEnterpriseDatabase',
      plural: 'redisenterprisedatabases',
      singular: 'redisenterprisedatabase',
      shortName: 'redb',
    },
    [{ name: 'v1alpha1', storage: true }],
    resourceSchema(obj(spec), status),
    [
      column('Version', '.status.version'),
      column('Port', '.status.internalEndpoints[*].port'),
      column('Cluster', '.status.redisEnterpriseCluster'),
      column('Shards', '.status.shardStatuses.active'),
      column('Status', '.status.status'),
      column('Spec Status', '.status.specStatus'),
      AGE,
    ],
  );
}

function activeActiveDefinition(dialect: Dialect): object {
  const fields = simDialectFields(dialect);
  const spec: Record<string, Schema> = {
    globalConfigurations: obj(
      {
        memorySize: str(),
        shardCount: int(),
        replication: bool(),
        modulesList: modulesListSchema,
        upgradeSpec: upgradeModulesSpec,
      },
      { open: true },
    ),
    participatingClusters: list(obj({ name: str(), namespace: str() }, { required: ['name'] })),
  };
  place(spec, fields.activeActiveVersionPath.slice(1), str());

  const status = obj({
    status: oneOf(ACTIVE_ACTIVE_STATUSES),
    specStatus: oneOf(SPEC_STATUSES),
    replicationStatus: oneOf(['up', 'down']),
    linkedRedbs: list(str()),
  });

  return definition(
    {
      kind: 'RedisEnterpriseActiveActiveDatabase',
      plural: 'redisenterpriseactiveactivedatabases',
      singular: 'redisenterpriseactiveactivedatabase',
      shortName: 'reaadb',
    },
    [{ name: 'v1alpha1', storage: true }],
    resourceSchema(obj(spec), status),
    [
      column('Status', '.status.status'),
      column('Spec Status', '.status.specStatus'),
      column('Linked REDBs', '.status.linkedRedbs[*]'),
      column('Replication Status', '.status.replicationStatus'),
    ],
  );
}

/**
 * The CustomResourceDefinitions the simulated operator installs: REC, REDB and REAADB, as
 * operator `operatorVersion` ships them (undefined: the newest).
 */
export function crdsFor(dialect: Dialect, operatorVersion?: string): object[] {
  return [
    clusterDefinition(dialect, operatorVersion),
    databaseDefinition(dialect),
    activeActiveDefinition(dialect),
  ];
}

/**
 * RedisEnterpriseRemoteCluster (RERC): one participating cluster of Active-Active databases.
 * The fields of the upstream CRD (`crd-rerc.yaml`: spec recName, recNamespace, apiFqdnUrl,
 * apiPort, dbFqdnSuffix, secretName; status local, status, specStatus, observedGeneration),
 * written here in the simulator's own words. Seeded only by scenarios with `remoteClusters:`.
 */
export function remoteClusterDefinition(): object {
  const spec = obj(
    {
      recName: str(),
      recNamespace: str(),
      apiFqdnUrl: str(),
      apiPort: int(),
      dbFqdnSuffix: str(),
      secretName: str(),
    },
    { required: ['apiFqdnUrl', 'recName', 'recNamespace'] },
  );
  const status = obj({
    local: bool(),
    status: str(),
    specStatus: oneOf(SPEC_STATUSES),
    observedGeneration: int(),
  });
  return definition(
    {
      kind: 'RedisEnterpriseRemoteCluster',
      plural: 'redisenterpriseremoteclusters',
      singular: 'redisenterpriseremotecluster',
      shortName: 'rerc',
    },
    [{ name: 'v1alpha1', storage: true }],
    resourceSchema(spec, status),
    [
      column('Status', '.status.status'),
      column('Spec Status', '.status.specStatus'),
      column('Local', '.status.local'),
    ],
  );
}
