import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import {
  assertExit,
  assertNoChanges,
  assertUpgraded,
  changes,
  SharedUpgradeSim,
  TARGET,
  type UpgradeSim,
  withUpgradeSim,
} from './upgrade-support.js';

/**
 * Knowing where to go: `ctl upgrade plan` without --to lists the reachable targets, and --to a
 * release one supported upgrade cannot reach plans and runs the hops (old-operator: operator
 * 7.2.4-12, below the 7.4.2-2 that 7.8.2-6 needs, goes through the newest 7.4.6, 7.4.6-12).
 */

/** The newest 7.4.6: it has the fix of advisory reaadb-empty-password (src/release/advisories.ts). */
const HOP = '7.4.6-12';

interface TargetsDoc {
  kind: string;
  recommended: string | null;
  current: { operator: string | null };
  targets: {
    operator: string;
    recommended: boolean;
    oneHop: boolean;
    hops: { operator: string }[];
    blocked: boolean;
    blocking: { id: string }[];
  }[];
}

interface HopState {
  result: string;
  hop?: number;
  hops?: { operator: string; finishedAt?: string }[];
  steps: Record<string, { status: string }>;
}

function readHopState(sim: UpgradeSim): HopState | undefined {
  if (!existsSync(sim.statePath)) return undefined;
  try {
    return JSON.parse(readFileSync(sim.statePath, 'utf8')) as HopState;
  } catch {
    return undefined; // read between the write and the rename of an atomic replace
  }
}

/** One cluster per scenario for the tests that only plan (or are refused before any change). */
const readOnly = {
  'happy-path': new SharedUpgradeSim('happy-path'),
  'old-operator': new SharedUpgradeSim('old-operator'),
  openshift: new SharedUpgradeSim('openshift'),
};
after(() => Promise.all(Object.values(readOnly).map((shared) => shared.close())));

