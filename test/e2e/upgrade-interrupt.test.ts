import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import {
  assertExit,
  assertUpgraded,
  changes,
  describeEntries,
  readState,
  type RunEvent,
  TARGET,
  type UpgradeSim,
  writesTo,
  withUpgradeSim,
} from './upgrade-support.js';
import { rejsonRhel9Package } from '../helpers/module-package.js';

/**
 * `ctl upgrade run` killed (SIGKILL: no chance to save anything) in the middle of its steps, on
 * a simulated cluster that takes real (short) time to restart pods and upgrade databases, then
 * run again until it succeeds: the same end state as a clean run, and no write made twice
 * (versionTag, database versions, module upload). Lock and SIGINT: upgrade-lock.test.ts.
 */

const TAG = clusterTagFor(TARGET) ?? '';
const RUN = ['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json'];

/** Runs ctl, SIGKILLs it at the first event that passes `at`; false when it ended first. */
async function killAt(
  sim: UpgradeSim,
  args: string[],
  what: string,
  at: (event: RunEvent) => boolean,
): Promise<boolean> {
  const ctl = sim.spawnCtl(args);
  const reached = await ctl.waitFor(what, at).then(
    () => true,
    () => false,
  );
  if (reached) ctl.child.kill('SIGKILL');
  const result = await ctl.result;
  if (reached) assert.equal(result.signal, 'SIGKILL', `killed at ${what}`);
  else assertExit(result, 0, `the run that was to be killed at ${what}`);
  return reached;
}

/** Runs the same command again until it exits 0 (at most `max` times). */
async function runUntilDone(sim: UpgradeSim, args: string[], max = 3): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const result = await sim.ctl(args);
    if (result.code === 0) return;
    if (attempt >= max) assertExit(result, 0, `run ${attempt} after the interruptions`);
  }
}

const stepStart = (step: string) => (e: RunEvent) => e.type === 'step-start' && e.step === step;
const progressIn = (step: string, re: RegExp) => (e: RunEvent) =>
  e.type === 'progress' && e.step === step && re.test(e.message);

// Each test has its own cluster with real waits: side by side.
describe('ctl upgrade run, interrupted (e2e)', { concurrency: true }, () => {
  it('SIGKILL in operator, cluster, monitor and databases, then runs again: one write each, same end state', async () => {
    await withUpgradeSim(
      'happy-path',
      async (sim) => {
        const points: [string, (e: RunEvent) => boolean][] = [
          ['the start of operator', stepStart('operator')],
          ['the bundle apply of operator', progressIn('operator', /^applying \d+ objects/)],
          ['the start of cluster', stepStart('cluster')],
          ['the rollout in monitor', progressIn('monitor', /pods \d+\/3 upgraded/)],
          ['a database patch', progressIn('databases', /setting redisVersion to 7\.4/)],
        ];
        const killed: string[] = [];
        for (const [what, at] of points) {
          if (await killAt(sim, RUN, what, at)) killed.push(what);
        }
        // Every point but possibly the last ones is reached: the runs resume from where they stopped.
        assert.ok(killed.length >= 4, `killed at: ${killed.join(', ')}`);
        assert.ok(killed.includes('the rollout in monitor'), `killed at: ${killed.join(', ')}`);
        await runUntilDone(sim, RUN);

        await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
        assert.equal(readState(sim).result, 'succeeded');
        assert.ok(!existsSync(`${sim.statePath}.lock`), 'the lock is released');

        const made = changes(sim);
        const recPatches = writesTo(sim, '/redisenterpriseclusters/rec');
        assert.equal(recPatches.length, 1, `versionTag set once:\n${describeEntries(made)}`);
        for (const db of ['orders', 'sessions', 'cache']) {
          const patches = writesTo(sim, `/redisenterprisedatabases/${db}`);
          assert.equal(patches.length, 1, `${db} patched once:\n${describeEntries(made)}`);
        }
        // The REC spec changed once after its creation (generation 1): the versionTag.
        const rec = await sim.get(['rec', 'rec']);
        assert.equal(rec.metadata.generation, 2);
        // A final run has nothing left to do.
        const end = sim.cluster.audit.entries.length;
        assertExit(await sim.ctl(RUN), 0, 'the run after success');
        assert.deepEqual(changes(sim, end), []);
      },
      { timing: { operatorStart: 0.5, podRestart: 1, databaseUpgrade: 0.3 } },
    );
  });

  it('SIGKILL right after the module upload starts: the next run does not upload it again', async () => {
    await withUpgradeSim(
      'module-without-rhel9',
      async (sim) => {
        const moduleFile = rejsonRhel9Package(sim.sandbox.dir);
        const args = [
          ...RUN,
          '--ignore-check',
          'modules-compatible',
          '--remediate',
          '--module-file',
          moduleFile,
        ];
        const killed = await killAt(
          sim,
          args,
          'the module upload',
          progressIn('monitor', /uploading module/),
        );
        assert.ok(killed, 'ctl reached the upload');
        await runUntilDone(sim, args);
        // The killed upload may have reached the server half-sent (and failed there); the
        // module is installed exactly once, and never offered twice (400 module_exists).
        const uploads = sim.cluster.audit.filter('POST', '/v2/modules');
        assert.equal(uploads.filter((e) => e.status === 200).length, 1, describeEntries(uploads));
        assert.equal(uploads.filter((e) => e.status === 400).length, 0, describeEntries(uploads));
        const rejson = sim.cluster.rest.model.modules.find((m) => m.module_name === 'ReJSON');
        assert.ok(rejson && 'rhel9/x86_64' in rejson.platforms, 'the RHEL9 build of the version in use');
        await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
      },
      { timing: { operatorStart: 0.3, podRestart: 0.3, databaseUpgrade: 0.2 } },
    );
  });
});
