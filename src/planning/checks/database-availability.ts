/**
 * `database-availability` (warn only): a database that the cluster's rolling upgrade will take
 * down. Reads each database's replication and shard placement from the management API
 * (`/v1/bdbs`, `/v1/shards`) and plays the roll, highest ordinal first
 * (../availability-prediction.ts). Warns about a database without replication, or with a master
 * and its replica on one node: it is down for the whole restart of that node. A replicated
 * database only fails over (a short outage): that passes. Never fails: an outage is the user's
 * call, and `ctl upgrade run --max-unavailable` measures and bounds it.
 */

import { predictAvailability } from '../availability-prediction.js';
import { type Check, type CheckInput, list, type Outcome, pass, warn } from './check.js';

function checkDatabaseAvailability({ snapshot }: CheckInput): Outcome {
  const prediction = predictAvailability(snapshot);
  if (!snapshot.api.reachable)
    return pass('not predicted: the management API was not read (api-reachable says why)');
  const down = prediction.databases.filter((db) => db.prediction === 'goes-down');
  const unknown = prediction.databases.filter((db) => db.prediction === 'unknown');
  const failsOver = prediction.databases.filter((db) => db.prediction === 'fails-over');
  const name = (db: (typeof down)[number]) => (db.namespace ? `${db.namespace}/${db.name}` : `bdb ${db.uid}`);
  // Both are said when both are found: a database predicted down does not hide why the others
  // could not be predicted (nor what to do about it).
  const said: { message: string; fix: string }[] = [];
  if (down.length > 0)
    said.push({
      message: `${down.length} database${down.length === 1 ? '' : 's'} will be unavailable during the roll: ${list(
        down.map((db) => `${name(db)} (${db.why})`),
        5,
      )}`,
      fix:
        'Turn on replication for each (spec.replication: true on its REDB) before the upgrade, or accept the outage; ' +
        '`ctl upgrade run --max-unavailable DURATION` stops the run when an outage lasts longer.',
    });
  if (unknown.length > 0) {
    const shards = snapshot.api.shards;
    // The shard list was not read at all: one reason for every database, said once.
    said.push(
      shards && !shards.read
        ? {
            message: `cannot predict the availability of ${list(unknown.map(name), 5)}: shard placement not read (${shards.why})`,
            fix: shards.fix ?? READ_SHARDS_FIX,
          }
        : {
            message: `cannot predict the availability of ${list(
              unknown.map((db) => `${name(db)} (${db.why})`),
              5,
            )}`,
            fix: READ_SHARDS_FIX,
          },
    );
  }
  if (said.length > 0)
    return warn(said.map((part) => part.message).join('; '), said.map((part) => part.fix).join(' '));
  return pass(
    `${prediction.databases.length} database(s): ${failsOver.length} fail over to a replica during the roll, none goes down`,
  );
}

const READ_SHARDS_FIX =
  'Give the management API user a role that may read shards (view_bdb_info), then plan again.';

export const databaseAvailabilityCheck = {
  id: 'database-availability',
  run: checkDatabaseAvailability,
} as const satisfies Check;
