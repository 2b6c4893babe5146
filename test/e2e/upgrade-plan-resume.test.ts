// @peculiar/x509 (behind src/sim/tls.ts) needs a Reflect metadata polyfill loaded before it.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import {
  assertExit,
  changes,
  describeEntries,
  getPath,
  readState,
  type RunEvent,
  startUpgradeSim,
  TARGET,
  writesTo,
} from './upgrade-support.js';

/**
 * `ctl upgrade run --plan <file>` interrupted once it has changed the cluster, then resumed the
 * way a person does: with the `resume with:` command it printed. The resumed run keeps what the
 * first one was started with: the saved plan's selection (one database of three) and the run's
 * own step selection (--skip admission); the plan is not "stale" because of the run's own changes.
 */

const TAG = clusterTagFor(TARGET) ?? '';
const stepStart = (step: string) => (e: RunEvent) => e.type === 'step-start' && e.step === step;

/** The words of a command ctl printed (src/exec/helm.ts quoteForShell: bare words or '...'). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)) {
    words.push(match[1] !== undefined ? match[1].replace(/'\\''/g, "'") : (match[2] ?? ''));
  }
  return words;
}

describe('ctl upgrade run --plan, interrupted and resumed (e2e)', () => {
  it('the printed resume command keeps the saved selection and the skipped step', async () => {
    // 4 s a pod: SIGINT lands in the monitor step, after the operator and cluster steps changed
    // the cluster the plan was made from.
    const sim = await startUpgradeSim('happy-path', {
      timing: { operatorStart: 0.3, podRestart: 4, databaseUpgrade: 0.2 },
    });
    try {
      const planFile = path.join(sim.sandbox.dir, 'plan.json');
      // Not the default selection: one database of three.
      const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '--databases', 'orders', '--out', planFile]);
      assertExit(plan, 0, 'plan --out');

      const start = sim.cluster.audit.entries.length;
      const first = sim.spawnCtl([
        'upgrade',
        'run',
        '--plan',
        planFile,
        '--skip',
        'admission',
        '--yes',
        '-o',
        'json',
      ]);
      await first.waitFor('the start of monitor', stepStart('monitor'));
      first.child.kill('SIGINT');
      const interrupted = await first.result;
      assertExit(interrupted, 130, 'the interrupted run --plan');
      const printed = /resume with: (.+)$/m.exec(interrupted.stderr)?.[1];
      assert.ok(printed, `a resume command is printed:\n${interrupted.stderr}`);
      assert.equal(readState(sim).steps.monitor?.status, 'in-progress');
      assert.equal(readState(sim).resumeCommand, printed, 'status shows the same resume command');

      const words = shellWords(printed);
      assert.equal(words[0], 'ctl', printed);
      const resumed = await sim.ctl(words.slice(1));
      assertExit(resumed, 0, `the resumed run (${printed})`);
      assert.match(resumed.stderr, /resuming the upgrade to 7\.8\.2-6 at step monitor/);

      // The saved plan's selection held: only orders was upgraded, the others left at 7.2.
      const dbWrites = changes(sim, start).filter((e) => /\/redisenterprisedatabases\//.test(e.path));
      assert.deepEqual(
        [...new Set(dbWrites.map((e) => e.path.split('?')[0]?.split('/').at(-1)))],
        ['orders'],
        describeEntries(dbWrites),
      );
      for (const [name, version] of [
        ['orders', '7.4'],
        ['sessions', '7.2'],
        ['cache', '7.2'],
      ] as const) {
        const redb = await sim.get(['redb', name, '-n', 'redis']);
        assert.equal(getPath(redb, ['status', 'version']), version, `${name} status.version`);
      }
      // The run's own step selection held: admission skipped in both runs, never run.
      const state = readState(sim);
      assert.equal(state.result, 'succeeded');
      assert.equal(state.steps.admission?.status, 'skipped', JSON.stringify(state.steps.admission));
      assert.equal(state.steps.databases?.status, 'done');
      // The same target, and each write made once.
      const rec = await sim.get(['rec', 'rec', '-n', 'redis']);
      assert.equal(getPath(rec, ['spec', 'redisEnterpriseImageSpec', 'versionTag']), TAG);
      assert.equal(writesTo(sim, '/redisenterpriseclusters/rec').length, 1);
    } finally {
      await sim.close();
    }
  });
});
