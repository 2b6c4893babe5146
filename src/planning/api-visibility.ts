/**
 * Which databases the management API shows the user ctl signs in as. From RS 8.2 a management
 * role may be limited to some databases, and such a user "see[s] only their authorized databases
 * in ... REST API responses, including database lists" (redis/docs
 * content/operate/rs/release-notes/rs-8-2-releases/rs-8-2-0-25.md, "Database-scoped management
 * roles"; a role's `resources`, content/operate/rs/references/rest-api/objects/role.md). So a
 * database resource whose database GET /v1/bdbs leaves out is either hidden from that user or of
 * another cluster, and which one ctl can only tell when it knows the user's roles.
 *
 * Pure: from the snapshot. Read by the api-identity decision (./api-identity.ts: a missing
 * database is a sign of another cluster only when the user sees them all) and by the
 * api-reachable check (./checks/api-reachable.ts: the run reads every database through the API).
 */

import { compareReleases, parseRsVersion, type Release } from '../release/versions.js';
import { BDB_LIST_ROLES } from './api-roles.js';
import type { Snapshot } from './snapshot.js';

/** The first RS with database-scoped management roles (rs-8-2-0-25.md). */
const SCOPED_ROLES_SINCE: Release = [8, 2, 0];

export type DatabaseVisibility =
  /** Every database: a role that is not limited, or an RS without database-scoped roles. */
  | { kind: 'all' }
  /** Only the databases of its roles (read; each role that lists databases is limited): `uids`. */
  | { kind: 'limited'; uids: number[] }
  /** Its roles cannot be read (or none lists databases) on an RS that has database-scoped roles. */
  | { kind: 'unknown' };

export function databaseVisibility(api: Snapshot['api']): DatabaseVisibility {
  const user = api.user;
  if (user?.kind === 'read') {
    // The roles that list databases at all; one of them not limited lists every database.
    const viewers = user.roles.filter((role) => BDB_LIST_ROLES.includes(role.management));
    if (viewers.some((role) => role.databases === undefined)) return { kind: 'all' };
    if (viewers.length > 0)
      return { kind: 'limited', uids: [...new Set(viewers.flatMap((role) => role.databases ?? []))] };
  }
  return hasScopedRoles(api) ? { kind: 'unknown' } : { kind: 'all' };
}

/** Whether any node runs an RS that has database-scoped roles (an unreadable version: assume so). */
function hasScopedRoles(api: Snapshot['api']): boolean {
  return api.nodes.some((node) => {
    const release = node.software_version ? parseRsVersion(node.software_version) : undefined;
    return release === undefined || compareReleases(release, SCOPED_ROLES_SINCE) >= 0;
  });
}

/** A database resource whose database the API's list leaves out. */
export interface UnlistedDatabase {
  /** `namespace/name` of the database resource. */
  resource: string;
  /** A REDB's `status.databaseUID`; an Active-Active database (REAADB) names none. */
  uid?: string | undefined;
}

/** The database resources whose database GET /v1/bdbs did not list. */
export function unlistedDatabases(snapshot: Pick<Snapshot, 'databases' | 'api'>): UnlistedDatabase[] {
  const listed = new Set(snapshot.api.bdbs.map((bdb) => String(bdb.uid)));
  return snapshot.databases.flatMap((database) =>
    database.databaseUid && !listed.has(database.databaseUid)
      ? [{ resource: `${database.namespace}/${database.name}`, uid: database.databaseUid }]
      : [],
  );
}

/**
 * The Active-Active database resources (REAADB) this cluster takes part in whose local database
 * GET /v1/bdbs did not list (a crdt bdb of that name). A REAADB's status names no bdb uid, so it
 * is matched by name, as the run's verification does (src/run/verification.ts databasesOf).
 */
export function unlistedActiveActive(
  snapshot: Pick<Snapshot, 'activeActiveDatabases' | 'api' | 'cluster'>,
): UnlistedDatabase[] {
  const own = snapshot.cluster?.name;
  return snapshot.activeActiveDatabases.flatMap((database) =>
    database.participatingClusters.some((p) => p.name === own) &&
    !snapshot.api.bdbs.some((bdb) => bdb.crdt === true && bdb.name === database.name)
      ? [{ resource: `${database.namespace}/${database.name}` }]
      : [],
  );
}
