/**
 * Whose management API answered (issue 35): before a plan is made or a run records or changes
 * anything, the management API must be the one of the cluster resource Kubernetes shows. An
 * `--api-url` (or `CTL_API_URL`) that reaches another cluster's API would otherwise plan from
 * that cluster's databases and upgrade this one's operator and cluster on their strength.
 *
 * Two signs, each checked when the API gives it:
 * - GET /v1/cluster `name` is the cluster's fully qualified domain name, which the operator
 *   makes `<REC name>.<namespace>.svc.cluster.local` (redis/docs
 *   content/operate/kubernetes/security/configuration-secrets.md; the cluster object,
 *   content/operate/rs/references/rest-api/objects/cluster/_index.md). A cluster domain other
 *   than `cluster.local` is accepted: `<REC name>.<namespace>.svc.<domain>`.
 * - Every REDB the operator has created a database for (`status.databaseUID`) is that database
 *   in the API: the same uid, with the REDB's name, at a version the REDB reports or asks for
 *   (a database being upgraded is at one of the two), or, when the REDB asks for `major` or
 *   `latest`, newer than it reports (operatorAhead). A uid the API does not list is a sign only
 *   when the user sees every database (./api-visibility.ts): from RS 8.2 a role limited to some
 *   databases hides the others, and the api-reachable check then says which cause it may be.
 *
 * Pure: from the snapshot. A sign the API does not give (a role without view_cluster_info, no
 * REDB yet) decides nothing; the state then records what is known (src/run/cluster-identity.ts).
 */

import { compareDatabaseVersions, databaseVersionOf, formatDatabaseVersion } from '../release/versions.js';
import { databaseVisibility } from './api-visibility.js';
import type { Snapshot } from './snapshot.js';

export interface ApiIdentityMismatch {
  /** What the cluster resource says. */
  expected: string;
  /** What the management API answered instead. */
  found: string;
}

export function apiIdentityMismatch(
  snapshot: Pick<Snapshot, 'cluster' | 'databases' | 'api'>,
): ApiIdentityMismatch | undefined {
  const { cluster, api } = snapshot;
  if (!cluster || !api.reachable) return undefined;
  const name = api.cluster?.name;
  if (name !== undefined && !isClusterFqdn(name, cluster.name, cluster.namespace)) {
    return {
      expected: `cluster ${cluster.name}.${cluster.namespace}.svc.cluster.local (REC ${cluster.namespace}/${cluster.name})`,
      found: `cluster ${name}`,
    };
  }
  const byUid = new Map(api.bdbs.map((bdb) => [String(bdb.uid), bdb]));
  const seesAll = databaseVisibility(api).kind === 'all';
  for (const database of snapshot.databases) {
    if (!database.databaseUid) continue;
    const bdb = byUid.get(database.databaseUid);
    const redb = `REDB ${database.namespace}/${database.name} (database uid ${database.databaseUid})`;
    if (!bdb) {
      if (!seesAll) continue;
      return { expected: redb, found: `no database with uid ${database.databaseUid}` };
    }
    if (bdb.name !== database.name) {
      return { expected: redb, found: `database uid ${database.databaseUid} named ${bdb.name}` };
    }
    const found = concrete(bdb.redis_version ?? bdb.engine_version);
    const status = concrete(database.statusVersion);
    const known = [status, concrete(database.versionSpec)].filter(
      (version): version is string => version !== undefined,
    );
    if (found && known.length > 0 && !known.includes(found) && !operatorAhead(database, status, found)) {
      return {
        expected: `${redb} at ${known.join(' or ')}`,
        found: `database ${bdb.name} at ${found}`,
      };
    }
  }
  return undefined;
}

/** `<rec>.<ns>.svc.cluster.local`, or the same under another cluster domain. */
function isClusterFqdn(name: string, rec: string, namespace: string): boolean {
  const prefix = `${rec}.${namespace}.svc.`.toLowerCase();
  const lower = name.toLowerCase().replace(/\.$/, '');
  return lower.startsWith(prefix) && /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(lower.slice(prefix.length));
}

/**
 * A resource whose version field is a policy (`major`, `latest`: redisVersion in DOCS
 * operate/kubernetes/reference/api/redis_enterprise_database_api.md) leaves the version to the
 * operator, which upgrades the database on its own, the API first and the resource's status
 * after: the API then runs a version newer than the status says, which is no other cluster's
 * sign (found by the generated-world test, a plan made while the operator was at it).
 */
function operatorAhead(
  database: { versionSpec?: string | undefined },
  status: string | undefined,
  found: string,
): boolean {
  if (database.versionSpec === undefined || concrete(database.versionSpec) !== undefined) return false;
  const running = databaseVersionOf(found);
  const reported = status === undefined ? undefined : databaseVersionOf(status);
  return running !== undefined && reported !== undefined && compareDatabaseVersions(running, reported) > 0;
}

function concrete(version: string | undefined): string | undefined {
  const parsed = version === undefined ? undefined : databaseVersionOf(version);
  return parsed ? formatDatabaseVersion(parsed) : undefined;
}
