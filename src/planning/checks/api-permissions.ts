/**
 * `api-permissions`: the management API user ctl signs in as may make the changes this run will
 * make through the management API. Reads the user's management roles (the snapshot's
 * `api.user`, src/api/own-role.ts) and the run's `--remediate` and `--module-file` (Target);
 * the changes and the roles that may make them are ../api-roles.ts, from the REST API's
 * permissions reference.
 *
 * Only `--remediate` changes anything through the management API (src/steps/remediate.ts):
 * - `POST /v1/bdbs/<uid>/upgrade` (update_bdb_with_action: admin, cluster_member, db_member)
 *   for a database below the target's minimum version. The run WILL make it when the plan sees
 *   such a database, and MAY when the upgrade freezes on one it could not see.
 * - `POST /v2/modules` (update_cluster: admin) with each `--module-file`, on a target that needs
 *   RHEL9 module builds and still takes uploads: the run will make it.
 * Without `--remediate` (or for a target that cannot freeze) the run changes nothing there, and
 * any role that can read (the plan has read the API already) is enough.
 *
 * The decision (judgeApiPermissions, unit-tested as a table):
 * - a change the run will make, which the user's role does not allow: fail. Firm when the role
 *   was read (ignoring it moves a 403 into the change window); ignorable when it is only
 *   inferred (GET /v1/users refused: not an admin, so no module upload);
 * - a change the run will make, whose permission the plan cannot tell (a cluster_member or
 *   db_member cannot read its own role; an LDAP user is no user object): warn, with how to
 *   confirm it;
 * - a change the run may make, which the role does not allow: warn (--remediate could not lift
 *   that freeze);
 * - otherwise pass.
 * Read-only: GET /v1/users and GET /v1/roles, read with the snapshot. The check makes no request.
 */

import { minimumDatabaseVersionFor, requiresRhel9Modules } from '../../release/catalog.js';
import { compareDatabaseVersions, databaseVersionOf } from '../../release/versions.js';
import type { HeldRole, OwnRole } from '../../api/own-role.js';
import { API_CHANGES, type ApiChange, USER_LIST_ROLES } from '../api-roles.js';
import { targetTakesModuleUploads } from '../module-fix.js';
import { type Check, type CheckInput, fail, failFirm, list, type Outcome, pass, warn } from './check.js';
import { clusterDatabases } from './cluster-databases.js';

/** A change the run makes through the management API. */
export interface ApiChangeNeed {
  change: ApiChange;
  /** `will`: the plan sees what makes the run do it; `may`: only if the upgrade freezes unforeseen. */
  certainty: 'will' | 'may';
  /** upgrade-database: the databases the plan sees below the minimum. */
  databases?: { uid: number; name: string }[];
}

/** The changes this plan's run makes through the management API (none without --remediate). */
export function apiChangesOf(input: CheckInput): ApiChangeNeed[] {
  const { target } = input;
  if (!target.remediate) return [];
  const needs: ApiChangeNeed[] = [];
  const minimum = minimumDatabaseVersionFor(target.operator);
  const min = minimum ? databaseVersionOf(minimum) : undefined;
  if (min) {
    const tooOld = clusterDatabases(input).flatMap((db) => {
      const version = db.version ? databaseVersionOf(db.version) : undefined;
      return db.uid !== undefined && version && compareDatabaseVersions(version, min) < 0
        ? [{ uid: db.uid, name: db.name }]
        : [];
    });
    needs.push({
      change: 'upgrade-database',
      certainty: tooOld.length > 0 ? 'will' : 'may',
      ...(tooOld.length > 0 ? { databases: tooOld } : {}),
    });
  }
  if (
    target.remediate.moduleFiles > 0 &&
    requiresRhel9Modules(target.operator) &&
    targetTakesModuleUploads(target.operator)
  )
    needs.push({ change: 'upload-module', certainty: 'will' });
  return needs;
}

type Allowed = 'yes' | 'no' | 'unknown';

/** Whether the user may make the change: from its roles when read, from the 403 when not. */
export function mayMake(need: ApiChangeNeed, user: OwnRole | undefined): Allowed {
  const rule = API_CHANGES[need.change];
  if (!user || user.kind === 'unknown') return 'unknown';
  if (user.kind === 'not-admin')
    return rule.roles.some((role) => !USER_LIST_ROLES.includes(role)) ? 'unknown' : 'no';
  const able = user.roles.filter((role) => rule.roles.includes(role.management));
  if (able.some((role) => !rule.perDatabase || role.databases === undefined)) return 'yes';
  if (able.length === 0) return 'no';
  // Only roles limited to some databases (objects/role.md `resources`): each database must be in one.
  const uids = need.databases?.map((db) => db.uid) ?? [];
  if (uids.length === 0) return 'unknown';
  return uids.every((uid) => able.some((role) => role.databases?.includes(uid))) ? 'yes' : 'no';
}

