/**
 * Issue 28, item 7 (docs/reliability.md guarantee 4): one upgrade of a cluster at a time,
 * whatever the store. The file store takes the cluster's Lease too, so a second run with another
 * `--state` file (another folder, another machine) stops with exit 5 naming the first; the first
 * completes, and afterwards the Lease is free for the next run. Where RBAC refuses leases (403) a
 * run goes on with its lock file alone, which still keeps out a run with the same file, and `-v`
 * says so. A run whose Lease another run takes over stops at its next state write (exit 5) and
 * changes nothing more.
 */

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
  type Bed,
  checkUpgraded,
  figure,
  runOnBed,
  spawnOnBed,
  STACK_TRACE,
  startBed,
  until,
  untilStepDone,
  UPGRADE,
} from './support.js';

/** Real waits, so the first run is still running when the second starts. */
const TIMING = { operatorStart: 0.5, podRestart: 0.5, databaseUpgrade: 0.3 };

/** The cluster's upgrade Lease (`ctl-upgrade-lock-<cluster>`) as the simulated API server holds it. */
function clusterLease(bed: Bed) {
  const store = bed.cluster.kube.store;
  return store
    .peekAll(store.resolve('coordination.k8s.io/v1', 'Lease'), bed.cluster.scenario.namespace)
    .find((o) => o.metadata.name?.startsWith('ctl-upgrade-lock-'));
}

