/**
 * `database-min-version`: every database is at least the version the target needs (older ones
 * freeze the cluster upgrade): reads each database's version from the management API (else the
 * resources). Fails with the patch (or API call) that upgrades each one first.
 */

import { dialectFields } from '../../release/dialect.js';
import { minimumDatabaseVersionFor } from '../../release/catalog.js';
import { compareDatabaseVersions, databaseVersionOf, parseDatabaseVersion } from '../../release/versions.js';
import { curlApi, kubectlMergePatch, patchAt } from '../equivalent-commands.js';
import { type Check, type CheckInput, fail, list, type Outcome, pass, warn } from './check.js';
import { clusterDatabases } from './cluster-databases.js';

function checkDatabaseMinVersion(input: CheckInput): Outcome {
  const { target, snapshot } = input;
  const minimum = minimumDatabaseVersionFor(target.operator);
  if (!minimum) return pass(`no minimum database version for ${target.operator}`);
  const min = parseDatabaseVersion(minimum);
  const databases = clusterDatabases(input);
  const tooOld = databases.filter((db) => {
    const v = db.version ? databaseVersionOf(db.version) : undefined;
    return v && min && !('policy' in min) && compareDatabaseVersions(v, min) < 0;
  });
  const unknown = databases.filter((db) => !db.version || !databaseVersionOf(db.version));
  if (tooOld.length > 0) {
    const fields = dialectFields(snapshot.dialect);
    const fixes = tooOld.map((db) =>
      db.resource
        ? kubectlMergePatch(
            snapshot.kubeTarget,
            db.resource.kind,
            db.name,
            db.resource.namespace,
            patchAt(
              db.resource.kind === 'redb' ? fields.databaseVersionPath : fields.activeActiveVersionPath,
              minimum,
            ),
          )
        : curlApi('POST', `/v1/bdbs/${db.uid}/upgrade`, [
            '-H',
            'Content-Type: application/json',
            '-d',
            JSON.stringify({ [fields.upgradeBodyKey]: minimum }),
          ]),
    );
    return fail(
      `${list(tooOld.map((db) => `${db.where} (${db.version})`))} ${tooOld.length === 1 ? 'is' : 'are'} below ${minimum}: the upgrade to ${target.operator} would freeze`,
      `Upgrade ${tooOld.length === 1 ? 'it' : 'them'} to ${minimum} first: ${fixes.join(' ; ')}`,
    );
  }
  if (unknown.length > 0) {
    return warn(
      `cannot read the version of ${list(unknown.map((db) => db.where))}`,
      'Make the management API reachable (api-reachable), or check status.version of the database resources.',
    );
  }
  return pass(`${databases.length} database(s), all at ${minimum} or newer`);
}

export const databaseMinVersionCheck = {
  id: 'database-min-version',
  needsCluster: true,
  run: checkDatabaseMinVersion,
} as const satisfies Check;
