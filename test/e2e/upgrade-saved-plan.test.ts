import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import {
  assertExit,
  assertNoChanges,
  assertUpgraded,
  changes,
  describeEntries,
  getPath,
  startUpgradeSim,
  TARGET,
  type UpgradeSim,
} from './upgrade-support.js';

/**
 * `ctl upgrade plan --out` then `ctl upgrade run --plan`, the documented CI path: the run does
 * what the saved plan says (target, method, database selection, bundle, helm repository), not
 * what its own flags or environment would choose. Each run hides the environment variable the
 * plan's choice came from, so a run that re-derived it would go to the upstream default (which
 * this machine cannot reach) and fail.
 */

const TAG = clusterTagFor(TARGET) ?? '';

function planPath(sim: UpgradeSim): string {
  return path.join(sim.sandbox.dir, 'plan.json');
}

describe('ctl upgrade run --plan, bundle method (e2e)', () => {
  let sim: UpgradeSim;
  before(async () => {
    sim = await startUpgradeSim('happy-path');
  });
  after(async () => {
    await sim?.close();
  });

  it('runs the saved plan as saved: its bundle and its database selection, with no flag repeated', async () => {
    const bundle = sim.env.CTL_BUNDLE ?? '';
    assert.ok(bundle.length > 0, 'the simulator serves bundles');
    const plan = await sim.ctl([
      'upgrade',
      'plan',
      '--to',
      TARGET,
      '--bundle',
      bundle,
      '--databases',
      'orders',
      '--out',
      planPath(sim),
    ]);
    assertExit(plan, 0, 'plan --out');
    const saved = JSON.parse(readFileSync(planPath(sim), 'utf8')) as Record<string, unknown>;
    assert.equal(getPath(saved, ['target', 'selection', 'bundle']), bundle);

    const start = sim.cluster.audit.entries.length;
    const run = await sim.ctl(['upgrade', 'run', '--plan', planPath(sim), '--yes'], {
      env: { CTL_BUNDLE: '' },
    });
    assertExit(run, 0, 'run --plan');
    const rec = await sim.get(['rec', 'rec']);
    assert.equal(getPath(rec, ['spec', 'redisEnterpriseImageSpec', 'versionTag']), TAG);
    // --databases orders was planned: only that database changes.
    const dbWrites = changes(sim, start).filter((e) => /\/redisenterprisedatabases\//.test(e.path));
    assert.deepEqual(
      dbWrites.map((e) => e.path.split('?')[0]?.split('/').at(-1)),
      ['orders'],
      describeEntries(dbWrites),
    );
  });
});

describe('ctl upgrade run --plan, helm method (e2e)', () => {
  let sim: UpgradeSim;
  before(async () => {
    sim = await startUpgradeSim('helm-installed');
  });
  after(async () => {
    await sim?.close();
  });

  it('upgrades with the helm repository and release of the plan, not the defaults', async () => {
    const repo = sim.env.CTL_HELM_REPO ?? '';
    assert.ok(repo.length > 0, 'the simulator serves a chart repository');
    const plan = await sim.ctl([
      'upgrade',
      'plan',
      '--to',
      TARGET,
      '--method',
      'helm',
      '--helm-repo',
      repo,
      '--helm-release',
      'redis-enterprise',
      '--out',
      planPath(sim),
    ]);
    assertExit(plan, 0, 'plan --out');
    assert.match(plan.stdout, new RegExp(`--repo ${repo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));

    const run = await sim.ctl(['upgrade', 'run', '--plan', planPath(sim), '--yes', '-v'], {
      env: { CTL_HELM_REPO: '' },
    });
    assertExit(run, 0, 'run --plan');
    assert.doesNotMatch(run.stderr, /helm\.redis\.io/);
    await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
  });
});

describe('ctl upgrade run --plan refuses what it cannot run as planned (e2e)', () => {
  let sim: UpgradeSim;
  before(async () => {
    sim = await startUpgradeSim('happy-path');
  });
  after(async () => {
    await sim?.close();
  });

  it('a plan flag next to --plan is a usage error (2), before anything is read', async () => {
    const made = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '--out', planPath(sim)]);
    assertExit(made, 0, 'plan --out');
    const start = sim.cluster.audit.entries.length;
    const run = await sim.ctl(['upgrade', 'run', '--plan', planPath(sim), '--yes', '--databases', 'none']);
    assertExit(run, 2, 'run --plan --databases');
    assert.match(run.stderr, /--plan fixes the target and selection; --databases cannot be combined/);
    assertNoChanges(sim, start, 'a refused --plan');
  });

  it('a plan edited by hand into something else is refused with what is wrong (2)', async () => {
    const edited = path.join(sim.sandbox.dir, 'edited.json');
    const saved = JSON.parse(readFileSync(planPath(sim), 'utf8')) as { target: { method: string } };
    saved.target.method = 'kustomize';
    writeFileSync(edited, JSON.stringify(saved));
    const start = sim.cluster.audit.entries.length;
    const run = await sim.ctl(['upgrade', 'run', '--plan', edited, '--yes']);
    assertExit(run, 2, 'run --plan <edited>');
    assert.match(run.stderr, /is not a plan this ctl can run/);
    assert.match(run.stderr, /target\.method/);
    assertNoChanges(sim, start, 'an edited plan');
  });

  it('a stale plan exits 7 and changes nothing; the hint makes a new one', async () => {
    // The cluster resource changes after the plan was saved: a new generation of its spec.
    await sim.kubectl(['patch', 'rec', 'rec', '--type', 'merge', '-p', '{"spec":{"nodes":5}}']);
    const start = sim.cluster.audit.entries.length;
    const run = await sim.ctl(['upgrade', 'run', '--plan', planPath(sim), '--yes']);
    assertExit(run, 7, 'run --plan <stale>');
    assert.match(run.stderr, /the cluster changed since the plan/);
    // The new plan keeps the stale one's selection: its bundle (from CTL_BUNDLE when it was made).
    assert.match(run.stderr, new RegExp(`ctl upgrade plan --to ${TARGET} --bundle \\S+ --out`));
    assertNoChanges(sim, start, 'a stale plan');
  });
});
