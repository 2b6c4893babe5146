/** Every database of the cluster, as database-min-version and database-version-supported read them. */

import type { CheckInput } from './check.js';

export interface ClusterDatabase {
  name: string;
  /** `ns/name` for a database resource, `bdb <uid>` for one the API alone knows. */
  where: string;
  version?: string | undefined;
  /** The database resource, when the database has one. */
  resource?: { kind: 'redb' | 'reaadb'; namespace: string } | undefined;
  uid?: number | undefined;
}

/** Each resolution's list, made once: database-min-version and database-version-supported read the same one. */
const listed = new WeakMap<
  CheckInput['resolved'],
  { snapshot: CheckInput['snapshot']; databases: ClusterDatabase[] }
>();

/**
 * Every database of the cluster: the API's list when reachable (it has them all), else the
 * resources. The same list for the same snapshot and resolution (read only by its callers).
 */
export function clusterDatabases(input: CheckInput): ClusterDatabase[] {
  const known = listed.get(input.resolved);
  if (known?.snapshot === input.snapshot) return known.databases;
  const databases = listDatabases(input);
  listed.set(input.resolved, { snapshot: input.snapshot, databases });
  return databases;
}

function listDatabases({ snapshot, resolved }: CheckInput): ClusterDatabase[] {
  const resources = resolved.databases.map((db) => ({
    name: db.name,
    where: `${db.namespace}/${db.name}`,
    version: db.current,
    resource: {
      kind: db.kind === 'database' ? ('redb' as const) : ('reaadb' as const),
      namespace: db.namespace,
    },
  }));
  if (!snapshot.api.reachable) return resources;
  // By name, the first resource of each name (as a search from the start would find it): one
  // lookup per bdb, not a search of 10,000 resources for each of 10,000 bdbs.
  const byName = new Map<string, (typeof resources)[number]>();
  for (const resource of resources) if (!byName.has(resource.name)) byName.set(resource.name, resource);
  return snapshot.api.bdbs.map((bdb) => {
    const resource = byName.get(bdb.name);
    const version = bdb.redis_version ?? bdb.engine_version;
    return {
      name: bdb.name,
      where: resource?.where ?? `bdb ${bdb.uid}`,
      version: version ?? resource?.version,
      resource: resource?.resource,
      uid: bdb.uid,
    };
  });
}