/** The decision table (see the module comment). */
export function judgeApiPermissions(
  needs: readonly ApiChangeNeed[],
  user: OwnRole | undefined,
  secretName: string,
): Outcome {
  const who = userOf(user);
  const role = roleOf(user);
  if (needs.length === 0)
    return pass(
      `the run changes nothing through the management API (without --remediate any role that reads will do; ${who}: ${role})`,
    );
  const judged = needs.map((need) => ({ need, allowed: mayMake(need, user) }));
  const denied = judged.filter((j) => j.need.certainty === 'will' && j.allowed === 'no');
  if (denied.length > 0) {
    const message = `the run will ${describeChanges(denied.map((j) => j.need))} through the management API, which ${who} may not: ${role}`;
    const fix = `${fixFor(
      denied.map((j) => j.need.change),
      user,
      secretName,
    )} Or run without --remediate: the run stops at the freeze and prints the management API commands to run by hand.`;
    return user?.kind === 'read'
      ? failFirm(message, fix, 'the management API refuses that change to this role (403)')
      : fail(message, fix);
  }
  const untold = judged.filter((j) => j.need.certainty === 'will' && j.allowed === 'unknown');
  if (untold.length > 0) {
    return warn(
      `the run will ${describeChanges(untold.map((j) => j.need))} through the management API; whether ${who} may, the API does not tell: ${role}`,
      `Check the user's role in the Cluster Manager UI (Access control): ${rolesNeeded(untold.map((j) => j.need.change))}. If it has none of them, ${switchCredentials(user, secretName, roleFor(untold.map((j) => j.need.change)))}`,
    );
  }
  const mayFail = judged.filter((j) => j.need.certainty === 'may' && j.allowed === 'no');
  if (mayFail.length > 0) {
    return warn(
      `--remediate could not lift a freeze the plan does not foresee: it would ${describeChanges(mayFail.map((j) => j.need))}, which ${who} may not: ${role}`,
      fixFor(
        mayFail.map((j) => j.need.change),
        user,
        secretName,
      ),
    );
  }
  const sure = judged.filter((j) => j.allowed === 'yes').map((j) => j.need);
  return pass(
    sure.length > 0
      ? `${who} may ${describeChanges(sure)}, as --remediate may have to: ${role}`
      : `--remediate changes something only if the upgrade freezes unforeseen (${who}: ${role})`,
  );
}

function checkApiPermissions(input: CheckInput): Outcome {
  const { snapshot } = input;
  const needs = apiChangesOf(input);
  if (needs.length > 0 && !snapshot.api.reachable)
    return warn('not checked: the management API is not reachable', 'Fix api-reachable first.');
  return judgeApiPermissions(needs, snapshot.api.user, snapshot.credentials.name);
}

/** Who signs in: `the API user (from Secret rec)` (the username itself is redacted anyway). */
function userOf(user: OwnRole | undefined): string {
  return `the API user${user?.credentialsFrom ? ` (from ${user.credentialsFrom})` : ''}`;
}

/** What the plan knows of its role. */
function roleOf(user: OwnRole | undefined): string {
  if (!user) return 'its role was not read';
  if (user.kind === 'not-admin')
    return 'it is no admin (GET /v1/users answered 403: it lacks view_all_users_info, which every admin has)';
  if (user.kind === 'unknown') return `its role cannot be read (${user.why})`;
  return `its role is ${list(user.roles.map(describeRole), 4)}`;
}

function describeRole(role: HeldRole): string {
  const scope =
    role.databases === undefined ? '' : ` for database uid(s) ${list(role.databases.map(String), 5)}`;
  return role.name && role.name !== role.management
    ? `${role.name} (${role.management}${scope})`
    : `${role.management}${scope}`;
}

function describeChanges(needs: readonly ApiChangeNeed[]): string {
  return needs
    .map((need) => {
      const rule = API_CHANGES[need.change];
      const what =
        need.change === 'upload-module'
          ? 'upload the --module-file package(s)'
          : need.databases
            ? `upgrade ${list(
                need.databases.map((db) => `${db.name} (uid ${db.uid})`),
                5,
              )}`
            : 'upgrade the databases that freeze it';
      return `${what} (${rule.request}, permission ${rule.permission})`;
    })
    .join(' and ');
}

function rolesNeeded(changes: readonly ApiChange[]): string {
  return [...new Set(changes)]
    .map((change) => `${API_CHANGES[change].request} needs ${API_CHANGES[change].roles.join(', ')}`)
    .join('; ');
}

/** The roles that may make every one of the changes: admin for an upload, any of three for upgrades. */
function roleFor(changes: readonly ApiChange[]): string {
  const roles = API_CHANGES['upload-module'].roles.filter((role) =>
    changes.every((change) => API_CHANGES[change].roles.includes(role)),
  );
  const all = changes.every((change) => change === 'upgrade-database')
    ? API_CHANGES['upgrade-database'].roles
    : roles;
  return all.length > 1 ? `${all.slice(0, -1).join(', ')} or ${all.at(-1)}` : (all[0] ?? 'admin');
}

function fixFor(changes: readonly ApiChange[], user: OwnRole | undefined, secretName: string): string {
  const role = roleFor(changes);
  return `Give the API user a role with the management role ${role} (Cluster Manager UI, Access control), or ${switchCredentials(user, secretName, role)}`;
}

function switchCredentials(user: OwnRole | undefined, secretName: string, role: string): string {
  const fromSecret = user?.credentialsFrom?.startsWith('Secret ') ?? false;
  return fromSecret
    ? `sign in as a user who has it (${role}): set CTL_USERNAME and CTL_PASSWORD (or --username with --password-file), or put that user's username and password in ${user?.credentialsFrom}.`
    : `sign in as a user who has it (${role}): set CTL_USERNAME and CTL_PASSWORD (or --username with --password-file) to it; the Secret ${secretName} holds the admin the operator created.`;
}

export const apiPermissionsCheck = {
  id: 'api-permissions',
  needsCluster: true,
  run: checkApiPermissions,
} as const satisfies Check;
