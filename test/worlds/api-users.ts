/**
 * The management API users of a world (SIMULATOR.md `cluster.users`, `cluster.roles`): who ctl
 * signs in as when it reads the cluster's credentials Secret (the first user), and what the plan
 * must then say of a run that would upload a module (api-permissions).
 *
 * The first user is drawn in every form a real cluster has (redis/docs
 * content/operate/rs/references/rest-api/objects/user.md, objects/role.md,
 * rs/security/access-control/ldap/_index.md):
 * - one management role (`role`), any of them: admin, the readers, user_manager (RS 7.8.2 on:
 *   rs-7-8-2-34.md "A new User Manager role"), none (may read nothing);
 * - RBAC roles (`roles`, served as `role_uids`): a built-in role by name, or a role of the
 *   cluster's own (`cluster.roles`) with any management role; from RS 8.2 a db_member or
 *   db_viewer role may be limited to some databases (rs-8-2-0-25.md, "Database-scoped
 *   management roles"), by name or namespace/name;
 * - not a user object (`listed: false`: an LDAP user, whose groups map to roles at sign-in).
 * Usernames are e-mail addresses in mixed case and with `+` and `.`, as users type them.
 *
 * An admin follows it (the user try-world.ts exports for `credentials: env`),
 * and now and then a user whose password expired (objects/user.md `password_expired` status).
 *
 * Left out: an unlisted user whose management role is user_manager. It may list the users
 * (view_all_users_info) and is not among them, so ctl cannot tell its role and the plan warns
 * (src/planning/checks/api-permissions.ts, "whose permission the plan cannot tell: warn"), as
 * the contract says: a run that uploads a module is then refused, and no read could know it.
 */

import fc from 'fast-check';
import { ROLE_RESOURCES_SINCE, rsAtLeast, USER_MANAGER_SINCE, USER_ROLES } from '../helpers/simulator.js';

/** The management roles a scenario may give (the scenario schema's list). */
const MANAGEMENT = USER_ROLES;
type Management = (typeof MANAGEMENT)[number];

/** The built-in roles by name (requests/roles/_index.md; the simulator's rest/access.ts). */
const BUILT_IN: Record<Management, string> = {
  admin: 'Admin',
  cluster_member: 'Cluster Member',
  cluster_viewer: 'Cluster Viewer',
  db_member: 'DB Member',
  db_viewer: 'DB Viewer',
  user_manager: 'User Manager',
  none: 'None',
};

/** Names a cluster's own role may have: none a built-in role's (names are unique on a cluster). */
const CUSTOM_ROLE_NAMES = ['upgrade-ops', 'Platform Readers', 'db_viewer', 'admins (k8s)', 'ops'] as const;

const USERNAMES = [
  'viewer@example.com',
  'Ops.Team+upgrades@Example.COM',
  'svc_redis@corp.example',
  'a@b.co',
] as const;

export interface ApiUserDraw {
  form: 'role' | 'builtin-roles' | 'custom-role';
  management: Management;
  /** Indexes of the world's databases the custom role is limited to (RS 8.2 on, db roles). */
  scope: number[];
  /** By namespace/name rather than by name. */
  qualified: boolean;
  listed: boolean;
  username: string;
  customRoleName: string;
  expiredUser: boolean;
}

export const apiUserArbitrary: fc.Arbitrary<ApiUserDraw> = fc.record({
  form: fc.oneof(
    { weight: 2, arbitrary: fc.constant('role' as const) },
    { weight: 2, arbitrary: fc.constant('builtin-roles' as const) },
    { weight: 3, arbitrary: fc.constant('custom-role' as const) },
  ),
  management: fc.oneof(
    { weight: 2, arbitrary: fc.constant('admin' as const) },
    { weight: 6, arbitrary: fc.constantFrom(...MANAGEMENT.filter((m) => m !== 'admin' && m !== 'none')) },
    { weight: 1, arbitrary: fc.constant('none' as const) },
  ),
  scope: fc.uniqueArray(fc.nat({ max: 3 }), { minLength: 0, maxLength: 2 }),
  qualified: fc.boolean(),
  listed: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  username: fc.constantFrom(...USERNAMES),
  customRoleName: fc.constantFrom(...CUSTOM_ROLE_NAMES),
  expiredUser: fc.oneof(
    { weight: 4, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  ),
});

export interface ApiUsers {
  users: Record<string, unknown>[];
  roles: Record<string, unknown>[];
  /** The first user's management roles: what the API lets it do. */
  management: Management;
  /** The indexes of the databases the first user's role is limited to; undefined: every one. */
  scope?: number[];
}

const ADMIN = { username: 'admin@example.com', role: 'admin' };

/**
 * The users (and the cluster's own roles) of a cluster whose management API reports
 * `serverVersion`, with databases `databases` (name and namespace, in the scenario's order).
 */
export function apiUsersOf(
  draw: ApiUserDraw,
  serverVersion: string,
  databases: readonly { name: string; namespace: string }[],
): ApiUsers {
  let management = draw.management;
  // No user_manager before RS 7.8.2 (expand.ts checkRoles refuses it there).
  if (management === 'user_manager' && !rsAtLeast(serverVersion, USER_MANAGER_SINCE))
    management = 'cluster_viewer';
  // See the module comment: an unlisted user_manager is left out.
  if (management === 'user_manager' && !draw.listed) management = 'db_viewer';
  // From RS 8.2 a role of the cluster's own limited to some databases is a db role: drawn
  // whenever it can be (a scope is drawn and there are databases), as RS 8.2 worlds are few.
  const scoped =
    draw.form === 'custom-role' && rsAtLeast(serverVersion, ROLE_RESOURCES_SINCE)
      ? draw.scope.filter((i) => i < databases.length)
      : [];
  if (scoped.length > 0 && management !== 'db_member') management = 'db_viewer';
  const roles: Record<string, unknown>[] = [];
  const first: Record<string, unknown> = { username: draw.username };
  if (draw.form === 'role') first.role = management;
  else {
    // An RBAC user's `role` (ignored by its API, which serves role_uids) says what its roles let
    // it do: try-world.ts signs in as an admin by `role` for `credentials: env`.
    first.role = management;
    if (draw.form === 'builtin-roles') first.roles = [BUILT_IN[management]];
    else {
      first.roles = [draw.customRoleName];
      roles.push({
        name: draw.customRoleName,
        management,
        ...(scoped.length > 0
          ? {
              databases: scoped.map((i) => {
                const db = databases[i]!;
                return draw.qualified ? `${db.namespace}/${db.name}` : db.name;
              }),
            }
          : {}),
      });
    }
  }
  if (!draw.listed) first.listed = false;
  const users: Record<string, unknown>[] = [first, ADMIN];
  if (draw.expiredUser)
    users.push({ username: 'former-admin@example.com', role: 'admin', passwordExpired: true });
  return { users, roles, management, ...(scoped.length > 0 ? { scope: scoped } : {}) };
}