describe('ctl upgrade plan without --to: the reachable targets (e2e)', () => {
  for (const scenario of ['happy-path', 'old-operator', 'openshift'] as const) {
    it(`${scenario}: one line per release line, the recommended first; JSON the same; exit 0`, async () => {
      await readOnly[scenario].use('listing the targets', async (sim) => {
        const json = await sim.ctl(['upgrade', 'plan', '-o', 'json']);
        assertExit(json, 0, 'plan -o json');
        const doc = JSON.parse(json.stdout) as TargetsDoc;
        assert.equal(doc.kind, 'UpgradeTargets');
        assert.equal(doc.current.operator, sim.cluster.scenario.operator.version);
        assert.ok(doc.targets.length >= 3, `targets: ${doc.targets.map((t) => t.operator).join(', ')}`);
        const lines = doc.targets.map((t) => t.operator.split('.').slice(0, 2).join('.'));
        assert.equal(new Set(lines).size, lines.length, 'one target per release line');
        assert.ok(doc.recommended, 'a target is recommended');
        assert.equal(doc.targets[0]?.operator, doc.recommended, 'the recommended target first');
        assert.equal(doc.targets[0]?.recommended, true);
        assert.equal(doc.targets[0]?.blocked, false, 'the recommended target is not blocked');
        assert.equal(doc.targets.filter((t) => t.recommended).length, 1);
        for (const target of doc.targets) {
          assert.equal(target.hops.at(-1)?.operator, target.operator, `${target.operator}: the last hop`);
          assert.equal(target.oneHop, target.hops.length === 1);
          assert.equal(target.blocked, target.blocking.length > 0);
        }
        const to782 = doc.targets.find((t) => t.operator.startsWith('7.8.'));
        assert.ok(to782, 'a 7.8 target');
        if (scenario === 'old-operator') {
          // Below 7.4.2-2: every RHEL9 target (7.8.2-6 on) goes through a 7.4 release first.
          assert.deepEqual(
            to782.hops.map((h) => h.operator),
            [HOP, to782.operator],
          );
          assert.ok(doc.targets.some((t) => t.oneHop && t.operator.startsWith('7.4.')));
        } else {
          assert.ok(
            doc.targets.every((t) => t.oneHop),
            'every target in one hop',
          );
        }

        const text = await sim.ctl(['upgrade', 'plan']);
        assertExit(text, 0, 'plan');
        assert.match(text.stdout, /Upgrade targets for rec/);
        assert.match(text.stdout, new RegExp(`\\* ${doc.recommended!.replaceAll('.', '\\.')} `));
        assert.match(text.stdout, /recommended/);
        if (scenario === 'old-operator') assert.match(text.stdout, new RegExp(`2 hops: ${HOP} -> 7\\.8\\.`));
        // Every row's cells start under their column's heading: OpenShift's cluster tags
        // (7.4.6-293.rhel8-openshift) are wider than the column was, and pushed PATH right.
        const rows = text.stdout.split('\n');
        const header = rows.find((line) => /^ +TARGET +LINE +CLUSTER +PATH$/.test(line)) ?? '';
        assert.ok(header, text.stdout);
        const starts = ['LINE', 'CLUSTER', 'PATH'].map((heading) => header.indexOf(heading));
        for (const target of doc.targets) {
          const row = rows.find((line) =>
            line.startsWith(`  ${target.recommended ? '*' : ' '} ${target.operator} `),
          );
          assert.ok(row, `the row of ${target.operator}:\n${text.stdout}`);
          for (const start of starts)
            assert.match(
              row.slice(start - 2, start + 1),
              /^ {2}\S$/,
              `a column of ${target.operator}:\n${header}\n${row}`,
            );
        }
        // The command to run next on a line of its own: an 80-column terminal never breaks it.
        assert.match(
          text.stdout,
          new RegExp(
            `\\(the newest no check blocks and no known advisory affects\\)\\.\\nNext: ctl .*upgrade plan --to ${doc.recommended!.replaceAll('.', '\\.')}`,
          ),
        );
        assertNoChanges(sim, 0, 'listing the targets');
      });
    });
  }

  it('reads the cluster once: no more requests than planning one target', async () => {
    await readOnly['happy-path'].use('plans', async (sim) => {
      const before = sim.cluster.audit.entries.length;
      assertExit(await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json']), 0, 'plan --to');
      const single = sim.cluster.audit.entries.length - before;
      const start = sim.cluster.audit.entries.length;
      assertExit(await sim.ctl(['upgrade', 'plan', '-o', 'json']), 0, 'plan');
      const listing = sim.cluster.audit.entries.length - start;
      assert.ok(listing <= single, `listing made ${listing} requests, one plan ${single}`);
    });
  });

  it('run without --to is refused and points to ctl upgrade plan', async () => {
    await readOnly['happy-path'].use('a run without --to', async (sim) => {
      const result = await sim.ctl(['upgrade', 'run', '--yes']);
      assertExit(result, 2, 'run without --to');
      assert.match(result.stderr, /--to is required/);
      assert.match(result.stderr, /ctl upgrade plan.*lists the targets/);
    });
  });
});

// The plans read the shared old-operator cluster; the two runs each have their own, with real
// waits: the three side by side.
describe('ctl upgrade: two hops from old-operator to 7.8.2-6 (e2e)', { concurrency: true }, () => {
  it('plan shows both hops (JSON hops only then); --max-hops 1 refuses with the reason, plan and run', async () => {
    await readOnly['old-operator'].use('plans and a refused run', async (sim) => {
      const json = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json']);
      assertExit(json, 0, 'plan');
      const plan = JSON.parse(json.stdout) as {
        target: { operator: string };
        blocked: boolean;
        hops?: {
          hop: number;
          reason: string | null;
          target: { operator: string };
          steps: unknown[];
          checks: { id: string; message: string; fix: string }[];
        }[];
      };
      assert.equal(plan.target.operator, TARGET);
      assert.equal(plan.blocked, false);
      assert.deepEqual(
        plan.hops?.map((h) => [h.hop, h.target.operator]),
        [
          [1, HOP],
          [2, TARGET],
        ],
      );
      assert.match(plan.hops?.[0]?.reason ?? '', /^operator-min-version: /);
      assert.equal(plan.hops?.[1]?.reason, null);
      assert.equal(plan.hops?.[1]?.steps.length, 7);
      // Hop 1's release is a stop on the way to --to: its release-rules proposes no other target
      // (it proposed the --to itself), while a plan to that release as the target does.
      const stop = plan.hops?.[0]?.checks.find((c) => c.id === 'release-rules');
      assert.ok(stop, "hop 1's release-rules check");
      assert.doesNotMatch(`${stop.message} ${stop.fix}`, /the target 7\.4\.6-12 runs|Prefer a target/);
      const direct = await sim.ctl(['upgrade', 'plan', '--to', HOP, '-o', 'json']);
      assertExit(direct, 0, `plan --to ${HOP}`);
      const own = (JSON.parse(direct.stdout) as { checks: { id: string; fix: string }[] }).checks.find(
        (c) => c.id === 'release-rules',
      );
      assert.match(own?.fix ?? '', /Prefer a target on a supported line/);
      // Kubernetes 1.32 is newer than 7.4.6-12's table: the stop proposes no newer operator
      // release (the run goes to one) but names the final target's verdict; its own plan does.
      const platform = plan.hops?.[0]?.checks.find((c) => c.id === 'platform-supported');
      assert.ok(platform, "hop 1's platform-supported check");
      assert.doesNotMatch(platform.fix, /A newer operator release may support/);
      assert.match(
        platform.message,
        new RegExp(
          `a stop on the way to ${TARGET.replaceAll('.', '\\.')}: ${TARGET.replaceAll('.', '\\.')}, the final target,`,
        ),
      );
      const ownPlatform = (
        JSON.parse(direct.stdout) as { checks: { id: string; fix: string }[] }
      ).checks.find((c) => c.id === 'platform-supported');
      assert.match(ownPlatform?.fix ?? '', /A newer operator release may support Kubernetes 1\.32/);
      const text = await sim.ctl(['upgrade', 'plan', '--to', TARGET]);
      assertExit(text, 0, 'plan (text)');
      assert.match(text.stdout, new RegExp(`Hop 1: operator 7\\.2\\.4-12 -> ${HOP}`));
      assert.match(text.stdout, new RegExp(`Hop 2: operator ${HOP} -> ${TARGET}`));

      const refused = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '--max-hops', '1', '-o', 'json']);
      assertExit(refused, 3, 'plan --max-hops 1');
      const single = JSON.parse(refused.stdout) as {
        hops?: unknown;
        checks: { id: string; status: string; message: string; fix: string }[];
      };
      assert.equal(single.hops, undefined, 'a refused path is the single-target plan');
      const check = single.checks.find((c) => c.id === 'operator-min-version');
      assert.equal(check?.status, 'fail');
      assert.match(check?.message ?? '', /needs 2 hops \(7\.4\.6-12, then 7\.8\.2-6\) and --max-hops is 1/);
      assert.match(check?.fix ?? '', /Pass --max-hops 2/);

      const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--max-hops', '1', '--yes']);
      assertExit(run, 3, 'run --max-hops 1');
      assert.match(run.stderr, /--max-hops is 1/);
      assertNoChanges(sim, 0, 'plans and a refused run');
    });
  });

  it('runs both hops, SIGKILLed once hop 1 is recorded complete; the same command finishes hop 2 only', async () => {
    await withUpgradeSim(
      'old-operator',
      async (sim) => {
        const args = ['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json'];
        const first = sim.spawnCtl(args);
        const deadline = Date.now() + 90_000;
        let state = readHopState(sim);
        while (!state?.hops?.[0]?.finishedAt) {
          if (Date.now() > deadline)
            assert.fail('timed out waiting for the state file to record hop 1 complete');
          if (first.child.exitCode !== null)
            assert.fail(`ctl ended before hop 1 was recorded:\n${first.stderr}`);
          await sleep(10);
          state = readHopState(sim);
        }
        first.child.kill('SIGKILL');
        const killed = await first.result;
        assert.equal(killed.signal, 'SIGKILL', `killed between the hops:\n${killed.stderr}`);
        const atKill = readHopState(sim);
        assert.equal(atKill?.hop, 1, 'the state is at hop 2');
        assert.deepEqual(
          atKill?.hops?.map((h) => h.operator),
          [HOP, TARGET],
        );
        const hop1Finished = atKill?.hops?.[0]?.finishedAt;
        const recPath = `/redisenterpriseclusters/${sim.cluster.scenario.cluster.name}`;
        const fromKill = sim.cluster.audit.entries.length;

        const resumed = await sim.ctl(args);
        assertExit(resumed, 0, 'the resumed run');
        assert.match(resumed.stderr, /resuming the upgrade to 7\.8\.2-6 at hop 2\/2/);
        assert.doesNotMatch(resumed.stderr, /starting hop 1\/2/, 'hop 1 is not run again');
        // Hop 2 patches the cluster once (to 7.8.2-60); hop 1's patch is not made again.
        const recPatches = changes(sim, fromKill).filter(
          (e) => e.method === 'PATCH' && e.path.endsWith(recPath),
        );
        assert.ok(recPatches.length <= 1, `REC patches after the kill: ${recPatches.length}`);
        const done = readHopState(sim);
        assert.equal(done?.result, 'succeeded');
        assert.equal(done?.hops?.[0]?.finishedAt, hop1Finished, 'hop 1 is kept as it was');
        await assertUpgraded(sim, { operator: TARGET, tag: clusterTagFor(TARGET) ?? '', dbVersion: '7.4' });

        const status = await sim.ctl(['upgrade', 'status', '-o', 'json']);
        assertExit(status, 0, 'status');
        const doc = JSON.parse(status.stdout) as {
          hop: { current: number; count: number; operator: string };
        };
        assert.deepEqual(
          { current: doc.hop.current, count: doc.hop.count, operator: doc.hop.operator },
          { current: 2, count: 2, operator: TARGET },
        );
        const text = await sim.ctl(['upgrade', 'status']);
        assertExit(text, 0, 'status (text)');
        assert.match(text.stdout, new RegExp(`hop +2 of 2: ${HOP} \\(done\\) -> ${TARGET} \\(current\\)`));
      },
      { timing: { operatorStart: 0.5, podRestart: 1, databaseUpgrade: 0.3 } },
    );
  });

  it('run --plan runs a saved two-hop plan as saved: both hops, to the target', async () => {
    await withUpgradeSim(
      'old-operator',
      async (sim) => {
        const planFile = join(sim.sandbox.dir, 'plan.json');
        assertExit(await sim.ctl(['upgrade', 'plan', '--to', TARGET, '--out', planFile]), 0, 'plan --out');
        const saved = JSON.parse(readFileSync(planFile, 'utf8')) as {
          hops?: { target: { operator: string } }[];
        };
        assert.deepEqual(
          saved.hops?.map((h) => h.target.operator),
          [HOP, TARGET],
          'the saved plan holds both hops',
        );
        const refused = await sim.ctl(['upgrade', 'run', '--plan', planFile, '--max-hops', '2', '--yes']);
        assertExit(refused, 2, 'run --plan with --max-hops');
        const reportFile = join(sim.sandbox.dir, 'report.json');
        const run = await sim.ctl(['upgrade', 'run', '--plan', planFile, '--yes', '--report', reportFile]);
        assertExit(run, 0, 'run --plan');
        assert.match(run.stderr, /hop 2\/2/, 'the second hop ran');
        // The report holds both hops' steps; `steps` are the last hop's.
        const report = JSON.parse(readFileSync(reportFile, 'utf8')) as {
          steps: { id: string; result: string }[];
          hops?: { hop: number; operator: string; result: string; steps: { id: string; result: string }[] }[];
        };
        assert.deepEqual(
          report.hops?.map((h) => [h.hop, h.operator, h.result, h.steps.length]),
          [
            [1, HOP, 'succeeded', 7],
            [2, TARGET, 'succeeded', 7],
          ],
        );
        assert.equal(report.hops?.[0]?.steps.find((step) => step.id === 'cluster')?.result, 'done');
        assert.deepEqual(report.steps, report.hops?.[1]?.steps);
        assert.equal(readHopState(sim)?.result, 'succeeded');
        await assertUpgraded(sim, { operator: TARGET, tag: clusterTagFor(TARGET) ?? '', dbVersion: '7.4' });
      },
      { timing: { operatorStart: 0.5, podRestart: 1, databaseUpgrade: 0.3 } },
    );
  });
});
