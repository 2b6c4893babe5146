/**
 * Active-Active databases across participating clusters (issue 26): the built ctl against a
 * simulated cluster whose REAADB has a participant elsewhere (`remoteClusters:`, a management
 * API of its own). The REAADB is raised only when every participant runs an RS that bundles
 * the target database version; otherwise the run upgrades the rest, leaves it, names the
 * participant and exits 0. Scenarios are written here, not taken from scenarios/.
 */

import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import { assertExit, assertUpgraded, getPath, readState, withUpgradeSim } from './upgrade-support.js';

// A release with the fix of advisory reaadb-empty-password (an affected target is refused on a
// cluster that holds an REAADB), past 8.0.2-2, the first operator that upgrades Active-Active
// databases through the REAADB; its RS bundles 8.6, the default it raises databases to.
const TARGET = '8.0.20-27';
const TAG = clusterTagFor(TARGET) ?? '';

function scenarioYaml(name: string, remote: string): string {
  return [
    `name: ${name}`,
    `description: "An REAADB with a participant on another cluster (${name})"`,
    'dialect: redis',
    'operator: { version: 7.22.2-40 }',
    'cluster: { versionTag: 7.22.2-133, apiVersion: 7.22.2-133 }',
    'remoteClusters:',
    `  - ${remote}`,
    'databases:',
    '  - { name: cache, version: "7.4" }',
    '  - { name: geo, version: "7.4", activeActive: true, participants: [rerc-east] }',
    '',
  ].join('\n');
}

