/**
 * Guarantee 2 (docs/reliability.md): an unreliable network does not stop an upgrade. The
 * flaky-api scenario plus more: 20% connection resets and 20% 503s on the management API, slow
 * answers from both APIs, Kubernetes watches cut every 2 s, 410 Gone on watches, a 409 on the
 * cluster patch. The run completes (a step whose retries run out fails with exit 1 and the next
 * run resumes). A fault that outlasts the retries fails the step with exit 1 and a resumable
 * state: never a wrong "done".
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Scenario } from '../helpers/simulator.js';
import { changes, describeEntries } from '../e2e/upgrade-support.js';
import {
  checkSideEffects,
  checkUpgraded,
  figure,
  pick,
  readState,
  runOnBed,
  STACK_TRACE,
  startBed,
  UPGRADE,
} from './support.js';

const REC_PATCH = 'PATCH /apis/app.redislabs.com/*/namespaces/*/redisenterpriseclusters/*';
const REDB_PATCH = 'PATCH /apis/app.redislabs.com/*/namespaces/*/redisenterprisedatabases/*';

/** Short real waits, so the monitor and database steps watch a rollout in progress. */
const TIMING = { operatorStart: 0.3, podRestart: 0.4, databaseUpgrade: 0.2 };

function matrix(seed: number): (scenario: Scenario) => Scenario {
  return (scenario) => ({
    ...scenario,
    faults: [
      { api: 'rest', match: '*', rate: 0.2, kind: 'reset', seed },
      { api: 'rest', match: '*', rate: 0.2, status: 503, seed: seed + 1 },
      { api: 'rest', match: 'GET *', rate: 0.1, kind: 'delay', delayMs: 400, seed: seed + 2 },
      { api: 'kube', match: 'watch', dropAfterSeconds: 2 },
      { api: 'kube', match: 'watch', status: 410, times: 2 },
      { api: 'kube', match: REC_PATCH, status: 409, times: 1 },
      { api: 'kube', match: '*', rate: 0.1, kind: 'delay', delayMs: 300, seed: seed + 3 },
    ],
  });
}

const MATRIX_RUNS = pick(2, 12);

