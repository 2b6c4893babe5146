/**
 * Whether the cluster lets a database go to a version: a cluster whose upgrade policy
 * (`spec.redisUpgradePolicy` / `spec.engineUpgradePolicy`) is `major` refuses a minor version
 * (redis-facts.md §3), so that database is skipped with a warning rather than left Invalid. Read
 * live from the cluster resource (its `status.bundledDatabaseVersions` says which versions are
 * major), the snapshot's copy when the resource cannot be read.
 */

import { OperationError } from '../errors.js';
import { readObject } from '../kube/write.js';
import { dialectFields } from '../release/dialect.js';
import { databaseVersionOf } from '../release/versions.js';
import type { StepContext } from '../run/step.js';
import type { UpgradeDeps } from './deps.js';
import { getPath, str } from '../json-read.js';

export interface LiveCluster {
  name: string;
  namespace: string;
  upgradePolicy: string | undefined;
  /** `status.bundledDatabaseVersions` as major.minor -> major flag. */
  majors: Map<string, boolean>;
}

export async function readLiveCluster(ctx: StepContext<UpgradeDeps>): Promise<LiveCluster> {
  const { snapshot, kube } = ctx.deps;
  const known = snapshot.cluster;
  if (!known) throw new OperationError('no cluster resource was found', { hint: 'Pass --cluster NAME.' });
  const fields = dialectFields(snapshot.dialect);
  const rec = await readObject(kube, {
    apiVersion: known.apiVersion,
    kind: 'RedisEnterpriseCluster',
    name: known.name,
    namespace: known.namespace,
  });
  const bundled = rec
    ? ((getPath(rec, ['status', 'bundledDatabaseVersions']) as
        { version?: string; major?: boolean }[] | undefined) ?? [])
    : known.bundledDatabaseVersions;
  const majors = new Map<string, boolean>();
  for (const entry of Array.isArray(bundled) ? bundled : []) {
    const parsed = entry.version ? databaseVersionOf(entry.version) : undefined;
    if (parsed) majors.set(`${parsed.major}.${parsed.minor}`, entry.major === true);
  }
  return {
    name: known.name,
    namespace: known.namespace,
    upgradePolicy: rec ? str(getPath(rec, fields.upgradePolicyPath)) : known.upgradePolicy,
    majors,
  };
}

/** The reason the cluster's `major` policy refuses this version; undefined when it lets it through. */
export function policyRefusal(cluster: LiveCluster, version: string): string | undefined {
  if (cluster.upgradePolicy !== 'major') return undefined;
  const key = majorMinor(version);
  const major = key ? cluster.majors.get(key) : undefined;
  if (major === true) return undefined;
  return major === false
    ? `${version} is a minor version and the cluster's upgrade policy is major`
    : `the cluster's upgrade policy is major and ${version} is not listed as a major version`;
}

function majorMinor(version: string): string | undefined {
  const parsed = databaseVersionOf(version);
  return parsed ? `${parsed.major}.${parsed.minor}` : undefined;
}
