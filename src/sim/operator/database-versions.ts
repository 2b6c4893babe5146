import { type SimWorld, worldOf } from '../world/world.js';
import { databaseNumbers, isNewerDatabase } from '../world/versions.js';

/**
 * Which database version a database resource asks for, and whether the cluster's upgrade
 * policy lets it have it. Pure: the databases reconciler acts on the answer.
 */

/**
 * Versions Redis Software treats as "major" for the `major` upgrade policy. The real list is
 * not published as data; this follows the release notes' usage (7.2 is what a `major` cluster
 * gets by default on 7.8 and 7.22, 7.4 only with `latest`). 8.0 counts as major; the 8.x
 * releases after it as minor. An approximation: the simulator's own rule, not a documented table.
 */
const MAJOR_DATABASE_VERSIONS: ReadonlySet<string> = new Set(['6.0', '6.2', '7.2', '8.0']);

export function isMajorDatabaseVersion(version: string): boolean {
  return MAJOR_DATABASE_VERSIONS.has(version);
}

/** REC `status.bundledDatabaseVersions` for a cluster image tag (empty when unknown). */
export interface BundledDatabaseVersion {
  dbType: string;
  version: string;
  major: boolean;
}

export function bundledDatabaseVersionsStatus(
  versionTag: string,
  world: SimWorld = worldOf(undefined),
): BundledDatabaseVersion[] {
  return structuredClone([...bundledFor(versionTag, world)]);
}

const bundledCache = new WeakMap<SimWorld, Map<string, readonly BundledDatabaseVersion[]>>();

/** Cached per world: the databases reconciler asks once per database on every pass. */
function bundledFor(versionTag: string, world: SimWorld): readonly BundledDatabaseVersion[] {
  let cache = bundledCache.get(world);
  if (!cache) bundledCache.set(world, (cache = new Map()));
  let entries = cache.get(versionTag);
  if (!entries) {
    const versions = world.bundledDatabaseVersions(versionTag);
    entries = versions.map((version) => ({
      dbType: 'redis',
      version,
      major: isMajorDatabaseVersion(version),
    }));
    cache.set(versionTag, entries);
  }
  return entries;
}

export type DatabaseTarget =
  | { kind: 'none' }
  | { kind: 'upgrade'; version: string }
  | { kind: 'refused'; reason: string; message: string };

export interface DatabaseTargetInput {
  /** The REDB's version field: `7.4`, `major`, `latest`, or unset. */
  spec: string | undefined;
  /** What the database runs now (`7.2`). */
  current: string;
  /** The cluster image tag it runs on: decides the versions available. */
  clusterTag: string;
  /** The REC's upgrade policy (`major`, `latest`, or unset). */
  clusterPolicy: string | undefined;
  /** The scenario's releases (default: the built-in ones). */
  world?: SimWorld;
}

/**
 * The version to upgrade to, nothing, or why the operator refuses. Never a downgrade: a spec
 * below the running version is left alone, as the real operator cannot downgrade in place.
 */
export function databaseTarget(input: DatabaseTargetInput): DatabaseTarget {
  const { spec, current, clusterTag, clusterPolicy } = input;
  if (!spec) return { kind: 'none' };
  const available = bundledFor(clusterTag, input.world ?? worldOf(undefined));
  const newer = (version: string) => isNewer(version, current);
  if (spec === 'latest') {
    if (clusterPolicy === 'major') {
      return {
        kind: 'refused',
        reason: 'InvalidUpgradePolicy',
        message:
          "version 'latest' needs the cluster's upgrade policy 'latest', but it is 'major': set the cluster policy first or use a major version",
      };
    }
    const latest = available.at(-1)?.version;
    return latest && newer(latest) ? { kind: 'upgrade', version: latest } : { kind: 'none' };
  }
  if (spec === 'major') {
    const major = available.filter((entry) => entry.major).at(-1)?.version;
    return major && newer(major) ? { kind: 'upgrade', version: major } : { kind: 'none' };
  }
  if (!databaseNumbers(spec)) {
    return {
      kind: 'refused',
      reason: 'InvalidVersion',
      message: `"${spec}" is not a database version (use <major>.<minor>, major or latest)`,
    };
  }
  if (!newer(spec)) return { kind: 'none' };
  if (available.length > 0 && !available.some((entry) => entry.version === spec)) {
    const listed = available.map((entry) => entry.version).join(', ');
    return {
      kind: 'refused',
      reason: 'UnsupportedVersion',
      message: `database version ${spec} is not available on cluster version ${clusterTag} (available: ${listed})`,
    };
  }
  if (clusterPolicy === 'major' && !isMajorDatabaseVersion(spec)) {
    return {
      kind: 'refused',
      reason: 'UpgradePolicyMajor',
      message: `upgrade to ${spec} refused: ${spec} is a minor version and the upgrade policy is 'major' (set the policy to 'latest', or choose a major version)`,
    };
  }
  return { kind: 'upgrade', version: spec };
}

/** True when `candidate` is a newer major.minor than `current` (unparsable: false). */
export function isNewer(candidate: string, current: string): boolean {
  return isNewerDatabase(candidate, current);
}
