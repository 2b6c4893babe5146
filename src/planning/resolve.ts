/**
 * Settles what the flags leave open against the snapshot: the operator upgrade method, the
 * cluster image tag, the versions on both sides, and each database's target version. Pure;
 * shared by the checks and the planner so both reason about the same numbers.
 */

import { UsageError } from '../errors.js';
import {
  bundledDatabaseVersions,
  clusterTagFor,
  defaultDatabaseVersion,
  gitTagFor,
  upstreamFileUrl,
} from '../release/catalog.js';
import type { Bdb, ClusterSnapshot, OperatorSnapshot, Platform, Snapshot } from './snapshot.js';
import { DEFAULT_HELM_CHART, DEFAULT_HELM_REPO, selectsDatabase, type Target } from './target.js';
import {
  compareDatabaseVersions,
  compareReleases,
  databaseVersionOf,
  formatDatabaseVersion,
  formatRelease,
  parseDatabaseVersion,
  parseRsVersion,
  type Release,
} from '../release/versions.js';

/** `olm`: OperatorHub owns the operator; only OLM upgrades it (src/planning/olm.ts). */
export type Method = 'helm' | 'bundle' | 'olm';

/** The release and chart as `helm upgrade` gets them. */
export interface HelmLocation {
  release: string;
  namespace: string;
  /** As helm gets it: a bare chart name when `repo` is set. */
  chart: string;
  repo: string | undefined;
}

export interface DatabaseTarget {
  kind: 'database' | 'active-active';
  name: string;
  namespace: string;
  /** The running version, `major.minor`, when known. */
  current?: string | undefined;
  /** The spec's version field as written (`7.2`, `major`, `latest`). */
  versionSpec?: string | undefined;
  selected: boolean;
  /** The value to write into the spec; undefined when nothing changes. */
  target?: string | undefined;
  /** Why nothing changes, when target is undefined. */
  reason?: string | undefined;
}

/** What follows from the snapshot and the target besides the databases: cheap, read by the hop search. */
export interface ResolvedVersions {
  method: Method;
  operator: { current?: string | undefined; target: string };
  clusterTag: { current?: string | undefined; target: string | undefined };
  /** The RS release running now: the oldest node's software_version, else the spec's tag. */
  currentRs?: Release | undefined;
  targetRs?: Release | undefined;
  /** The plan's single database version: `--db-version`, else the target's default. */
  databaseVersion?: string | undefined;
  /** Where `helm upgrade` finds the release and the chart (method helm). */
  helm: HelmLocation;
  /** The bundle to apply (URL or file), `{version}` replaced; undefined when none is known. */
  bundle?: string | undefined;
}

export interface ResolvedUpgrade extends ResolvedVersions {
  databases: DatabaseTarget[];
}

/**
 * Which helm release holds the operator, and in which namespace: `--helm-release`, else helm's
 * own release record, else the Deployment's helm labels, else the chart's default name. The plan,
 * the checks and the operator step all ask this one function, so they cannot disagree.
 */
export function helmReleaseLocation(
  snapshot: Pick<Snapshot, 'helmRelease' | 'operator' | 'namespace'>,
  explicitRelease?: string | undefined,
): { release: string; namespace: string } {
  return {
    release:
      explicitRelease ??
      snapshot.helmRelease?.name ??
      snapshot.operator?.helmRelease?.name ??
      'redis-enterprise-operator',
    namespace:
      snapshot.helmRelease?.namespace ??
      snapshot.operator?.helmRelease?.namespace ??
      snapshot.operator?.namespace ??
      snapshot.namespace,
  };
}

/**
 * Everything resolveUpgrade settles but each database's target: what the hop search, the
 * artifact probes and the route of a path read. It costs nothing per database, so the hop search
 * asks it for every candidate hop, and each database is decided once per planned hop.
 */
export function resolveVersions(snapshot: Snapshot, target: Target): ResolvedVersions {
  const method = methodOf(target, { olmOwned: Boolean(snapshot.olm), operator: snapshot.operator });
  const targetTag =
    target.clusterVersion ??
    clusterTagFor(target.operator, snapshot.platform, snapshot.cluster?.image.versionTag);
  const currentRs = currentRsOf(snapshot);
  const targetRs = targetTag ? parseRsVersion(targetTag) : undefined;
  const databaseVersion = target.databaseVersion ?? (targetRs ? defaultDatabaseVersion(targetRs) : undefined);
  return {
    method,
    operator: { current: snapshot.operator?.version, target: target.operator },
    clusterTag: { current: snapshot.cluster?.image.versionTag, target: targetTag },
    currentRs,
    targetRs,
    databaseVersion,
    helm: helmLocation(snapshot, target.helm),
    bundle: releaseBundle(target, snapshot.platform),
  };
}

