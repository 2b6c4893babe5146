import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { shellQuote } from '../../src/io/shell-words.js';
import { assertExit, assertNoChanges, readState, TARGET, withUpgradeSim } from './upgrade-support.js';

/**
 * Issue 36, item 5: a dry run says so on every line. What the steps announce is worded as what
 * would be done ("would set ..."), marked "(server dry run)" under --dry-run=server; the summary
 * says "would change", never "done"; the monitor says nothing about pods no one asked to roll;
 * and a run that changed nothing (a preflight that stopped) ends with the plan's Next line.
 */

/** A step's progress line that announces a change as being made. */
const ANNOUNCED_AS_MADE =
  /\] (?:[^:\n]*: )?(setting|applying|re-applying|deleting|approving|uploading|binding|unbinding|switching|helm upgrade)\b/;

function summaryRows(stdout: string): string[] {
  const lines = stdout.split('\n');
  const start = lines.findIndex((line) => line.startsWith('STEP '));
  assert.ok(start >= 0, `a summary table:\n${stdout}`);
  return lines.slice(start + 1).filter((line) => /^[a-z-]+ {2,}/.test(line));
}

describe('a dry run says so on every line (e2e)', () => {
  it('--dry-run: "would ..." lines, a "would change" summary, no claim about pods', async () => {
    await withUpgradeSim('happy-path', async (sim) => {
      const before = sim.cluster.audit.entries.length;
      const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--dry-run']);
      assertExit(result, 0, '--dry-run');
      assert.doesNotMatch(result.stderr, ANNOUNCED_AS_MADE);
      assert.match(
        result.stderr,
        /\[cluster\] would set redisEnterpriseImageSpec\.versionTag of rec\/rec -n redis from 7\.4\.6-22 to 7\.8\.2-60$/m,
      );
      assert.match(
        result.stderr,
        /\[databases\] redis\/orders: would set redisVersion to 7\.4 \(runs 7\.2\)$/m,
      );
      assert.match(result.stderr, /\[operator\] would apply \d+ objects of /);
      assert.doesNotMatch(result.stderr, /\(server dry run\)/);
      assert.doesNotMatch(result.stderr, /not on the target image|pods \d+\/\d+ upgraded/);
      assert.match(result.stderr, /\[monitor\] dry run: would follow .* no pod was asked to roll\)/);
      assert.doesNotMatch(result.stderr, /: done$/m);
      const rows = summaryRows(result.stdout);
      assert.ok(
        rows.some((row) => /^cluster +would change /.test(row)),
        rows.join('\n'),
      );
      assert.deepEqual(
        rows.filter((row) => /\bdone\b/.test(row)),
        [],
        'no step is "done" in a dry run',
      );
      assert.match(result.stdout, /^result: dry run, nothing changed$/m);
      assertNoChanges(sim, before, '--dry-run');
    });
  });

  it('--dry-run=server: every change line says "(server dry run)"', async () => {
    await withUpgradeSim('happy-path', async (sim) => {
      const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--dry-run=server']);
      assertExit(result, 0, '--dry-run=server');
      assert.doesNotMatch(result.stderr, ANNOUNCED_AS_MADE);
      assert.match(
        result.stderr,
        /\[databases\] redis\/orders: would set redisVersion to 7\.4 \(runs 7\.2\) \(server dry run\)$/m,
      );
      const changeLines = result.stderr
        .split('\n')
        .filter((line) => /(^|\] )(would|[a-z/-]+: would) /.test(line));
      assert.ok(changeLines.length > 5, result.stderr);
      const unmarked = changeLines.filter(
        (line) => !line.endsWith('(server dry run)') && !/would follow the rolling upgrade/.test(line),
      );
      // The local backup file is written by no server; nothing else goes unmarked.
      assert.deepEqual(
        unmarked.filter((line) => !/^would save rec\//.test(line)),
        [],
        'every change line is marked',
      );
      assert.ok(summaryRows(result.stdout).every((row) => !/\bdone\b/.test(row)));
    });
  });

  it('a preflight that stopped changed nothing: the plan\'s Next line, not "resume with"', async () => {
    await withUpgradeSim('license-invalid', async (sim) => {
      const before = sim.cluster.audit.entries.length;
      const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '-n', 'redis']);
      assertExit(result, 3, 'a run whose preflight fails');
      assert.doesNotMatch(result.stderr, /resume with/);
      // The kubeconfig the run read (KUBECONFIG) is named: a fresh shell has not set it.
      const kube = `--kubeconfig ${shellQuote(sim.env.KUBECONFIG ?? '')}`;
      const lines = (text: string): string[] => text.split('\n');
      assert.ok(
        lines(result.stderr).includes(
          `Nothing was changed. Next: ctl upgrade run --to 7.8.2-6 -n redis ${kube}`,
        ),
        result.stderr,
      );
      assertNoChanges(sim, before, 'the stopped preflight');
      const status = await sim.ctl(['upgrade', 'status']);
      assertExit(status, 0, 'status');
      assert.doesNotMatch(status.stdout, /resume with/);
      assert.match(
        status.stdout,
        /nothing was changed \(it stopped in preflight, having changed nothing\); once fixed, run: ctl upgrade run --to 7\.8\.2-6 -n redis --kubeconfig /m,
      );
      // The run's own Next line (without --yes), not the command line the run was given.
      assert.equal(readState(sim).nextCommand, `ctl upgrade run --to 7.8.2-6 -n redis ${kube}`);
      // A dry run that stops changed nothing either.
      const dry = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--dry-run']);
      assertExit(dry, 3, 'a dry run whose preflight fails');
      assert.doesNotMatch(dry.stderr, /resume with/);
      assert.ok(
        lines(dry.stderr).includes(`Nothing was changed. Next: ctl upgrade run --to 7.8.2-6 ${kube}`),
        dry.stderr,
      );
      // A run with a --state of its own: the next run keeps its record there, where
      // `ctl upgrade status --state` looks (it was left out, and the next run wrote elsewhere),
      // named absolute: pasted in another folder, a relative one would start a new run.
      const kept = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '--state', 'ci state.json']);
      assertExit(kept, 3, 'a run with --state whose preflight fails');
      const keptNext = `ctl upgrade run --to 7.8.2-6 --state ${shellQuote(path.join(sim.sandbox.dir, 'ci state.json'))} ${kube}`;
      assert.ok(lines(kept.stderr).includes(`Nothing was changed. Next: ${keptNext}`), kept.stderr);
      const keptStatus = await sim.ctl(['upgrade', 'status', '--state', 'ci state.json']);
      assertExit(keptStatus, 0, 'status --state');
      assert.ok(keptStatus.stdout.trimEnd().endsWith(`once fixed, run: ${keptNext}`), keptStatus.stdout);
    });
  });
});
