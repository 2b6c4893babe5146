/**
 * `database-version-supported`: the target RS supports every database version, before and after:
 * reads the catalog's bundled versions of the target RS, --db-version, each database's current and
 * planned version and the upgrade policy. A version the target does not bundle fails; a policy that
 * may refuse a minor version warns.
 */

import { bundledDatabaseVersions } from '../../release/catalog.js';
import { compareDatabaseVersions, databaseVersionOf } from '../../release/versions.js';
import { formatRs } from '../resolve.js';
import type { ClusterSnapshot } from '../snapshot.js';
import { type Check, type CheckInput, clusterOf, fail, type Outcome, pass, warn } from './check.js';
import { clusterDatabases } from './cluster-databases.js';

function checkDatabaseVersionSupported(input: CheckInput): Outcome {
  const { resolved, target } = input;
  const rec = clusterOf(input);
  const bundled = resolved.targetRs ? bundledDatabaseVersions(resolved.targetRs) : undefined;
  if (!bundled) {
    return warn(
      `the catalog does not know which database versions RS ${formatRs(resolved.targetRs)} bundles`,
      'Check the release notes of the target, and pass --db-version.',
    );
  }
  const rs = formatRs(resolved.targetRs);
  const problems: string[] = [];
  const warnings: string[] = [];
  if (
    target.databaseVersion &&
    !['major', 'latest'].includes(target.databaseVersion) &&
    !bundled.includes(target.databaseVersion)
  ) {
    problems.push(`--db-version ${target.databaseVersion} is not bundled with RS ${rs}`);
  }
  const oldest = bundled[0] ? databaseVersionOf(bundled[0]) : undefined;
  for (const db of clusterDatabases(input)) {
    const v = db.version ? databaseVersionOf(db.version) : undefined;
    if (v && oldest && compareDatabaseVersions(v, oldest) < 0)
      problems.push(`${db.where} runs ${db.version}, which RS ${rs} does not support`);
  }
  for (const db of resolved.databases.filter((d) => d.target !== undefined)) {
    const t = db.target as string;
    if (!['major', 'latest'].includes(t) && !bundled.includes(t))
      problems.push(`${db.namespace}/${db.name} -> ${t} is not bundled with RS ${rs}`);
    if (rec.upgradePolicy === 'major' && target.databaseVersion && !isMajor(rec, t)) {
      warnings.push(
        `${db.namespace}/${db.name}: the upgrade policy is major, so the operator may refuse the minor version ${t}`,
      );
    }
  }
  for (const db of resolved.databases.filter((d) => d.selected && d.reason?.startsWith('runs '))) {
    warnings.push(`${db.namespace}/${db.name} ${db.reason}: left as is`);
  }
  // On a hop before the last, --db-version is not this hop's: it names the final databases and
  // each hop before takes its release's default (hops.ts hopTarget). Advice to pass it here
  // would change the last hop, not this one.
  const final = target.onTheWayTo;
  if (problems.length > 0) {
    return fail(
      problems.join('; '),
      final
        ? `Upgrade older databases first: this hop, a stop on the way to ${final}, takes RS ${rs}'s default database version (--db-version names the final one).`
        : `Choose one of ${bundled.join(', ')} with --db-version, and upgrade older databases first.`,
    );
  }
  if (warnings.length > 0)
    return warn(
      warnings.join('; '),
      final
        ? `This hop, a stop on the way to ${final}, takes RS ${rs}'s default database version; --db-version names the final one.`
        : `Choose one of ${bundled.join(', ')} with --db-version.`,
    );
  const changing = resolved.databases.filter((d) => d.target !== undefined).length;
  return pass(
    `RS ${rs} supports ${bundled.join(', ')}; ${changing} database(s) will move to ${resolved.databaseVersion ?? 'their target'}`,
  );
}

function isMajor(rec: ClusterSnapshot, version: string): boolean {
  return rec.bundledDatabaseVersions.some((v) => {
    const parsed = v.major ? databaseVersionOf(v.version) : undefined;
    return parsed !== undefined && `${parsed.major}.${parsed.minor}` === version;
  });
}

export const databaseVersionSupportedCheck = {
  id: 'database-version-supported',
  needsCluster: true,
  run: checkDatabaseVersionSupported,
} as const satisfies Check;
