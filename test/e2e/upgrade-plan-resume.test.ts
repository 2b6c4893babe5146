import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import type { CtlResult } from '../helpers/run-ctl.js';
import {
  assertExit,
  assertNoChanges,
  changes,
  getPath,
  parseEvents,
  readState,
  type RunEvent,
  startUpgradeSim,
  TARGET,
  type UpgradeSim,
  writesTo,
} from './upgrade-support.js';

/**
 * `ctl upgrade run --plan <file>` interrupted once it has changed the cluster, then resumed the
 * way a person does: with the `resume with:` command it printed. The resumed run keeps what the
 * first one was started with: the saved plan's selection (one database of three) and the run's
 * own step selection (--skip admission); the plan is not "stale" because of the run's own changes
 * (src/commands/run-saved-plan.ts). A resume with --to alone, which would drop the plan's
 * selection, is refused with that command.
 */

const TAG = clusterTagFor(TARGET) ?? '';
const stepStart = (step: string) => (e: RunEvent) => e.type === 'step-start' && e.step === step;

/** The words of a command ctl printed (src/io/shell-words.ts shellQuote: bare words or '...'). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)) {
    words.push(match[1] !== undefined ? match[1].replace(/'\\''/g, "'") : (match[2] ?? ''));
  }
  return words;
}

/** The state as a document, or undefined between the write and the rename of an atomic replace. */
function readStateIfWhole(sim: UpgradeSim): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(sim.statePath, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The databases the run wrote since `from`, each once. */
function databasesWritten(sim: UpgradeSim, from: number): string[] {
  const writes = changes(sim, from).filter((e) => /\/redisenterprisedatabases\//.test(e.path));
  return [...new Set(writes.map((e) => e.path.split('?')[0]?.split('/').at(-1) ?? ''))];
}

/**
 * A plan that selects one database of three, run with --skip admission and interrupted (SIGINT)
 * in the monitor step, after the operator and cluster steps changed the cluster it was made
 * from. Returns the resume command it printed and where the cluster's audit stood before it.
 */
async function interruptedPlanRun(sim: UpgradeSim): Promise<{ printed: string; start: number }> {
  const planFile = path.join(sim.sandbox.dir, 'plan.json');
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
  const state = readState(sim);
  assert.equal(state.steps.monitor?.status, 'in-progress');
  assert.equal(state.resumeCommand, printed, 'status shows the same resume command');
  assert.ok(
    !first.events.some((e) => e.step === 'admission' && e.type === 'step-start'),
    'admission not run',
  );
  return { printed, start };
}

/** The printed command, run as a person pastes it. */
async function runPrinted(sim: UpgradeSim, printed: string): Promise<CtlResult> {
  const words = shellWords(printed);
  assert.equal(words[0], 'ctl', printed);
  return sim.ctl(words.slice(1));
}

/** The resumed run did what the first one was started to do, and each write happened once. */
async function assertKeptSelection(sim: UpgradeSim, start: number, resumed: CtlResult): Promise<void> {
  assert.match(resumed.stderr, /resuming the upgrade to 7\.8\.2-6 at step monitor/);
  // The saved plan's selection held: only orders was upgraded, the others left at 7.2.
  assert.deepEqual(databasesWritten(sim, start), ['orders']);
  for (const [name, version] of [
    ['orders', '7.4'],
    ['sessions', '7.2'],
    ['cache', '7.2'],
  ] as const) {
    const redb = await sim.get(['redb', name, '-n', 'redis']);
    assert.equal(getPath(redb, ['status', 'version']), version, `${name} status.version`);
  }
  // The run's own step selection held: admission was not run by either run.
  assert.ok(
    !parseEvents(resumed.stdout).some((e) => e.step === 'admission' && e.type === 'step-start'),
    `admission was run:\n${resumed.stdout}`,
  );
  const state = readState(sim);
  assert.equal(state.result, 'succeeded');
  assert.equal(state.steps.admission?.status, 'pending', JSON.stringify(state.steps.admission));
  assert.equal(state.steps.databases?.status, 'done');
  // The plan's target, each write made once.
  const rec = await sim.get(['rec', 'rec', '-n', 'redis']);
  assert.equal(getPath(rec, ['spec', 'redisEnterpriseImageSpec', 'versionTag']), TAG);
  assert.equal(writesTo(sim, '/redisenterpriseclusters/rec').length, 1);
}

// 2 s a pod: the monitor step lasts 6 s (3 pods) from the start event the test reads on ctl's
// stdout, so the SIGINT sent on reading it lands in the step, whatever the machine's speed.
const TIMING = { operatorStart: 0.3, podRestart: 2, databaseUpgrade: 0.2 };

// Each test has its own simulator, sandbox and state: they run side by side, as most of their
// time is the simulated pods' restarts.
describe('ctl upgrade run --plan, interrupted and resumed (e2e)', { concurrency: true }, () => {
  it('the printed resume command keeps the saved selection and the skipped step; --to alone is refused, changing nothing', async () => {
    const sim = await startUpgradeSim('happy-path', { timing: TIMING });
    try {
      const { printed, start } = await interruptedPlanRun(sim);

      // --to alone would upgrade every database: refused before any change, with the command.
      const before = sim.cluster.audit.entries.length;
      const other = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes']);
      assertExit(other, 2, 'a resume with --to alone');
      assert.match(
        other.stderr,
        /was started from the saved plan .*plan\.json; this run would change its selection: databases orders in the plan, all now/,
      );
      assert.ok(other.stderr.includes(`Resume it as it was started: ${printed}`), other.stderr);
      assertNoChanges(sim, before, 'a refused resume');

      const resumed = await runPrinted(sim, printed);
      assertExit(resumed, 0, `the resumed run (${printed})`);
      assert.match(
        resumed.stderr,
        /the cluster changed since the plan in .* was made, by the run that plan started: resuming it/,
      );
      await assertKeptSelection(sim, start, resumed);
    } finally {
      await sim.close();
    }
  });

  it('a saved two-hop plan killed between the hops: the command status shows finishes hop 2 with the selection', async () => {
    const sim = await startUpgradeSim('old-operator', {
      timing: { operatorStart: 0.5, podRestart: 1, databaseUpgrade: 0.3 },
    });
    try {
      const planFile = path.join(sim.sandbox.dir, 'plan.json');
      const plan = await sim.ctl([
        'upgrade',
        'plan',
        '--to',
        TARGET,
        '--databases',
        'orders',
        '--out',
        planFile,
      ]);
      assertExit(plan, 0, 'plan --out');
      const first = sim.spawnCtl(['upgrade', 'run', '--plan', planFile, '--yes', '-o', 'json']);
      // SIGKILL once the state records hop 1 complete: nothing is printed, status tells.
      const deadline = Date.now() + 90_000;
      for (;;) {
        const hops = (readStateIfWhole(sim)?.hops ?? []) as { finishedAt?: string }[];
        if (hops[0]?.finishedAt) break;
        if (Date.now() > deadline)
          assert.fail('timed out waiting for the state file to record hop 1 complete');
        if (first.child.exitCode !== null)
          assert.fail(`ctl ended before hop 1 was recorded:\n${first.stderr}`);
        await sleep(10);
      }
      first.child.kill('SIGKILL');
      assert.equal((await first.result).signal, 'SIGKILL', 'killed between the hops');

      const status = await sim.ctl(['upgrade', 'status']);
      assertExit(status, 0, 'status');
      const printed = /resume with: (.+)$/m.exec(status.stdout)?.[1];
      assert.ok(printed, `status shows the resume command:\n${status.stdout}`);
      const resumed = await runPrinted(sim, printed);
      assertExit(resumed, 0, `the resumed run (${printed})`);
      assert.match(resumed.stderr, /resuming the upgrade to 7\.8\.2-6 at hop 2\/2/);
      assert.doesNotMatch(resumed.stderr, /starting hop 1\/2/, 'hop 1 is not run again');
      // Both hops kept the plan's selection: cache was never written, and is still at 7.2.
      assert.deepEqual(databasesWritten(sim, 0), ['orders']);
      const cache = await sim.get(['redb', 'cache', '-n', sim.cluster.scenario.namespace]);
      assert.equal(getPath(cache, ['status', 'version']), '7.2', 'cache status.version');
      const orders = await sim.get(['redb', 'orders', '-n', sim.cluster.scenario.namespace]);
      assert.equal(getPath(orders, ['status', 'version']), '7.4', 'orders status.version');
      const deployment = await sim.get([
        'deployment',
        'redis-enterprise-operator',
        '-n',
        sim.cluster.scenario.namespace,
      ]);
      const images = (
        getPath(deployment, ['spec', 'template', 'spec', 'containers']) as { image: string }[]
      ).map((c) => c.image);
      assert.ok(
        images.every((image) => image.endsWith(`:${TARGET}`)),
        images.join(', '),
      );
      assert.equal(readState(sim).result, 'succeeded');
    } finally {
      await sim.close();
    }
  });

  it('a state whose recorded plan is a device (/dev/zero): refused at once (exit 2), nothing read or changed', async () => {
    // The plan's path comes from the state file, which may have been handed over or edited: it
    // was read whole, so /dev/zero never ended (src/io/paths.ts readInputFile).
    const sim = await startUpgradeSim('happy-path', { timing: TIMING });
    try {
      await interruptedPlanRun(sim);
      const doc = JSON.parse(readFileSync(sim.statePath, 'utf8')) as { savedPlan: { file: string } };
      doc.savedPlan.file = '/dev/zero';
      writeFileSync(sim.statePath, `${JSON.stringify(doc, null, 2)}\n`);
      const before = sim.cluster.audit.entries.length;
      const started = Date.now();
      const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--dry-run'], { timeoutMs: 60_000 });
      assertExit(run, 2, 'a dry run whose state names /dev/zero as its plan');
      assert.match(
        run.stderr,
        /started from the saved plan \/dev\/zero, which cannot be read \(the plan \/dev\/zero is a character device, not a regular file\)/,
      );
      assert.ok(Date.now() - started < 30_000, `refused after ${Date.now() - started} ms`);
      assertNoChanges(sim, before, 'a refused dry run');
    } finally {
      await sim.close();
    }
  });

  it('a state file of an earlier ctl (no savedPlan) resumes the same way; --to alone is warned', async () => {
    const sim = await startUpgradeSim('happy-path', { timing: TIMING });
    try {
      const { printed, start } = await interruptedPlanRun(sim);
      const doc = JSON.parse(readFileSync(sim.statePath, 'utf8')) as Record<string, unknown>;
      assert.ok(doc.savedPlan, 'this ctl records the saved plan');
      delete doc.savedPlan;
      writeFileSync(sim.statePath, `${JSON.stringify(doc, null, 2)}\n`);

      // --to alone cannot be judged against a plan the state does not record: it goes on, warning.
      const before = sim.cluster.audit.entries.length;
      const rehearsal = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--dry-run']);
      assertExit(rehearsal, 0, 'a dry run with --to');
      assert.match(rehearsal.stderr, /started with --plan by an earlier ctl, which did not record the plan/);
      assertNoChanges(sim, before, 'a dry run');

      const resumed = await runPrinted(sim, printed);
      assertExit(resumed, 0, `the resumed run (${printed})`);
      await assertKeptSelection(sim, start, resumed);
    } finally {
      await sim.close();
    }
  });
});
