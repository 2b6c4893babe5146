/**
 * Who may call what on the simulated management API: the simulator's own copy of the REST API's
 * permissions reference (redis/docs content/operate/rs/references/rest-api/permissions.md,
 * "Roles list per permission", and each request page's "Permissions" table), for the
 * endpoints the simulator serves. A request the user's roles do not allow answers 403
 * (rest-api/_index.md, "Permissions").
 *
 * Users hold one management role (`role`), or, on an RBAC cluster, roles by uid (`role_uids`,
 * each role with its `management` role: objects/user.md, objects/role.md); the built-in roles
 * below have the uids and names of requests/roles/_index.md's example.
 *
 * The table depends on the cluster's RS (each version's reference, redis/docs
 * content/operate/rs/<7.4|7.8|7.22|8.0>/references/rest-api/ and the latest):
 * - `user_manager` from RS 7.8.2 (rs-7-8-releases/rs-7-8-2-34.md: "A new User Manager role");
 *   the 7.4 permissions.md has no such role, view_all_users_info and view_user_info are admin's
 *   alone and the readers are the five others, and 7.4's objects/role.md `management` lists no
 *   user_manager. The 7.8, 7.22, 8.0 and latest tables agree for the permissions below.
 * - a role's `resources` (limiting a db_member or db_viewer role to some databases) from RS 8.2
 *   (rs-8-2-releases/rs-8-2-0-25.md, "Database-scoped management roles"; only the latest
 *   objects/role.md has the field).
 */

import { compareNumbers, rsOfTag, type VersionNumbers } from '../world/versions.js';
import type { RestModel, RestUser } from './model.js';

/** The first RS with the management role user_manager. */
export const USER_MANAGER_SINCE: VersionNumbers = [7, 8, 2];
/** The first RS whose roles may be limited to some databases (`resources`). */
export const ROLE_RESOURCES_SINCE: VersionNumbers = [8, 2, 0];
/** The management roles a role's `resources` may limit (objects/role.md). */
export const SCOPABLE_ROLES: readonly string[] = ['db_member', 'db_viewer'];

/** Whether the RS of a server version (`7.8.2-6`) is `since` or later; an unreadable one is new. */
export function rsAtLeast(serverVersion: string, since: VersionNumbers): boolean {
  const rs = rsOfTag(serverVersion);
  return rs === undefined || compareNumbers(rs, since) >= 0;
}

/** The management roles a cluster of this RS has (permissions.md "Roles"). */
export function managementRolesOn(serverVersion: string): string[] {
  const all = ['admin', 'cluster_member', 'cluster_viewer', 'db_member', 'db_viewer', 'user_manager', 'none'];
  return rsAtLeast(serverVersion, USER_MANAGER_SINCE) ? all : all.filter((role) => role !== 'user_manager');
}

const READERS = ['admin', 'cluster_member', 'cluster_viewer', 'db_member', 'db_viewer', 'user_manager'];

/** Each permission the served endpoints need, and the roles that have it (the newest table). */
export const PERMISSION_ROLES: Record<string, readonly string[]> = {
  view_cluster_modules: READERS,
  view_all_bdbs_info: READERS,
  view_bdb_info: READERS,
  view_all_nodes_info: READERS,
  view_cluster_info: READERS,
  view_all_shard_stats: READERS,
  view_status_of_cluster_action: READERS,
  view_all_roles_info: READERS,
  // requests/license "Get license": view_license, every role but none (permissions.md).
  view_license: READERS,
  view_all_users_info: ['admin', 'user_manager'],
  view_user_info: ['admin', 'user_manager'],
  // requests/modules "Upload module v2": update_cluster.
  update_cluster: ['admin'],
  // requests/modules/user-defined.md, the uploads: manage_cluster_modules.
  manage_cluster_modules: ['admin'],
  // requests/bdbs/upgrade.md: update_bdb_with_action.
  update_bdb_with_action: ['admin', 'cluster_member', 'db_member'],
};