// Each test has its own cluster, and most of its time is its simulated waits: side by side.
describe('the file store takes the cluster Lease', { concurrency: true }, () => {
  test('two runs with different --state files on one cluster: the second exits 5, the first completes', async () => {
    const bed = await startBed('happy-path', { timing: TIMING });
    try {
      const lease = () => clusterLease(bed);
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
      assert.match(second.stderr, /ctl (--kubeconfig \S+ )?upgrade unlock/);
      assert.doesNotMatch(second.stderr, STACK_TRACE);
      const done = await first.result;
      assert.equal(done.code, 0, done.stderr);
      assert.deepEqual(checkUpgraded(bed), []);
      // Released: the Lease is gone, and a third run with yet another file is not locked out
      // (on the upgraded cluster it finds nothing to do, so it no longer takes the Lease itself).
      assert.equal(lease(), undefined, 'the first run released the Lease');
      const third = await runOnBed(bed, [...UPGRADE, '--state', path.join(bed.dir, 'three', 'rec.json')]);
      assert.notEqual(third.code, 5, third.stderr);
      figure('file store + cluster Lease: a second run with another --state exits 5; released after');
    } finally {
      await bed.close();
    }
  });

  test('leases forbidden (403): the run goes on with its lock file, which still keeps out a run with the same file', async () => {
    const bed = await startBed('happy-path', {
      timing: TIMING,
      edit: (scenario) => ({
        ...scenario,
        faults: [...scenario.faults, { api: 'kube', match: '/apis/coordination.k8s.io/*', status: 403 }],
      }),
    });
    try {
      const first = spawnOnBed(bed, [...UPGRADE, '-v'], { timeoutMs: 180_000 });
      await until(
        'the first run to save its state',
        () => (existsSync(bed.statePath) ? true : undefined),
        60_000,
      );
      const second = await runOnBed(bed, UPGRADE);
      assert.equal(second.code, 5, second.stderr);
      assert.match(second.stderr, /upgrade run/);
      const done = await first.result;
      assert.equal(done.code, 0, done.stderr.slice(-1500));
      assert.match(
        done.stderr,
        /the cluster's Lease is forbidden here \(403\): only the lock file keeps other runs out/,
      );
      assert.deepEqual(checkUpgraded(bed), []);
      figure(
        'file store, leases forbidden (403): the run completes on its lock file; a second run with the same file exits 5',
      );
    } finally {
      await bed.close();
    }
  });

  test('a run whose Lease another run takes over stops at its next save (exit 5) and changes nothing more', async () => {
    const bed = await startBed('happy-path', { timing: { ...TIMING, podRestart: 2 } });
    try {
      const store = bed.cluster.kube.store;
      const leases = store.resolve('coordination.k8s.io/v1', 'Lease');
      const lease = () => clusterLease(bed);
      // A 3 s Lease is renewed every second, so the takeover is seen within about one second.
      const run = spawnOnBed(bed, [...UPGRADE, '--lease-duration', '3s'], { timeoutMs: 180_000 });
      await untilStepDone(bed.statePath, 'operator');
      const held = lease();
      assert.ok(held, 'the run holds the cluster Lease');
      // Another machine's run takes it over (as one does with a Lease it judged stale).
      const other = {
        id: 'other-run',
        pid: 4242,
        host: 'ci-runner-7',
        user: 'ci',
        operation: 'upgrade run',
        startedAt: new Date().toISOString(),
      };
      store.update(leases, {
        ...structuredClone(held),
        metadata: {
          ...structuredClone(held.metadata),
          annotations: { 'ctl/lock-owner': JSON.stringify(other) },
        },
        spec: { ...(held as { spec?: object }).spec, holderIdentity: 'other-run/4242/ci-runner-7' },
      } as never);
      const result = await run.result;
      figure(`file store, Lease taken over mid-run: exit ${result.code}`);
      assert.equal(result.code, 5, result.stderr.slice(-1500));
      assert.match(
        result.stderr,
        /lost the cluster's upgrade lock \(Lease ctl-upgrade-lock-rec\) to .*ci-runner-7/,
      );
      assert.match(
        result.stderr,
        /hint: Another run \(another --state, or another machine\) now upgrades this cluster/,
      );
      assert.doesNotMatch(result.stderr, STACK_TRACE);
      assert.equal(bed.changes.databaseVersion.size, 0, 'no database was upgraded after the takeover');
      assert.equal(
        (lease()?.spec as { holderIdentity?: string } | undefined)?.holderIdentity,
        'other-run/4242/ci-runner-7',
        "the other run's Lease is left alone",
      );
    } finally {
      await bed.close();
    }
  });

  test('ConfigMap store: a takeover seen first as a conflicting state write is exit 5 naming the new holder (issue 35)', async () => {
    const bed = await startBed('happy-path', { timing: { ...TIMING, podRestart: 2 } });
    try {
      const store = bed.cluster.kube.store;
      const namespace = bed.cluster.scenario.namespace;
      const leases = store.resolve('coordination.k8s.io/v1', 'Lease');
      const configMaps = store.resolve('v1', 'ConfigMap');
      const stateOf = () =>
        store.peekAll(configMaps, namespace).find((o) => o.metadata.name?.startsWith('ctl-upgrade-state-'));
      // A long Lease: its renewal will not notice the takeover before the run's next state write.
      const run = spawnOnBed(bed, [...UPGRADE, '--state-store', 'configmap', '--lease-duration', '120s'], {
        timeoutMs: 180_000,
      });
      await until(
        'the operator step recorded done in the state ConfigMap',
        () => {
          const text = (stateOf() as { data?: Record<string, string> } | undefined)?.data?.['state.json'];
          return text && /"operator":\s*\{\s*"status":\s*"done"/.test(text) ? true : undefined;
        },
        120_000,
      );
      const held = clusterLease(bed);
      assert.ok(held, 'the run holds the cluster Lease');
      const other = {
        id: 'other-run',
        pid: 4242,
        host: 'ci-runner-9',
        user: 'ci',
        operation: 'upgrade run',
        startedAt: new Date().toISOString(),
      };
      // Another machine's run takes the Lease and writes the state, as its first save does.
      store.update(leases, {
        ...structuredClone(held),
        metadata: {
          ...structuredClone(held.metadata),
          annotations: { 'ctl/lock-owner': JSON.stringify(other) },
        },
        spec: { ...(held as { spec?: object }).spec, holderIdentity: 'other-run/4242/ci-runner-9' },
      } as never);
      const state = stateOf()!;
      store.update(configMaps, {
        ...structuredClone(state),
        metadata: {
          ...structuredClone(state.metadata),
          annotations: { 'example.com/written-by': 'other-run' },
        },
      } as never);
      const result = await run.result;
      figure(`configmap store, Lease taken over mid-run: exit ${result.code}`);
      assert.equal(result.code, 5, result.stderr.slice(-1500));
      assert.match(
        result.stderr,
        /lost the cluster's upgrade lock \(Lease ctl-upgrade-lock-rec\) to .*ci-runner-9/,
      );
      assert.doesNotMatch(result.stderr, /changed by someone else/);
      assert.doesNotMatch(result.stderr, STACK_TRACE);
    } finally {
      await bed.close();
    }
  });
});
