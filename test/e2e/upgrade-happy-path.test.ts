// @peculiar/x509 (behind src/sim/tls.ts) needs a Reflect metadata polyfill loaded before it.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
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

  it('a second run finds everything done, exits 0 and changes nothing', async () => {
    assert.ok(firstRunEnd > 0, 'the first run ran');
    const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes']);
    assertExit(result, 0);
    assertNoChanges(sim, firstRunEnd, 'the second run');
    await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
    assert.equal(readState(sim).result, 'succeeded');
  });
});
