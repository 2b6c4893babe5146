/**
 * The two spellings of the operator's resources (SIMULATOR.md "Dialects").
 *
 * `engine` is the neutral naming of the project's spec; `redis` is the real product's CRDs.
 * The concepts are identical, only five field names differ, so ctl and the simulator read and
 * write through this one table instead of scattering both spellings around the code.
 */

export const DIALECTS = ['engine', 'redis'] as const;
export type Dialect = (typeof DIALECTS)[number];

/** A field's location inside a custom resource, as object keys from the root. */
export type FieldPath = readonly string[];

export interface DialectFields {
  readonly dialect: Dialect;
  /** REC: the Redis Enterprise node image spec {repository, versionTag, imagePullPolicy, digestHash}. */
  readonly imageSpecPath: FieldPath;
  /** REC: the boolean that lets the operator upgrade the cluster by itself. */
  readonly autoUpgradePath: FieldPath;
  /** REC: `major` or `latest`. */
  readonly upgradePolicyPath: FieldPath;
  /** REDB: the database version (`"7.4"`, `major`, `latest`). */
  readonly databaseVersionField: 'engineVersion' | 'redisVersion';
  readonly databaseVersionPath: FieldPath;
  /** REAADB: the database version of an Active-Active database. */
  readonly activeActiveVersionPath: FieldPath;
  /** Key of the version in the body of `POST /v1/bdbs/<uid>/upgrade`. */
  readonly upgradeBodyKey: 'engine_version' | 'redis_version';
}

const ENGINE: DialectFields = {
  dialect: 'engine',
  imageSpecPath: ['spec', 'engineEnterpriseImageSpec'],
  autoUpgradePath: ['spec', 'autoUpgradeEngineEnterprise'],
  upgradePolicyPath: ['spec', 'engineUpgradePolicy'],
  databaseVersionField: 'engineVersion',
  databaseVersionPath: ['spec', 'engineVersion'],
  activeActiveVersionPath: ['spec', 'globalConfigurations', 'engineVersion'],
  upgradeBodyKey: 'engine_version',
};

// The real product nests auto-upgrade inside `upgradeSpec` (redis-facts.md §2): the docs'
// `{.spec.autoUpgradeRedisEnterprise}` jsonpath is a documentation bug.
const REDIS: DialectFields = {
  dialect: 'redis',
  imageSpecPath: ['spec', 'redisEnterpriseImageSpec'],
  autoUpgradePath: ['spec', 'upgradeSpec', 'autoUpgradeRedisEnterprise'],
  upgradePolicyPath: ['spec', 'redisUpgradePolicy'],
  databaseVersionField: 'redisVersion',
  databaseVersionPath: ['spec', 'redisVersion'],
  activeActiveVersionPath: ['spec', 'globalConfigurations', 'redisVersion'],
  upgradeBodyKey: 'redis_version',
};

export function dialectFields(dialect: Dialect): DialectFields {
  return dialect === 'engine' ? ENGINE : REDIS;
}

export function isDialect(value: unknown): value is Dialect {
  return value === 'engine' || value === 'redis';
}

/** `['spec', 'x', 'y']` -> `.spec.x.y`, the form kubectl's jsonpath and printer columns use. */
export function toJsonPath(path: FieldPath): string {
  return path.map((key) => `.${key}`).join('');
}

/**
 * Which dialect a live cluster resource speaks, from the image spec it carries; undefined
 * when it carries neither (ctl then cannot tell and must ask).
 */
export function detectDialect(clusterResource: unknown): Dialect | undefined {
  const spec = (clusterResource as { spec?: Record<string, unknown> } | null)?.spec;
  if (spec === undefined || spec === null || typeof spec !== 'object') return undefined;
  for (const dialect of DIALECTS) {
    const imageSpecKey = dialectFields(dialect).imageSpecPath[1];
    if (imageSpecKey !== undefined && imageSpecKey in spec) return dialect;
  }
  return undefined;
}