export interface RestRole {
  uid: number;
  name: string;
  management: string;
  /**
   * objects/role.md `resources`: "resource scopes that limit a db_member or db_viewer management
   * role to specific databases", e.g. `[{type: "db", uids: ["1", "2"]}]`; absent: every database.
   */
  resources?: { type: 'db'; uids: string[] }[];
}

/** requests/roles/_index.md's example roles (User Manager added after them). */
export const BUILT_IN_ROLES: readonly RestRole[] = [
  { uid: 1, name: 'Admin', management: 'admin' },
  { uid: 2, name: 'Cluster Member', management: 'cluster_member' },
  { uid: 3, name: 'Cluster Viewer', management: 'cluster_viewer' },
  { uid: 4, name: 'DB Member', management: 'db_member' },
  { uid: 5, name: 'DB Viewer', management: 'db_viewer' },
  { uid: 6, name: 'None', management: 'none' },
  { uid: 7, name: 'User Manager', management: 'user_manager' },
];

/** The roles GET /v1/roles lists: a built-in role only on an RS that has its management role. */
export function rolesServed(model: RestModel): RestRole[] {
  const known = managementRolesOn(model.serverVersion);
  return model.roles.filter((role) => known.includes(role.management));
}

function roleNamed(model: RestModel, name: string): RestRole | undefined {
  return rolesServed(model).find((role) => role.name === name);
}

/** The roles a user holds: its one management role, or each of its roles by name. */
function rolesOf(model: RestModel, user: RestUser): Pick<RestRole, 'management' | 'resources'>[] {
  if (!user.roleNames) return [{ management: user.role }];
  return user.roleNames.map((name) => roleNamed(model, name) ?? { management: 'none' });
}

export function managementRolesOf(model: RestModel, user: RestUser): string[] {
  return rolesOf(model, user).map((role) => role.management);
}

/**
 * Whether the user's roles have the permission; for a request about one database (`bdbUid`),
 * a role limited to some databases counts only for those. Lists are judged by the permission
 * alone; GET /v1/bdbs then leaves out what a limited user may not see (limitedToSomeDatabases).
 */
export function allows(model: RestModel, user: RestUser, permission: string, bdbUid?: string): boolean {
  // Before RS 7.8.2 there is no user_manager: it grants nothing there.
  const known = managementRolesOn(model.serverVersion);
  const granted = (PERMISSION_ROLES[permission] ?? []).filter((role) => known.includes(role));
  return rolesOf(model, user).some(
    (role) =>
      granted.includes(role.management) &&
      (bdbUid === undefined ||
        !role.resources ||
        role.resources.some((scope) => scope.type === 'db' && scope.uids.includes(bdbUid))),
  );
}

/**
 * Whether every role of the user that may view databases is limited to some of them: such a
 * user "see[s] only their authorized databases in ... REST API responses, including database
 * lists" (rs-8-2-0-25.md, "Database-scoped management roles"); one unlimited role sees them all.
 */
export function limitedToSomeDatabases(model: RestModel, user: RestUser): boolean {
  const viewers = rolesOf(model, user).filter((role) =>
    (PERMISSION_ROLES.view_bdb_info ?? []).includes(role.management),
  );
  return viewers.length > 0 && viewers.every((role) => role.resources !== undefined);
}

/** The user object (objects/user.md), never its password: `role_uids` instead of `role` on RBAC. */
export function renderUser(model: RestModel, user: RestUser): Record<string, unknown> {
  return {
    uid: Number(user.uid),
    email: user.username,
    name: user.username.split('@')[0] ?? user.username,
    auth_method: 'regular',
    status: user.passwordExpired ? 'password_expired' : 'active',
    email_alerts: true,
    ...(user.roleNames
      ? {
          role_uids: user.roleNames.flatMap((name) => roleNamed(model, name)?.uid ?? []),
        }
      : { role: user.role }),
  };
}
