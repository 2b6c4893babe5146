/**
 * The two spellings of the operator's resources, as the simulated operator reads and writes
 * them (SIMULATOR.md "Dialects"). The simulator keeps its own table rather than ctl's
 * (src/dialect.ts): if ctl misspells a field, the simulator must not misspell it the same way.
 *
 * redis: the real CRD (redis-facts.md §2, K8S `crds/rec_crd.yaml`, `crds/redb_crd.yaml`,
 * `crds/reaadb_crd.yaml`); auto-upgrade is nested in `upgradeSpec` at every tag checked.
 * engine: the project's neutral spelling of the same concepts.
 */

export const SIM_DIALECTS = ['engine', 'redis'] as const;
export type SimDialect = (typeof SIM_DIALECTS)[number];

/** A field's location inside a custom resource, as object keys from the root. */
export type FieldPath = readonly string[];

export interface SimDialectFields {
  readonly dialect: SimDialect;
  /** REC: the node image spec {repository, versionTag, imagePullPolicy, digestHash}. */
  readonly imageSpecPath: FieldPath;
  /** REC: the boolean that lets the operator upgrade the cluster by itself. */
  readonly autoUpgradePath: FieldPath;
  /** REC: `major` or `latest`. */
  readonly upgradePolicyPath: FieldPath;
  /** REDB: the database version field and its path. */
  readonly databaseVersionField: 'engineVersion' | 'redisVersion';
  readonly databaseVersionPath: FieldPath;
  /** REAADB: the database version of an Active-Active database. */
  readonly activeActiveVersionPath: FieldPath;
  /** Key of the version in the body of `POST /v1/bdbs/<uid>/upgrade`. */
  readonly upgradeBodyKey: 'engine_version' | 'redis_version';
}

const ENGINE: SimDialectFields = {
  dialect: 'engine',
  imageSpecPath: ['spec', 'engineEnterpriseImageSpec'],
  autoUpgradePath: ['spec', 'autoUpgradeEngineEnterprise'],
  upgradePolicyPath: ['spec', 'engineUpgradePolicy'],
  databaseVersionField: 'engineVersion',
  databaseVersionPath: ['spec', 'engineVersion'],
  activeActiveVersionPath: ['spec', 'globalConfigurations', 'engineVersion'],
  upgradeBodyKey: 'engine_version',
};

const REDIS: SimDialectFields = {
  dialect: 'redis',
  imageSpecPath: ['spec', 'redisEnterpriseImageSpec'],
  autoUpgradePath: ['spec', 'upgradeSpec', 'autoUpgradeRedisEnterprise'],
  upgradePolicyPath: ['spec', 'redisUpgradePolicy'],
  databaseVersionField: 'redisVersion',
  databaseVersionPath: ['spec', 'redisVersion'],
  activeActiveVersionPath: ['spec', 'globalConfigurations', 'redisVersion'],
  upgradeBodyKey: 'redis_version',
};

export function simDialectFields(dialect: SimDialect): SimDialectFields {
  return dialect === 'engine' ? ENGINE : REDIS;
}

/** `['spec', 'x', 'y']` -> `.spec.x.y`, the form of printer columns' jsonPath. */
export function toJsonPath(path: FieldPath): string {
  return path.map((key) => `.${key}`).join('');
}
