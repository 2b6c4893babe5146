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
 */

import type { RestModel, RestUser } from './model.js';

const READERS = ['admin', 'cluster_member', 'cluster_viewer', 'db_member', 'db_viewer', 'user_manager'];

/** Each permission the served endpoints need, and the roles that have it. */
export const PERMISSION_ROLES: Record<string, readonly string[]> = {
  view_cluster_modules: READERS,
  view_all_bdbs_info: READERS,
  view_bdb_info: READERS,
  view_all_nodes_info: READERS,
  view_cluster_info: READERS,
  view_all_shard_stats: READERS,
  view_status_of_cluster_action: READERS,
  view_all_roles_info: READERS,
  view_all_users_info: ['admin', 'user_manager'],
  view_user_info: ['admin', 'user_manager'],
  // requests/modules "Upload module v2": update_cluster.
  update_cluster: ['admin'],
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

function roleNamed(model: RestModel, name: string): RestRole | undefined {
  return model.roles.find((role) => role.name === name);
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
 * a role limited to some databases counts only for those. How a limited role sees the lists
 * (GET /v1/bdbs) is not documented: the simulator judges lists by the permission alone.
 */
export function allows(model: RestModel, user: RestUser, permission: string, bdbUid?: string): boolean {
  const granted = PERMISSION_ROLES[permission] ?? [];
  return rolesOf(model, user).some(
    (role) =>
      granted.includes(role.management) &&
      (bdbUid === undefined ||
        !role.resources ||
        role.resources.some((scope) => scope.type === 'db' && scope.uids.includes(bdbUid))),
  );
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
