/**
 * Which management role the API user ctl signs in as has: what the plan's `api-permissions`
 * check judges the run's management API changes by (src/planning/checks/api-permissions.ts).
 *
 * The sources (redis/docs, content/operate/rs/references/rest-api/):
 * - requests/users/_index.md: `GET /v1/users` answers every user object and needs
 *   `view_all_users_info`, which only the roles admin and user_manager have
 *   (permissions.md, "Roles list per permission"); `GET /v1/users/{uid}` needs
 *   `view_user_info`, the same two roles. No request documents "who am I" for other roles.
 * - objects/user.md: `role` (admin, cluster_member, cluster_viewer, db_member, db_viewer,
 *   user_manager, none) and `role_uids` ("UIDs of user's roles for role-based access
 *   control"); requests/users/_index.md, in the "Update user" response: "For RBAC-enabled clusters, the
 *   returned user details include role_uids instead of role" (its example shows both: role_uids
 *   is read first).
 * - requests/roles/_index.md: `GET /v1/roles` needs `view_all_roles_info` (every role but
 *   none); objects/role.md: each role's `management` role, and `resources`, scopes that limit
 *   a db_member or db_viewer role to the listed database uids.
 * - kubernetes/security/authentication/manage-rec-credentials.md: "The username for the K8s
 *   secret is the email displayed on the Redis Enterprise admin console": a user is found by
 *   its `email`.
 * - An LDAP user is not a user object (rs/security/access-control/ldap/_index.md: its groups
 *   are mapped to roles at sign-in; `GET /v1/ldap_mappings` names groups, not users), so its
 *   role cannot be read.
 *
 * Read-only: two GETs. Only the signed-in user's own roles are kept, never the other users.
 */

import { describeApiError } from './api-errors.js';
import type { HttpRequest, HttpResponse } from './http.js';

/** One management role the user holds; `databases`: the bdb uids it is limited to, when it is. */
export interface HeldRole {
  management: string;
  /** The role's name when it came through role_uids (a custom role's own name). */
  name?: string | undefined;
  databases?: number[] | undefined;
}

export type OwnRole =
  /** Read: the user's management roles (several through role_uids). */
  | { kind: 'read'; roles: HeldRole[]; credentialsFrom?: string | undefined }
  /**
   * GET /v1/users answered 403: the user has no view_all_users_info, so it is neither admin nor
   * user_manager; which of the other roles it holds, the API does not tell it.
   */
  | { kind: 'not-admin'; credentialsFrom?: string | undefined }
  /**
   * Anything else: the role could not be read, for `why`. `unlisted`: GET /v1/users answered
   * the list (so the user may view every user: admin or user_manager) without the user in it.
   */
  | { kind: 'unknown'; why: string; unlisted?: true; credentialsFrom?: string | undefined };

/** What readOwnRole needs of the client: any authenticated GET, answered as it is. */
export interface OwnRoleReader {
  call(request: HttpRequest): Promise<HttpResponse>;
}

export async function readOwnRole(api: OwnRoleReader, username: string): Promise<OwnRole> {
  const users = await api.call({ method: 'GET', path: '/v1/users' });
  if (users.status === 403) return { kind: 'not-admin' };
  if (users.status !== 200 || !Array.isArray(users.body))
    return { kind: 'unknown', why: `GET /v1/users answered ${answerOf(users)}` };
  const wanted = username.trim().toLowerCase();
  const own = (users.body as unknown[]).find(
    (user): user is Record<string, unknown> =>
      isObject(user) && typeof user.email === 'string' && user.email.trim().toLowerCase() === wanted,
  );
  if (!own) {
    return {
      kind: 'unknown',
      why: 'the user is not among the users GET /v1/users lists (an LDAP or single sign-on user?)',
      unlisted: true,
    };
  }
  const roleUids = Array.isArray(own.role_uids)
    ? own.role_uids.filter((uid): uid is number => typeof uid === 'number')
    : [];
  if (roleUids.length > 0) return rolesByUid(api, roleUids);
  if (typeof own.role === 'string' && own.role !== '')
    return { kind: 'read', roles: [{ management: own.role }] };
  return { kind: 'unknown', why: 'its user object names no role and no role_uids' };
}

async function rolesByUid(api: OwnRoleReader, uids: number[]): Promise<OwnRole> {
  const answer = await api.call({ method: 'GET', path: '/v1/roles' });
  if (answer.status !== 200 || !Array.isArray(answer.body))
    return {
      kind: 'unknown',
      why: `its roles are role_uids, and GET /v1/roles answered ${answerOf(answer)}`,
    };
  const roles: HeldRole[] = [];
  for (const uid of uids) {
    const role = (answer.body as unknown[]).find(
      (candidate): candidate is Record<string, unknown> => isObject(candidate) && candidate.uid === uid,
    );
    if (!role || typeof role.management !== 'string')
      return {
        kind: 'unknown',
        why: `GET /v1/roles does not list its role uid ${uid} with a management role`,
      };
    roles.push({
      management: role.management,
      ...(typeof role.name === 'string' ? { name: role.name } : {}),
      ...scopeOf(role.resources),
    });
  }
  return { kind: 'read', roles };
}

/** objects/role.md `resources`: `[{type: "db", uids: ["1", "2"]}]`; omitted or empty: every database. */
function scopeOf(resources: unknown): { databases?: number[] } {
  if (!Array.isArray(resources) || resources.length === 0) return {};
  const databases = resources
    .filter((scope): scope is Record<string, unknown> => isObject(scope) && scope.type === 'db')
    .flatMap((scope) => (Array.isArray(scope.uids) ? scope.uids : []))
    .map(Number)
    .filter(Number.isInteger);
  return { databases };
}

function answerOf(response: HttpResponse): string {
  return response.status === 200
    ? 'something that is not a list'
    : `HTTP ${response.status}: ${describeApiError(response)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
