// @peculiar/x509 (behind src/sim/tls.ts) needs a Reflect metadata polyfill loaded before it.
import 'reflect-metadata';
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
 * once with the step left in progress and the resume command; the next run completes.
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
        /hint: The operator goes on rolling the cluster's pods to the new version without ctl: Ctrl-C stopped ctl following it, not the upgrade\.\n/,
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
});
