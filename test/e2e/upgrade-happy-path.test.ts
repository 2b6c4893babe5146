import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import { repoRoot, runCtl } from '../helpers/run-ctl.js';
import {
  assertExit,
  assertNoChanges,
  assertUpgraded,
  changes,
  describeEntries,
  parseEvents,
  readState,
  startUpgradeSim,
  STEP_IDS,
  TARGET,
  type UpgradeSim,
} from './upgrade-support.js';

/**
 * `ctl upgrade plan|run` end to end on the happy path: the BUILT binary against the simulated
 * cluster, the end state read with the real kubectl, every request read from the audit log.
 * The tests run in order on one cluster: dry run, the run itself, then a second run.
 */

const TAG = clusterTagFor(TARGET) ?? '';

describe('ctl upgrade on happy-path (e2e)', () => {
  let sim: UpgradeSim;
  before(async () => {
    sim = await startUpgradeSim('happy-path');
  });
  after(async () => {
    await sim?.close();
  });

  it('plan exits 0, changes nothing and names the target versions', async () => {
    const before = sim.cluster.audit.entries.length;
    const result = await sim.ctl(['upgrade', 'plan', '--to', TARGET]);
    assertExit(result, 0);
    assert.match(result.stdout, new RegExp(`7\\.4\\.6-2 +-> ${TARGET} \\(bundle\\)`));
    assert.match(result.stdout, new RegExp(`-> ${TAG}`));
    assertNoChanges(sim, before, 'ctl upgrade plan');
  });

  it('--dry-run exits 0, prints each change and sends no mutating request', async () => {
    const before = sim.cluster.audit.entries.length;
    const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--dry-run']);
    assertExit(result, 0);
    assert.match(result.stderr, /would patch rec\/rec -n redis: .*"versionTag":"7\.8\.2-60"/);
    assert.match(result.stderr, /would patch redb\/orders -n redis: .*"redisVersion":"7\.4"/);
    assertNoChanges(sim, before, '--dry-run');
    const rec = await sim.get(['rec', 'rec']);
    assert.equal((rec.spec?.redisEnterpriseImageSpec as { versionTag?: string }).versionTag, '7.4.6-22');
  });

  let firstRunEnd = 0;
  it('run -o json upgrades everything and prints only NDJSON events, ending with done', async () => {
    const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json']);
    assertExit(result, 0);
    firstRunEnd = sim.cluster.audit.entries.length;
    const events = parseEvents(result.stdout);
    const last = events.at(-1);
    assert.equal(last?.type, 'done');
    assert.equal(last?.data?.result, 'succeeded');
    assert.equal(events.filter((e) => e.type === 'done').length, 1);
    assert.deepEqual(
      events.filter((e) => e.type === 'step-start').map((e) => e.step),
      STEP_IDS,
      'every step starts, in order',
    );
    for (const id of STEP_IDS) {
      assert.ok(
        events.some((e) => (e.type === 'step-done' || e.type === 'step-skip') && e.step === id),
        `step ${id} ends`,
      );
    }
    await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });

    const state = readState(sim);
    assert.equal(state.result, 'succeeded');
    for (const id of STEP_IDS) assert.match(state.steps[id]?.status ?? '', /^(done|skipped)$/, id);
    // The state file never holds the password.
    assert.ok(!JSON.stringify(state).includes(sim.env.CTL_PASSWORD ?? '\u0000'));
    assert.ok(!result.stdout.includes(sim.env.CTL_PASSWORD ?? '\u0000'));
    assert.ok(!result.stderr.includes(sim.env.CTL_PASSWORD ?? '\u0000'));

    // Exactly the documented writes: one versionTag patch, one patch per database.
    const made = changes(sim);
    const recPatches = made.filter((e) => /\/redisenterpriseclusters\/rec$/.test(e.path.split('?')[0] ?? ''));
    assert.equal(recPatches.length, 1, describeEntries(made));
    for (const db of ['orders', 'sessions', 'cache']) {
      const patches = made.filter((e) =>
        (e.path.split('?')[0] ?? '').endsWith(`/redisenterprisedatabases/${db}`),
      );
      assert.equal(patches.length, 1, `${db}:\n${describeEntries(made)}`);
    }
  });

  it('the same run again sees the cluster at the target: one line, exit 0, no question, no step, state untouched', async () => {
    assert.ok(firstRunEnd > 0, 'the first run ran');
    const stateBefore = readFileSync(sim.statePath, 'utf8');
    // At a terminal, without --yes: no question is asked (the prompt would read "X -> X?").
    const again = await runCtl(['upgrade', 'run', '--to', TARGET], {
      env: sim.env,
      cwd: sim.sandbox.dir,
      stdin: '',
      preload: path.join(repoRoot, 'dist', 'test', 'e2e', 'stdin-terminal-preload.js'),
    });
    assertExit(again, 0, 'the same run again');
    assert.equal(
      again.stdout,
      `redis/rec is already at ${TARGET} (cluster ${TAG}): nothing to do
Next: ctl --kubeconfig ${sim.env.KUBECONFIG} upgrade status --state ${sim.statePath}  (the run that got it there)
`,
    );
    assert.doesNotMatch(again.stderr, /\[y\/N\]|not confirmed|\[(preflight|operator|cluster|databases)\]/);

    const json = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json']);
    assertExit(json, 0, 'the same run again, -o json');
    const events = parseEvents(json.stdout);
    assert.deepEqual(
      events.map((e) => e.type),
      ['done'],
    );
    assert.equal(events[0]?.data?.result, 'succeeded');
    assert.equal(events[0]?.data?.alreadyAtTarget, true);
    assert.deepEqual(events[0]?.data?.steps, []);
    assert.equal(events[0]?.data?.next, undefined, 'nothing left to do');
    const availability = events[0]?.data?.availability as { measured: boolean }[] | undefined;
    assert.equal(availability?.length, 3);
    assert.ok(availability?.every((entry) => !entry.measured));

    assertNoChanges(sim, firstRunEnd, 'the same run again');
    assert.equal(
      readFileSync(sim.statePath, 'utf8'),
      stateBefore,
      "the finished run's state is left as it is",
    );
    await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
  });

  it("the finished run's state does not block a run to a newer target", async () => {
    const newer = '7.8.6-20';
    const result = await sim.ctl(['upgrade', 'run', '--to', newer, '--yes', '-o', 'json']);
    assertExit(result, 0, `run --to ${newer}`);
    const events = parseEvents(result.stdout);
    assert.ok(
      events.some((e) => e.type === 'step-start' && e.step === 'operator'),
      'the steps ran',
    );
    assert.equal(events.at(-1)?.data?.result, 'succeeded');
    assert.equal((readState(sim) as unknown as { target: { operator: string } }).target.operator, newer);
  });
});
