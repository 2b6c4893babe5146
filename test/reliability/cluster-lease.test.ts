/**
 * Issue 28, item 7 (docs/reliability.md guarantee 4): one upgrade of a cluster at a time,
 * whatever the store. The file store takes the cluster's Lease too, so a second run with another
 * `--state` file (another folder, another machine) stops with exit 5 naming the first; the first
 * completes, and afterwards the Lease is free for the next run.
 */

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
  checkUpgraded,
  figure,
  runOnBed,
  spawnOnBed,
  STACK_TRACE,
  startBed,
  until,
  UPGRADE,
} from './support.js';

/** Real waits, so the first run is still running when the second starts. */
const TIMING = { operatorStart: 0.5, podRestart: 0.5, databaseUpgrade: 0.3 };

describe('the file store takes the cluster Lease', () => {
  test('two runs with different --state files on one cluster: the second exits 5, the first completes', async () => {
    const bed = await startBed('happy-path', { timing: TIMING });
    try {
      const store = bed.cluster.kube.store;
      const leases = store.resolve('coordination.k8s.io/v1', 'Lease');
      const lease = (): unknown =>
        store
          .peekAll(leases, bed.cluster.scenario.namespace)
          .find((o) => o.metadata.name?.startsWith('ctl-upgrade-lock-'));
      const first = spawnOnBed(bed, UPGRADE, { timeoutMs: 180_000 }); // the default state file
      await until('the first run to take the cluster Lease', () => (lease() ? true : undefined), 60_000);
      const second = await runOnBed(bed, [
        ...UPGRADE,
        '-v',
        '--state',
        path.join(bed.dir, 'two', 'rec.json'),
      ]);
      assert.equal(second.code, 5, second.stderr);
      assert.match(second.stderr, /another upgrade of this cluster is running/);
      assert.match(second.stderr, /ctl upgrade unlock/);
      assert.doesNotMatch(second.stderr, STACK_TRACE);
      const done = await first.result;
      assert.equal(done.code, 0, done.stderr);
      assert.deepEqual(checkUpgraded(bed), []);
      // Released: a third run with yet another file is not locked out.
      const third = await runOnBed(bed, [...UPGRADE, '--state', path.join(bed.dir, 'three', 'rec.json')]);
      assert.notEqual(third.code, 5, third.stderr);
      figure('file store + cluster Lease: a second run with another --state exits 5; released after');
    } finally {
      await bed.close();
    }
  });
});
