import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import { hangGuardMs } from '../helpers/wait.js';
import {
  assertExit,
  assertUpgraded,
  readState,
  type RunEvent,
  startUpgradeSim,
  TARGET,
  writesTo,
} from './upgrade-support.js';

/**
 * The lock and SIGINT, on a simulated cluster whose rolling upgrade takes 4 s a pod: a second
 * run while one holds the lock exits 5 naming the owner; SIGINT during monitor exits 130 at
 * once with the step left in progress and the resume command; the next run completes. The
 * cluster's Lease deleted under a run (`kubectl delete lease`): the run says it lost the lock,
 * stops at its next state write with exit 5, and the next run resumes.
 * (Its own file so that it runs beside the SIGKILL tests, not after them.)
 */

const TAG = clusterTagFor(TARGET) ?? '';
const RUN = ['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json'];
const stepStart = (step: string) => (e: RunEvent) => e.type === 'step-start' && e.step === step;

describe('ctl upgrade run: lock and SIGINT (e2e)', () => {
  it('a second run exits 5 naming the lock owner; SIGINT in monitor exits 130 with the state saved; the next run completes', async () => {
    // 4 s a pod: the first run is still following the rollout when the second has given up,
    // however slow the machine is.
    const sim = await startUpgradeSim('happy-path', {
      timing: { operatorStart: 0.3, podRestart: 4, databaseUpgrade: 0.2 },
    });
    try {
      const first = sim.spawnCtl(RUN);
      await first.waitFor('the start of monitor', stepStart('monitor'));
      const second = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes']);
      assertExit(second, 5, 'the concurrent run');
      assert.match(
        second.stderr,
        new RegExp(`another upgrade of this cluster is running: pid ${first.child.pid} `),
      );
      assert.match(second.stderr, /ctl (--kubeconfig \S+ )?upgrade unlock --lock-id /);
      // Its owner runs on this machine: the plain unlock (no --force) works once it is gone, and
      // names the state file it unlocks.
      assert.match(
        second.stderr,
        /hint: Wait for it to finish\. If that process is gone for good, run: ctl (--kubeconfig \S+ )?upgrade unlock --lock-id [0-9a-f-]{36} --state \S+\n/,
      );
      assert.ok(second.stderr.includes(` --state ${sim.statePath}\n`), second.stderr);

      assert.ok(
        !first.events.some((e) => e.step === 'monitor' && e.type !== 'step-start' && e.type !== 'progress'),
        `the first run is no longer in monitor:\n${first.stdout}`,
      );
      const signalled = Date.now();
      first.child.kill('SIGINT');
      const result = await first.result;
      const took = Date.now() - signalled;
      assertExit(result, 130, 'the interrupted run');
      // A hang guard: that SIGINT cut the monitor's wait short is the state below (monitor still
      // in progress: the rollout takes 12 s); reliability/signals.test.ts prints the exit times.
      const guard = hangGuardMs(10_000);
      assert.ok(took < guard, `the interrupted run exited ${took} ms after SIGINT (guard ${guard} ms)`);
      assert.match(result.stderr, /resume with: ctl upgrade run --to 7\.8\.2-6 /);
      // What happened, exactly: the step that was stopped, and that the roll it was following
      // goes on in the cluster without ctl.
      assert.match(result.stderr, /error: interrupted by SIGINT during step monitor; the state was saved\n/);
      assert.match(
        result.stderr,
        /hint: The operator goes on rolling the cluster's pods to the new version without ctl: SIGINT stopped ctl following it, not the upgrade\.\n/,
      );
      const state = readState(sim);
      assert.equal(state.steps.monitor?.status, 'in-progress');
      assert.equal(state.steps.cluster?.status, 'done');
      assert.equal(state.result, 'interrupted');
      assert.match(state.resumeCommand ?? '', /^ctl upgrade run --to 7\.8\.2-6 /);
      assert.ok(!existsSync(`${sim.statePath}.lock`), 'the lock is released on SIGINT');

      const resumed = await sim.ctl(RUN);
      assertExit(resumed, 0, 'the resumed run');
      assert.match(resumed.stderr, /resuming the upgrade to 7\.8\.2-6 at step monitor/);
      await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
      assert.equal(writesTo(sim, '/redisenterpriseclusters/rec').length, 1);
    } finally {
      await sim.close();
    }
  });

  it("the cluster's Lease deleted under a run: said as the lock lost, not as failed renewals; exit 5 at the next state write; the next run resumes", async () => {
    const sim = await startUpgradeSim('happy-path', {
      timing: { operatorStart: 0.3, podRestart: 4, databaseUpgrade: 0.2 },
    });
    try {
      // Renewed every second: the deletion is found long before the 12 s roll ends.
      const first = sim.spawnCtl([...RUN, '--lease-duration', '3s']);
      await first.waitFor('the start of monitor', stepStart('monitor'));
      await sim.kubectl(['delete', 'lease', 'ctl-upgrade-lock-rec', '-n', 'redis']);
      const result = await first.result;
      assertExit(result, 5, 'the run whose Lease was deleted');
      const said = `${result.stdout}\n${result.stderr}`;
      assert.match(
        said,
        /this run lost the upgrade lock: its Lease redis\/ctl-upgrade-lock-rec was deleted while it held it \(ctl upgrade unlock --state-store configmap, or kubectl delete lease\)\. It renews it no more and stops at its next state write \(exit 5\); then check that no other run upgrades this cluster, and run the same command again to resume\./,
      );
      assert.doesNotMatch(said, /could not renew the Lease/);
      assert.match(
        result.stderr,
        /error: this run lost the cluster's upgrade lock: its Lease ctl-upgrade-lock-rec was deleted while it held it \(ctl upgrade unlock --state-store configmap, or kubectl delete lease\)\n/,
      );
      assert.match(
        result.stderr,
        /hint: This run stopped; its state in .* is as it last saved it\. Check that no other run upgrades this cluster \(/,
      );
      assert.equal(
        readState(sim).steps.monitor?.status,
        'in-progress',
        'the run wrote its state after it lost the lock',
      );
      await assert.rejects(
        sim.get(['lease', 'ctl-upgrade-lock-rec', '-n', 'redis']),
        'the run created its Lease again',
      );

      const resumed = await sim.ctl(RUN);
      assertExit(resumed, 0, 'the resumed run');
      assert.match(resumed.stderr, /resuming the upgrade to 7\.8\.2-6 at step monitor/);
      await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
    } finally {
      await sim.close();
    }
  });
});