describe('Active-Active databases across participating clusters', { timeout: 600_000 }, () => {
  let dir: string;
  const file = (name: string, remote: string): string => {
    const at = path.join(dir, `${name}.yaml`);
    writeFileSync(at, scenarioYaml(name, remote));
    return at;
  };
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-aa-scenarios-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a participant on an older RS holds the REAADB back: the rest is upgraded, exit 0, the participant named', async () => {
    const scenario = file('aa-older-participant', '{ name: rerc-east, rsVersion: 7.22.2-179 }');
    await withUpgradeSim(scenario, async (sim) => {
      // The plan shows the decision before anything runs.
      const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json']);
      assertExit(plan, 0, 'plan');
      const planned = JSON.parse(plan.stdout) as {
        steps: { id: string; actions: { command: string; database?: Record<string, unknown> }[] }[];
      };
      const actions = planned.steps.find((s) => s.id === 'databases')?.actions ?? [];
      const geo = actions.find((a) => a.database?.name === 'geo');
      assert.match(String(geo?.database?.heldBack), /participant rerc-east runs Redis Software 7\.22\.2-179/);
      assert.match(
        geo?.command ?? '',
        /^ctl --kubeconfig \S+ --context ctl-sim-aa-older-participant upgrade run -n redis --cluster rec --to 8\.0\.20-27 --databases redis\/geo$/,
      );

      const report = path.join(sim.sandbox.dir, 'report.json');
      // A state of its own, named relative: every later run printed names it, absolute, so that
      // pasted anywhere it goes on with this record.
      const state = path.join(sim.sandbox.dir, 'aa-state.json');
      const run = await sim.ctl([
        'upgrade',
        'run',
        '--to',
        TARGET,
        '--yes',
        '-vv',
        '--report',
        report,
        '--state',
        'aa-state.json',
      ]);
      assertExit(run, 0, 'run');
      assert.match(
        run.stderr,
        /geo held back, not raised to 8\.6: participant rerc-east runs Redis Software 7\.22\.2-179/,
      );
      assert.match(
        run.stderr,
        /run: ctl --kubeconfig \S+ --context ctl-sim-aa-older-participant upgrade run .*--databases redis\/geo/,
      );
      assert.doesNotMatch(run.stderr, /featureset-version/);
      // The work left is the run's last line, not only a warning above the summary (issue 38).
      assert.match(
        run.stdout,
        /result: succeeded\nNext: ctl --kubeconfig \S+ --context ctl-sim-aa-older-participant upgrade run .*--databases redis\/geo --state \S+ {2}\(Active-Active database redis\/geo held back: participant rerc-east runs Redis Software 7\.22\.2-179[^\n]*\)\n$/,
      );
      // The Next line and the verification's line for geo both carry the run's --state.
      assert.ok(run.stdout.includes(`--databases redis/geo --state ${state}  (Active-Active`), run.stdout);
      // ... and are one command: the verification's names the context too, though the run was
      // given none (the kubeconfig's current context may be another cluster by the time the
      // participants are ready), where it named only the kubeconfig.
      const next = /\nNext: (.*) {2}\(Active-Active/.exec(run.stdout)?.[1];
      const mismatch = /mismatch: database redis\/geo: [^\n]*upgrade it with (ctl [^\n]*)\n/.exec(
        run.stdout,
      )?.[1];
      assert.match(
        mismatch ?? '',
        /^ctl --kubeconfig \S+ --context ctl-sim-aa-older-participant upgrade run /,
      );
      assert.ok(mismatch?.endsWith(`--databases redis/geo --state ${state}`), run.stdout);
      assert.equal(mismatch, next, run.stdout);
      // The remote's password (from its RERC Secret) is never printed, even under -vv.
      const remote = sim.cluster.remoteClusters.endpoints[0];
      assert.ok(remote && !run.stderr.includes(remote.password), 'no remote password in the output');

      await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '8.6' });
      const aa = await sim.get(['reaadb', 'geo']);
      assert.equal(getPath(aa, ['spec', 'globalConfigurations', 'redisVersion']), '7.4', 'REAADB untouched');

      const written = JSON.parse(readFileSync(report, 'utf8')) as {
        heldBack?: { database: string; reason: string }[];
      };
      assert.equal(written.heldBack?.[0]?.database, 'redis/geo');
      assert.match(written.heldBack?.[0]?.reason ?? '', /rerc-east/);

      const status = await sim.ctl(['upgrade', 'status', '--state', state]);
      assertExit(status, 0, 'status');
      assert.match(status.stdout, /held back \(Active-Active\):\n {2}redis\/geo: participant rerc-east runs/);
      // Its command, naming the kubeconfig and context, is shown as ctl wrote it, with the state.
      assert.ok(status.stdout.includes(`--databases redis/geo --state ${state}\n`), status.stdout);
      assert.match(
        status.stdout,
        /later: ctl --kubeconfig \S+ --context ctl-sim-aa-older-participant upgrade run .*--databases redis\/geo --state /,
      );
    });
  });

  it('a record in the cluster chosen by CTL_STATE_STORE: the Next line and status name --state-store configmap', async () => {
    const scenario = file('aa-configmap-record', '{ name: rerc-east, rsVersion: 7.22.2-179 }');
    await withUpgradeSim(scenario, async (sim) => {
      // The store from the environment only: a shell the line is pasted into may not have it.
      const env = { CTL_STATE_STORE: 'configmap' };
      const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes'], { env });
      assertExit(run, 0, 'run');
      assert.match(
        run.stdout,
        /\nNext: ctl --kubeconfig \S+ --context ctl-sim-aa-configmap-record upgrade run .*--databases redis\/geo --state-store configmap {2}\(Active-Active database redis\/geo held back/,
      );
      // status names the record by the same rule (next-command.ts recordStateWords).
      const status = await sim.ctl(['upgrade', 'status'], { env });
      assertExit(status, 0, 'status');
      assert.match(
        status.stdout,
        /later: ctl --kubeconfig \S+ --context ctl-sim-aa-configmap-record upgrade run .*--databases redis\/geo --state-store configmap\n/,
      );
      // Given as the flag, the same words.
      const plain = await sim.ctl(['upgrade', 'status', '--state-store', 'configmap']);
      assertExit(plain, 0, 'status --state-store configmap');
      assert.match(plain.stdout, /--databases redis\/geo --state-store configmap\n/);
    });
  });

  it('every participant current: the REAADB is raised and the feature set updated once', async () => {
    const scenario = file('aa-current-participant', '{ name: rerc-east, rsVersion: 8.0.20-108 }');
    await withUpgradeSim(scenario, async (sim) => {
      const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes']);
      assertExit(run, 0, 'run');
      const aa = await sim.get(['reaadb', 'geo']);
      assert.equal(getPath(aa, ['spec', 'globalConfigurations', 'redisVersion']), '8.6');
      assert.doesNotMatch(run.stderr, /held back/);
      // The remote participant was asked, through its own API.
      assert.ok(
        sim.cluster.audit.entries.some((e) => e.api === 'rest' && e.path === '/v1/nodes' && e.status === 200),
      );
      const featureSet =
        run.stderr.match(/crdb-cli crdb update --crdb-guid \S+ --featureset-version yes/g) ?? [];
      assert.equal(featureSet.length, 1, run.stderr);
      // ...and, as the one thing left to do, the run's Next line (issue 38).
      assert.match(
        run.stdout,
        /result: succeeded\nNext: kubectl --kubeconfig \S+ exec -it \S+ -n redis -- crdb-cli crdb (list|update --crdb-guid \S+ --featureset-version yes) {2}\(the feature set of Active-Active database redis\/geo, [^\n]*\)\n( {2}then: kubectl --kubeconfig \S+ exec -it \S+ -n redis -- crdb-cli crdb update --crdb-guid \S+ --featureset-version yes\n)?$/,
      );
      const intent = readState(sim).steps.databases?.intent as
        { featureSet?: { database: string }[] } | undefined;
      assert.deepEqual(
        intent?.featureSet?.map((f) => f.database),
        ['redis/geo'],
      );
      await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '8.6' });

      // The plan saved here, run elsewhere through another path to the same kubeconfig (a CI
      // job on another machine): the work left, recorded by the first run, is printed for the
      // kubeconfig of this run, not the one the plan or the first run named.
      const original = sim.env.KUBECONFIG ?? '';
      const plan = path.join(sim.sandbox.dir, 'at-target.json');
      assertExit(await sim.ctl(['upgrade', 'plan', '--to', TARGET, '--out', plan]), 0, 'plan --out');
      const elsewhere = path.join(sim.sandbox.dir, 'elsewhere', 'kubeconfig');
      mkdirSync(path.dirname(elsewhere));
      copyFileSync(original, elsewhere);
      const again = await sim.ctl(['upgrade', 'run', '--plan', plan, '--kubeconfig', elsewhere, '--yes'], {
        env: { KUBECONFIG: '' },
      });
      assertExit(again, 0, 'run --plan through another path');
      const said = again.stdout + again.stderr;
      assert.match(said, /already at 8\.0\.20-27/);
      assert.match(
        said,
        new RegExp(
          `Next: kubectl --kubeconfig ${elsewhere.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} exec -it \\S+ -n redis -- crdb-cli crdb`,
        ),
      );
      assert.ok(!said.includes(original), said);
    });
  });

  it('an unreachable participant holds the REAADB back, within a bounded time', async () => {
    const scenario = file(
      'aa-unreachable-participant',
      '{ name: rerc-east, rsVersion: 8.0.2-17, reachable: false }',
    );
    await withUpgradeSim(scenario, async (sim) => {
      const started = Date.now();
      const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes'], { timeoutMs: 120_000 });
      const seconds = (Date.now() - started) / 1000;
      assertExit(run, 0, 'run');
      assert.match(
        run.stderr,
        /participant rerc-east is unreachable: its management API \(https:\/\/localhost:\d+\) gave no answer within 10 s/,
      );
      // One deadline of 10 s for the participant, the rest of the run at simulated speed.
      assert.ok(seconds < 100, `the run took ${seconds} s`);
      const aa = await sim.get(['reaadb', 'geo']);
      assert.equal(getPath(aa, ['spec', 'globalConfigurations', 'redisVersion']), '7.4', 'REAADB untouched');
      await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '8.6' });
    });
  });
});
