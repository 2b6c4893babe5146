/**
 * `api-reachable`: the cluster's management API answers (the run reads and upgrades databases
 * through it): reads the snapshot's API answer and the credentials Secret. Unreachable fails, with
 * the flags that reach it. An API that answers without every database the database resources
 * name fails too: the checks judge the databases from its list, and the run verifies each one
 * through it (./api-visibility.ts: a role limited to some databases, RS 8.2 and later).
 */

import {
  type DatabaseVisibility,
  databaseVisibility,
  unlistedActiveActive,
  unlistedDatabases,
} from '../api-visibility.js';
import { kubectl } from '../equivalent-commands.js';
import { type Check, type CheckInput, clusterOf, failFirm, list, type Outcome, pass } from './check.js';

function checkApiReachable(input: CheckInput): Outcome {
  const { snapshot } = input;
  const rec = clusterOf(input);
  if (snapshot.api.reachable) {
    const visibility = databaseVisibility(snapshot.api);
    // A REAADB is matched by name only: counted missing only where the user may see only some
    // databases (the run's verification would not find it; found by the world test).
    const unlisted = [
      ...unlistedDatabases(snapshot),
      ...(visibility.kind === 'all' ? [] : unlistedActiveActive(snapshot)),
    ];
    if (unlisted.length > 0) return hiddenDatabases(unlisted, visibility, snapshot);
    const versions = [...new Set(snapshot.api.nodes.map((n) => n.software_version).filter(Boolean))];
    return pass(
      `management API answered: ${snapshot.api.nodes.length} node(s)${versions.length ? ` on ${versions.join(', ')}` : ''}, ${snapshot.api.bdbs.length} database(s)`,
    );
  }
  const credentials = snapshot.credentials.present
    ? ''
    : ` The Secret ${snapshot.credentials.name} with the API credentials was not found.`;
  // Not to be ignored: the run reads and upgrades the databases through it (run.ts buildDeps).
  // It answered, but not as the management API does (the error names the item and the field).
  const what = snapshot.api.failure?.malformed
    ? "the management API's answer is not in the documented form"
    : 'the management API is not reachable';
  return failFirm(
    `${what}: ${snapshot.api.error ?? 'unknown error'}.${credentials}`,
    // What the failure itself says to do (an untrusted certificate: ctl auth trust; refused
    // credentials: which ones) beats the general advice, which would suggest setting up a
    // port-forward that ctl already made.
    snapshot.api.failure?.hint ??
      `Pass --api-url (e.g. after ${kubectl(snapshot.kubeTarget, 'port-forward', `svc/${rec.name}`, '9443:9443', '-n', rec.namespace)}), --username with --password-file, and --ca-file or --insecure.`,
    'the run reads and upgrades the databases through the management API',
  );
}

/** The API's list leaves out databases that database resources name: why it may, and what to do. */
function hiddenDatabases(
  unlisted: ReturnType<typeof unlistedDatabases>,
  visibility: DatabaseVisibility,
  snapshot: CheckInput['snapshot'],
): Outcome {
  const missing = list(
    unlisted.map((db) => `${db.resource} (${db.uid === undefined ? 'Active-Active' : `uid ${db.uid}`})`),
    5,
  );
  const why =
    visibility.kind === 'limited'
      ? `the API user's role is limited to database uid(s) ${list(visibility.uids.map(String), 5)}`
      : "either the API user has a role limited to some databases (RS 8.2 and later) or the API reached is not this cluster's";
  const secret = snapshot.credentials.name;
  const from = snapshot.api.user?.credentialsFrom;
  const signIn = from?.startsWith('Secret ')
    ? `put the username and password of a user whose role covers every database in ${from}`
    : `sign in as a user whose role covers every database, such as the admin the operator keeps in the Secret ${secret} (without --username, CTL_USERNAME and CTL_PASSWORD ctl reads it)`;
  return failFirm(
    `the management API does not list the database(s) of ${missing}: ${why}`,
    `Give the API user's role every database (Cluster Manager UI, Access control), or ${signIn}.${visibility.kind === 'limited' ? '' : ' If --api-url (or CTL_API_URL) is set, check that it reaches this cluster.'}`,
    'the plan judges and the run verifies every database through the management API',
  );
}

export const apiReachableCheck = {
  id: 'api-reachable',
  needsCluster: true,
  run: checkApiReachable,
} as const satisfies Check;
