/**
 * What blocks a frozen upgrade (./remediate.ts), according to the management API: databases
 * below the version the target requires, and modules in use without a `rhel9/...` build; the
 * same blockers merged, and said in words.
 */

import { type ApiBdb, type ApiModule, bdbVersion } from '../api/types.js';
import { MIN_DATABASE_FOR_RHEL9_TARGETS, minimumDatabaseVersionFor } from '../release/catalog.js';
import { compareDatabaseVersions, databaseVersionOf } from '../release/versions.js';
import { reportedBundled } from '../planning/module-fix.js';
import { isRhel9Platform } from '../planning/module-package.js';

export type Blocker =
  | {
      kind: 'database';
      uid: number;
      name: string;
      /** What it runs now, `major.minor`, when known. */
      version?: string | undefined;
      /** The version to upgrade it to. */
      target: string;
    }
  | {
      kind: 'module';
      module: string;
      version?: string | undefined;
      /** The databases using it. */
      databases: { uid?: number | undefined; name: string }[];
      /** What the management API says of its builds (`is_bundled`); absent: it does not say. */
      isBundled?: boolean;
    };

/** The version a too-old database is upgraded to: the minimum the target requires. */
export function minimumDatabaseVersion(targetOperator: string): string {
  return minimumDatabaseVersionFor(targetOperator) ?? MIN_DATABASE_FOR_RHEL9_TARGETS;
}

/**
 * What blocks the upgrade according to the management API: databases below `targetVersion`,
 * and modules in use that have no RHEL9 build installed (isRhel9Platform: `rhel9/...`, `rocky9/...`). A module whose platforms the API
 * does not list (the newest docs dropped the field) counts only when the operator's log names it.
 */
export function blockersFromApi(
  bdbs: ApiBdb[],
  modules: ApiModule[],
  targetVersion: string,
  namedByLog: Blocker[] = [],
): Blocker[] {
  const minimum = databaseVersionOf(targetVersion);
  const modulesNamedByLog = new Set(
    namedByLog.filter((b) => b.kind === 'module').map((b) => moduleKey(b.module, b.version)),
  );
  const blockers: Blocker[] = [];
  for (const bdb of bdbs) {
    const running = bdbVersion(bdb);
    const parsed = running ? databaseVersionOf(running) : undefined;
    if (minimum && parsed && compareDatabaseVersions(parsed, minimum) < 0) {
      blockers.push({
        kind: 'database',
        uid: bdb.uid,
        name: bdb.name,
        version: running,
        target: targetVersion,
      });
    }
    for (const used of bdb.module_list ?? []) {
      const installed = modules.filter(
        (m) =>
          m.module_name === used.module_name &&
          (used.semantic_version === undefined || m.semantic_version === used.semantic_version),
      );
      if (installed.some((m) => Object.keys(m.platforms ?? {}).some(isRhel9Platform))) continue;
      const listsPlatforms = installed.some((m) => m.platforms !== undefined);
      if (
        !listsPlatforms &&
        installed.length > 0 &&
        !modulesNamedByLog.has(moduleKey(used.module_name, used.semantic_version))
      ) {
        continue;
      }
      const isBundled = reportedBundled(installed);
      blockers.push({
        kind: 'module',
        module: used.module_name,
        version: used.semantic_version,
        databases: [{ uid: bdb.uid, name: bdb.name }],
        ...(isBundled !== undefined ? { isBundled } : {}),
      });
    }
  }
  return mergeBlockers(blockers);
}

function moduleKey(name: string, version: string | undefined): string {
  return `${name}@${version ?? ''}`;
}

export function mergeBlockers(blockers: Blocker[]): Blocker[] {
  const out: Blocker[] = [];
  for (const blocker of blockers) {
    if (blocker.kind === 'database') {
      if (!out.some((b) => b.kind === 'database' && b.uid === blocker.uid)) out.push(blocker);
      continue;
    }
    const same = out.find(
      (b): b is Extract<Blocker, { kind: 'module' }> =>
        b.kind === 'module' && moduleKey(b.module, b.version) === moduleKey(blocker.module, blocker.version),
    );
    if (!same) {
      out.push({ ...blocker, databases: [...blocker.databases] });
      continue;
    }
    for (const db of blocker.databases) {
      if (!same.databases.some((d) => d.name === db.name)) same.databases.push(db);
    }
    if (same.isBundled === undefined && blocker.isBundled !== undefined) same.isBundled = blocker.isBundled;
  }
  return out;
}

export function describeBlocker(blocker: Blocker): string {
  if (blocker.kind === 'database') {
    return `database ${blocker.name} (uid ${blocker.uid}) runs ${blocker.version ?? 'an old version'}, below ${blocker.target}`;
  }
  const used = blocker.databases
    .map((d) => (d.uid === undefined ? d.name : `${d.name} (uid ${d.uid})`))
    .join(', ');
  return `module ${blocker.module}${blocker.version ? ` ${blocker.version}` : ''} has no rhel9 build installed (used by ${used})`;
}
