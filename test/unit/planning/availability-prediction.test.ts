import assert from 'node:assert/strict';
import { test } from 'node:test';
import { predictAvailability } from '../../../src/planning/availability-prediction.js';
import { runChecks } from '../../../src/planning/checks/index.js';
import { renderAvailabilityPrediction } from '../../../src/planning/render-availability.js';
import { paintOf } from '../../../src/planning/render-plan.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

type Shards = { bdbUid: number; nodeUid: number; role: string; slots: string }[];

/** Two more databases beside the fixture's db1, in namespace `pay`. */
function withDatabases(
  shards: Shards,
  bdbs: { uid: number; name: string; replication?: boolean }[],
): Snapshot {
  return makeSnapshot((s) => {
    for (const bdb of bdbs) {
      s.api.bdbs.push({ uid: bdb.uid, name: bdb.name, redis_version: '7.2', replication: bdb.replication });
      s.databases.push({
        name: bdb.name,
        namespace: 'pay',
        databaseUid: String(bdb.uid),
        modules: [],
        versionSpec: '7.2',
      });
    }
    if (s.api.shards?.read) s.api.shards.shards.push(...shards);
  });
}

function availabilityCheck(snapshot: Snapshot) {
  const checks = runChecks(snapshot, makeTarget({ to: '7.8.2-6' }), { required: REQUIRED_PERMISSIONS });
  return checks.find((check) => check.id === 'database-availability');
}

test('a replicated database fails over when its master node restarts, in the roll order', () => {
  const prediction = predictAvailability(makeSnapshot());
  assert.deepEqual(prediction.rollOrder, ['rec-2', 'rec-1', 'rec-0']);
  const [db1] = prediction.databases;
  assert.equal(db1?.namespace, 'redis');
  assert.equal(db1?.name, 'db1');
  assert.equal(db1?.prediction, 'fails-over');
  // Master on node 1 (rec-0), replica on node 2 (rec-1): rec-1 first, a replica: nothing; then
  // rec-0 fails it over to node 2.
  assert.deepEqual(db1?.pods, [{ pod: 'rec-0', effect: 'fails-over' }]);
  assert.equal(availabilityCheck(makeSnapshot())?.status, 'pass');
});

test('a promoted replica fails over again when its own node restarts later in the roll', () => {
  const snapshot = withDatabases(
    [
      { bdbUid: 2, nodeUid: 2, role: 'master', slots: '0-16383' },
      { bdbUid: 2, nodeUid: 1, role: 'slave', slots: '0-16383' },
    ],
    [{ uid: 2, name: 'ledger', replication: true }],
  );
  const ledger = predictAvailability(snapshot).databases.find((db) => db.name === 'ledger');
  assert.deepEqual(ledger?.pods, [
    { pod: 'rec-1', effect: 'fails-over' },
    { pod: 'rec-0', effect: 'fails-over' },
  ]);
});

test('no replication, or a master with its replica on one node: down, and the check warns', () => {
  const snapshot = withDatabases(
    [
      { bdbUid: 2, nodeUid: 3, role: 'master', slots: '0-16383' },
      { bdbUid: 3, nodeUid: 2, role: 'master', slots: '0-8191' },
      { bdbUid: 3, nodeUid: 2, role: 'slave', slots: '0-8191' },
      { bdbUid: 3, nodeUid: 1, role: 'master', slots: '8192-16383' },
      { bdbUid: 3, nodeUid: 3, role: 'slave', slots: '8192-16383' },
    ],
    [
      { uid: 2, name: 'sessions', replication: false },
      { uid: 3, name: 'carts', replication: true },
    ],
  );
  const byName = new Map(predictAvailability(snapshot).databases.map((db) => [db.name, db]));
  assert.equal(byName.get('sessions')?.prediction, 'goes-down');
  assert.deepEqual(byName.get('sessions')?.pods, [{ pod: 'rec-2', effect: 'goes-down' }]);
  assert.match(byName.get('sessions')?.why ?? '', /no replication/);
  assert.equal(byName.get('carts')?.prediction, 'goes-down');
  assert.match(byName.get('carts')?.why ?? '', /both on node 2/);
  const check = availabilityCheck(snapshot);
  assert.equal(check?.status, 'warn');
  assert.match(check?.message ?? '', /pay\/sessions/);
  assert.match(check?.message ?? '', /pay\/carts/);
  assert.match(check?.fix ?? '', /--max-unavailable/);
  const table = renderAvailabilityPrediction(predictAvailability(snapshot), paintOf(false)).join('\n');
  assert.match(table, /pay\/carts\s+yes\s+\?\s+goes down\s+rec-1/);
  assert.match(table, /pay\/sessions\s+no\s+\?\s+goes down\s+rec-2/);
});

test('without the shard list: replication false still predicts the outage, the rest is unknown', () => {
  const snapshot = withDatabases([], [{ uid: 2, name: 'sessions', replication: false }]);
  snapshot.api.shards = { read: false, why: 'GET /v1/shards failed: 403' };
  const prediction = predictAvailability(snapshot);
  assert.equal(prediction.predicted, false);
  const byName = new Map(prediction.databases.map((db) => [db.name, db]));
  assert.equal(byName.get('sessions')?.prediction, 'goes-down');
  assert.equal(byName.get('db1')?.prediction, 'unknown');
  assert.match(byName.get('db1')?.why ?? '', /403/);
  assert.equal(availabilityCheck(snapshot)?.status, 'warn');
});

test('an unreachable management API: not predicted, and the check leaves it to api-reachable', () => {
  const snapshot = makeSnapshot((s) => {
    s.api = { reachable: false, error: 'refused', modules: [], bdbs: [], nodes: [] };
  });
  assert.equal(predictAvailability(snapshot).predicted, false);
  assert.equal(availabilityCheck(snapshot)?.status, 'pass');
});

test('the table shows at most 20 rows and counts the rest', () => {
  const bdbs = Array.from({ length: 30 }, (_, i) => ({ uid: i + 2, name: `db-${i}`, replication: true }));
  const shards = bdbs.flatMap((bdb) => [
    { bdbUid: bdb.uid, nodeUid: 1, role: 'master', slots: '0-16383' },
    { bdbUid: bdb.uid, nodeUid: 3, role: 'slave', slots: '0-16383' },
  ]);
  const lines = renderAvailabilityPrediction(
    predictAvailability(withDatabases(shards, bdbs)),
    paintOf(false),
  );
  assert.equal(lines.filter((line) => /^ {2}\S+\/\S+ .*fails over/.test(line)).length, 20);
  assert.match(lines.at(-1) ?? '', /and 11 more: 11 fails over/);
});