/**
 * The operator upgrade method: `--method`, else OLM where a ClusterServiceVersion owns the
 * operator, helm where a helm release does, else the bundle. Known from the snapshot's first
 * answers (OperatorBasis), so the plan asks for the target's artifact before the rest is read.
 */
export function methodOf(
  target: Pick<Target, 'method'>,
  owner: { olmOwned: boolean; operator?: Pick<OperatorSnapshot, 'helmRelease'> | undefined },
): Method {
  if (target.method !== 'auto') return target.method;
  if (owner.olmOwned) return 'olm';
  return owner.operator?.helmRelease ? 'helm' : 'bundle';
}

export function resolveUpgrade(snapshot: Snapshot, target: Target): ResolvedUpgrade {
  const versions = resolveVersions(snapshot, target);
  return {
    ...versions,
    databases: snapshot.cluster ? databaseTargets(snapshot, snapshot.cluster, target, versions.targetRs) : [],
  };
}

/**
 * Release, namespace and chart for `helm upgrade`, for the plan and the operator step alike. A
 * `<repo>/<chart>` reference becomes `<chart> --repo <url>` (the url from --helm-repo or
 * CTL_HELM_REPO, or helm.redis.io for the default chart), so ctl never depends on, or changes,
 * the repositories in the user's helm configuration. A path, an archive or an oci:// reference,
 * or a chart in a repository the user added under another name, goes to helm as it is.
 */
export function helmLocation(
  snapshot: Pick<Snapshot, 'helmRelease' | 'operator' | 'namespace'>,
  helm: Target['helm'],
): HelmLocation {
  const { release, namespace } = helmReleaseLocation(snapshot, helm.release);
  const chart = helm.chart ?? DEFAULT_HELM_CHART;
  const bare = chart.slice(chart.indexOf('/') + 1);
  if (/^[A-Za-z0-9_-][A-Za-z0-9._-]*\/[A-Za-z0-9._-]+$/.test(chart)) {
    if (helm.repo) return { release, namespace, chart: bare, repo: helm.repo };
    if (chart === DEFAULT_HELM_CHART) return { release, namespace, chart: bare, repo: DEFAULT_HELM_REPO };
    return { release, namespace, chart, repo: undefined };
  }
  if (/^[A-Za-z0-9._-]+$/.test(chart) && helm.repo) return { release, namespace, chart, repo: helm.repo };
  return { release, namespace, chart, repo: undefined };
}

/**
 * Where the bundle of the target release is: `--bundle` (or CTL_BUNDLE, which the command line
 * reads into it) with `{version}` replaced, else the upstream file of the platform
 * (`openshift.bundle.yaml` on OpenShift); undefined when there is no trustworthy upstream
 * bundle for that release (two upstream tags hold another release's).
 */
export function releaseBundle(
  target: Pick<Target, 'bundle' | 'operator'>,
  platform: Platform,
): string | undefined {
  if (target.bundle) return target.bundle.replaceAll('{version}', target.operator);
  // Two upstream tags hold another release's bundle: no trustworthy default for those.
  if (gitTagFor(target.operator) === undefined) return undefined;
  return upstreamFileUrl(target.operator, platform === 'openshift' ? 'openshift.bundle.yaml' : 'bundle.yaml');
}

function currentRsOf(snapshot: Snapshot): Release | undefined {
  const fromNodes = snapshot.api.nodes
    .map((node) => (node.software_version ? parseRsVersion(node.software_version) : undefined))
    .filter((r): r is Release => r !== undefined)
    .sort(compareReleases)[0];
  const tag = snapshot.cluster?.image.versionTag;
  return fromNodes ?? (tag ? parseRsVersion(tag) : undefined);
}

export function formatRs(release: Release | undefined): string {
  return release ? formatRelease(release) : 'unknown';
}

/** `7.2.4` -> `7.2`; policy words and garbage -> undefined. */
function concrete(version: string | undefined): string | undefined {
  const parsed = version === undefined ? undefined : databaseVersionOf(version);
  return parsed ? formatDatabaseVersion(parsed) : undefined;
}

function bdbVersion(bdb: Bdb | undefined): string | undefined {
  return concrete(bdb?.redis_version ?? bdb?.engine_version);
}