// Each test has its own clusters, and most of its time is retries and simulated waits: side by side.
describe('faults: the fault matrix on flaky-api', { concurrency: true }, () => {
  test(`${MATRIX_RUNS} upgrades under resets, 503s, slow answers, dropped watches, 410 and 409 complete`, async () => {
    const failures: string[] = [];
    let runs = 0;
    let retriedRuns = 0;
    let faultsFired = 0;
    for (let trial = 1; trial <= MATRIX_RUNS; trial += 1) {
      const bed = await startBed('flaky-api', { timing: TIMING, edit: matrix(100 + trial) });
      try {
        let finished = false;
        for (let attempt = 1; attempt <= 4 && !finished; attempt += 1) {
          runs += 1;
          const auditBefore = bed.cluster.audit.entries.length;
          const result = await runOnBed(bed, UPGRADE);
          if (STACK_TRACE.test(result.stderr))
            failures.push(`trial ${trial}: a stack trace\n${result.stderr}`);
          if (result.code === 0) {
            finished = true;
            break;
          }
          retriedRuns += 1;
          // Retries ran out: a clear failure that resumes, never a silent success.
          if (result.code !== 1) {
            failures.push(
              `trial ${trial} run ${attempt}: exit ${result.code}\n${result.stderr.slice(-1500)}`,
            );
            break;
          }
          if (/resume with: ctl upgrade run/.test(result.stderr)) {
            assert.equal(readState(bed.statePath).result, 'failed');
            continue;
          }
          // Retries ran out before any change (reading the cluster for the plan, or in
          // preflight): nothing to resume, the error says what failed and what to do, and this run
          // changed nothing. Which request meets four faults in a row depends on the order of
          // ctl's parallel reads, so any trial may end here once.
          assert.match(result.stderr, /^error: /m);
          assert.match(result.stderr, /^hint: /m);
          const changed = changes(bed, auditBefore);
          if (changed.length > 0)
            failures.push(
              `trial ${trial} run ${attempt}: exit 1 without "resume with", after changing:\n${describeEntries(changed)}\n${result.stderr.slice(-1500)}`,
            );
        }
        if (!finished) failures.push(`trial ${trial}: did not finish`);
        failures.push(...checkUpgraded(bed).map((p) => `trial ${trial}: ${p}`));
        faultsFired +=
          bed.cluster.rest.faults.firedCounts.reduce((a, b) => a + b, 0) +
          bed.cluster.kube.faults.firedCounts.reduce((a, b) => a + b, 0);
        const conflicts = bed.cluster.audit
          .filter('PATCH', '/apis/app.redislabs.com/*')
          .filter((e) => e.status === 409);
        if (conflicts.length !== 1)
          failures.push(`trial ${trial}: ${conflicts.length} 409 answers, expected 1`);
      } finally {
        await bed.close();
      }
    }
    figure(
      `fault matrix upgrades ${MATRIX_RUNS}, ctl runs ${runs} (${retriedRuns} stopped with exit 1 and resumed), injected faults ${faultsFired}, failures ${failures.length}`,
    );
    assert.deepEqual(failures, []);
  });

  test('a fault that outlasts the retries fails its step with exit 1 and a resumable state', async () => {
    // Six 409s on the cluster patch: one more than ctl's conflict retries.
    const bed = await startBed('happy-path', {
      edit: (s) => ({ ...s, faults: [{ api: 'kube', match: REC_PATCH, status: 409, times: 6 }] }),
    });
    try {
      const failed = await runOnBed(bed, UPGRADE);
      assert.equal(failed.code, 1, failed.stderr);
      assert.doesNotMatch(failed.stderr, STACK_TRACE);
      assert.match(failed.stderr, /cannot patch rec\/rec/);
      assert.match(failed.stderr, /resume with: ctl upgrade run --to 7\.8\.2-6/);
      const state = readState(bed.statePath);
      assert.equal(state.result, 'failed');
      assert.equal(state.steps.operator?.status, 'done');
      assert.equal(state.steps.cluster?.status, 'failed');
      assert.equal(state.steps.cluster?.error?.exitCode, 1);
      assert.equal(state.steps.monitor?.status, 'pending');
      assert.equal(state.steps.databases?.status, 'pending');
      // Never a wrong "done": the cluster did not change, the databases were not touched.
      assert.equal(bed.changes.versionTag, 0);
      assert.equal(bed.changes.databaseVersion.size, 0);

      const resumed = await runOnBed(bed, UPGRADE);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.match(resumed.stderr, /resuming the upgrade to 7\.8\.2-6 at step cluster/);
      assert.deepEqual(checkUpgraded(bed), []);
    } finally {
      await bed.close();
    }
  });

  test('503s on a database patch: retried, and once they outlast the retries the databases step fails and resumes', async () => {
    const bed = await startBed('happy-path', {
      edit: (s) => ({ ...s, faults: [{ api: 'kube', match: REDB_PATCH, status: 503, times: 8 }] }),
    });
    try {
      const failed = await runOnBed(bed, UPGRADE);
      assert.equal(failed.code, 1, failed.stderr);
      assert.doesNotMatch(failed.stderr, STACK_TRACE);
      const state = readState(bed.statePath);
      assert.equal(state.steps.cluster?.status, 'done');
      assert.equal(state.steps.databases?.status, 'failed');
      assert.equal(state.result, 'failed');
      // Five attempts failed in the first run; the three 503s left are retried away in the second.
      const resumed = await runOnBed(bed, UPGRADE);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.match(resumed.stderr, /resuming the upgrade to 7\.8\.2-6 at step databases/);
      assert.deepEqual(checkUpgraded(bed), []);
      assert.deepEqual(checkSideEffects(bed), []);
    } finally {
      await bed.close();
    }
  });
});
