/**
 * The management API changes an upgrade run can make, each with the permission it needs and
 * the management roles that have it. Every change ctl makes through the management API goes
 * through src/api/writer.ts, only from the frozen-upgrade remediation (`--remediate`,
 * src/steps/remediate.ts); the databases step changes the database resources, and the
 * operator upgrades the databases with its own credentials.
 *
 * Sources (redis/docs, content/operate/rs/references/rest-api/):
 * - requests/modules/_index.md (7.4, 7.8 and 7.22 references), "Upload module v2":
 *   `POST /v2/modules` needs `update_cluster`.
 * - requests/bdbs/upgrade.md: `POST /v1/bdbs/{uid}/upgrade` needs `update_bdb_with_action`.
 * - permissions.md, "Roles list per permission": update_cluster: admin; update_bdb_with_action:
 *   admin, cluster_member, db_member; view_all_users_info: admin, user_manager.
 *   (RS 7.4's permissions.md has no user_manager: view_all_users_info is admin's alone there; a
 *   403 on GET /v1/users still means "not an admin".)
 * - _index.md, "Permissions": a request the user's role does not allow fails with 403.
 * - objects/role.md `resources`: a db_member role may be limited to some databases (from RS 8.2:
 *   rs-8-2-0-25.md; the 7.x and 8.0 role objects have no `resources`, so none is limited there).
 */

/** The management roles a user or a role may have (permissions.md "Roles"; objects/user.md `role`). */
export const MANAGEMENT_ROLES: readonly string[] = [
  'admin',
  'cluster_member',
  'cluster_viewer',
  'db_member',
  'db_viewer',
  'user_manager',
  'none',
];

/**
 * The management roles that may list the databases (view_all_bdbs_info; permissions.md "Roles
 * list per permission", redis/docs 63f31f69): every role but none. A role limited to some
 * databases lists only those.
 */
export const BDB_LIST_ROLES: readonly string[] = MANAGEMENT_ROLES.filter((role) => role !== 'none');

export type ApiChange = 'upload-module' | 'upgrade-database';

export interface ApiChangeRule {
  request: string;
  permission: string;
  /** The management roles with the permission (permissions.md). */
  roles: readonly string[];
  /** Limited to the databases of a role's `resources` (objects/role.md). */
  perDatabase: boolean;
}

export const API_CHANGES: Record<ApiChange, ApiChangeRule> = {
  'upload-module': {
    request: 'POST /v2/modules',
    permission: 'update_cluster',
    roles: ['admin'],
    perDatabase: false,
  },
  'upgrade-database': {
    request: 'POST /v1/bdbs/<uid>/upgrade',
    permission: 'update_bdb_with_action',
    roles: ['admin', 'cluster_member', 'db_member'],
    perDatabase: true,
  },
};

/**
 * The roles that may list the users (view_all_users_info): a user whose GET /v1/users answers
 * 403 has none of them, so it is no admin.
 */
export const USER_LIST_ROLES: readonly string[] = ['admin', 'user_manager'];