function databaseTargets(
  snapshot: Snapshot,
  cluster: ClusterSnapshot,
  target: Target,
  targetRs: Release | undefined,
): DatabaseTarget[] {
  const byUid = new Map(snapshot.api.bdbs.map((bdb) => [String(bdb.uid), bdb]));
  const byName = new Map(snapshot.api.bdbs.map((bdb) => [bdb.name, bdb]));
  const entries: Omit<DatabaseTarget, 'selected' | 'target' | 'reason'>[] = [
    ...snapshot.databases.map((db) => ({
      kind: 'database' as const,
      name: db.name,
      namespace: db.namespace,
      versionSpec: db.versionSpec,
      current:
        concrete(db.statusVersion) ??
        bdbVersion((db.databaseUid ? byUid.get(db.databaseUid) : undefined) ?? byName.get(db.name)) ??
        concrete(db.versionSpec),
    })),
    ...snapshot.activeActiveDatabases.map((aa) => ({
      kind: 'active-active' as const,
      name: aa.name,
      namespace: aa.namespace,
      versionSpec: aa.versionSpec,
      current: bdbVersion(byName.get(aa.name)) ?? concrete(aa.versionSpec),
    })),
  ];
  const desired = desiredVersion(cluster, target, targetRs);
  return entries.map((entry) => {
    const selected = selectsDatabase(target.databases, entry);
    if (!selected) return { ...entry, selected, reason: 'not selected with --databases' };
    return { ...entry, selected, ...decide(entry, target, desired) };
  });
}

/** The version every selected database should reach, or why none can be named. */
function desiredVersion(
  cluster: ClusterSnapshot,
  target: Target,
  targetRs: Release | undefined,
): { version: string } | { reason: string } {
  if (target.databaseVersion) return { version: target.databaseVersion };
  const bundled = targetRs ? bundledDatabaseVersions(targetRs) : undefined;
  if (!targetRs || !bundled) {
    return { reason: 'the target cluster version is not in the catalog: pass --db-version' };
  }
  // The default is what the docs prescribe for the target release: the "Default DB version
  // (upgraded/new databases)" column of DOCS rs/installing-upgrading/upgrading/upgrade-database.md
  // (catalog defaultDatabaseVersion), never silently the newest bundled version; `--db-version
  // latest` asks for the newest.
  const prescribed = defaultDatabaseVersion(targetRs);
  if (cluster.upgradePolicy === 'major') {
    // Only versions the cluster marks as major releases qualify (status.bundledDatabaseVersions),
    // and none beyond the prescribed default.
    const majors = new Set(
      cluster.bundledDatabaseVersions.filter((v) => v.major).map((v) => concrete(v.version)),
    );
    const ceiling = prescribed ? parseDatabaseVersion(prescribed) : undefined;
    const withinDefault = (v: string): boolean => {
      const parsed = parseDatabaseVersion(v);
      if (!ceiling || 'policy' in ceiling || !parsed || 'policy' in parsed) return true;
      return compareDatabaseVersions(parsed, ceiling) <= 0;
    };
    const newestMajor = bundled.filter((v) => majors.has(v) && withinDefault(v)).at(-1);
    return newestMajor
      ? { version: newestMajor }
      : { reason: 'the upgrade policy is major and no newer major version is known: pass --db-version' };
  }
  return prescribed
    ? { version: prescribed }
    : { reason: 'no default database version is known: pass --db-version' };
}

function decide(
  entry: { current?: string | undefined; versionSpec?: string | undefined },
  target: Target,
  desired: { version: string } | { reason: string },
): { target?: string; reason?: string } {
  const spec = entry.versionSpec;
  if (!target.databaseVersion && (spec === 'major' || spec === 'latest')) {
    return { reason: `its version is "${spec}": the operator chooses it` };
  }
  if ('reason' in desired) return { reason: desired.reason };
  const wanted = parseDatabaseVersion(desired.version);
  if (!wanted || 'policy' in wanted) {
    return spec === desired.version
      ? { reason: `already follows "${desired.version}"` }
      : { target: desired.version };
  }
  const current = entry.current ? databaseVersionOf(entry.current) : undefined;
  if (current && compareDatabaseVersions(current, wanted) >= 0) {
    return {
      reason:
        compareDatabaseVersions(current, wanted) === 0
          ? `already runs ${entry.current}`
          : `runs ${entry.current}, newer than ${desired.version}`,
    };
  }
  return { target: desired.version };
}

/** Every name in `--databases` must exist: a typo would otherwise silently upgrade nothing. */
export function assertSelectedDatabasesExist(snapshot: Snapshot, target: Target): void {
  if (target.databases.kind !== 'names') return;
  const known = [...snapshot.databases, ...snapshot.activeActiveDatabases];
  const missing = target.databases.names.filter(
    (name) => !known.some((db) => name === db.name || name === `${db.namespace}/${db.name}`),
  );
  if (missing.length > 0) {
    throw new UsageError(`--databases: no database named ${missing.join(', ')}`, {
      hint: `Databases of this cluster: ${known.map((db) => `${db.namespace}/${db.name}`).join(', ') || 'none'}.`,
    });
  }
}
