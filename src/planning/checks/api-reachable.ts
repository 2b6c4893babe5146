/**
 * `api-reachable`: the cluster's management API answers (the run reads and upgrades databases
 * through it): reads the snapshot's API answer and the credentials Secret. Unreachable fails, with
 * the flags that reach it.
 */

import { kubectl } from '../equivalent-commands.js';
import { type Check, type CheckInput, clusterOf, failFirm, type Outcome, pass } from './check.js';

function checkApiReachable(input: CheckInput): Outcome {
  const { snapshot } = input;
  const rec = clusterOf(input);
  if (snapshot.api.reachable) {
    const versions = [...new Set(snapshot.api.nodes.map((n) => n.software_version).filter(Boolean))];
    return pass(
      `management API answered: ${snapshot.api.nodes.length} node(s)${versions.length ? ` on ${versions.join(', ')}` : ''}, ${snapshot.api.bdbs.length} database(s)`,
    );
  }
  const credentials = snapshot.credentials.present
    ? ''
    : ` The Secret ${snapshot.credentials.name} with the API credentials was not found.`;
  // Not to be ignored: the run reads and upgrades the databases through it (run.ts buildDeps).
  return failFirm(
    `the management API is not reachable: ${snapshot.api.error ?? 'unknown error'}.${credentials}`,
    // What the failure itself says to do (an untrusted certificate: ctl auth trust; refused
    // credentials: which ones) beats the general advice, which would suggest setting up a
    // port-forward that ctl already made.
    snapshot.api.failure?.hint ??
      `Pass --api-url (e.g. after ${kubectl('port-forward', `svc/${rec.name}`, '9443:9443', '-n', rec.namespace)}), --username with --password-file, and --ca-file or --insecure.`,
    'the run reads and upgrades the databases through the management API',
  );
}

export const apiReachableCheck = {
  id: 'api-reachable',
  needsCluster: true,
  run: checkApiReachable,
} as const satisfies Check;
