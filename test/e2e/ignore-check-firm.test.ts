/**
 * `--ignore-check` of a check the run cannot get past (a downgrade, a release that is not there:
 * the check's `ignorable: false`), through the built ctl against the simulated cluster: the plan
 * keeps it failing (exit 3) and says why the flag cannot get past it, the same in text and JSON,
 * and the run refuses it before any change, not in its operator or cluster step. A plan that says
 * Ready must finish.
 */

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { shellQuote } from '../../src/io/shell-words.js';
import { assertExit, SharedUpgradeSim } from './upgrade-support.js';

/** happy-path runs operator 7.4.6-2: 7.4.2-2 is a release down. */
const OLDER = '7.4.2-2';
const NEWER = '7.22.2-45';

interface PlanJson {
  checks: { id: string; status: string; message: string; ignored?: boolean; ignorable?: boolean }[];
  blocked: boolean;
}

const happyPath = new SharedUpgradeSim('happy-path');
after(() => happyPath.close());

describe('--ignore-check of a check the run cannot get past (e2e)', { timeout: 300_000 }, () => {
  it('a downgrade: the plan stays blocked and says why, in text and in JSON', async () => {
    await happyPath.use('plans of a downgrade', async (sim) => {
      const args = ['upgrade', 'plan', '--to', OLDER, '--ignore-check', 'upgrade-path'];
      const text = await sim.ctl(args);
      assertExit(text, 3, 'plan of a downgrade with --ignore-check upgrade-path');
      assert.match(
        text.stdout,
        /FAIL upgrade-path +operator 7\.4\.6-2 is newer than --to 7\.4\.2-2: downgrades are not supported \(--ignore-check upgrade-path cannot get past it: ctl takes no cluster down a release: the operator step keeps a newer operator and the cluster step refuses an older versionTag\)\n/,
      );
      assert.doesNotMatch(text.stdout, /Ready to run|ignored with --ignore-check upgrade-path/);
      assert.match(text.stdout, /Blocked: upgrade-path failed\. Fix it\./);
      // The error names the check and its fix, and offers no --ignore-check that cannot work.
      assert.match(text.stderr, /upgrade-path: .*cannot get past it/);
      assert.doesNotMatch(text.stderr, /pass --ignore-check upgrade-path/);

      const json = await sim.ctl([...args, '-o', 'json']);
      assertExit(json, 3, 'the same plan, -o json');
      const plan = JSON.parse(json.stdout) as PlanJson;
      assert.equal(plan.blocked, true);
      const check = plan.checks.find((c) => c.id === 'upgrade-path');
      assert.equal(check?.status, 'fail', json.stdout);
      assert.equal(check.ignored, undefined);
      assert.equal(check.ignorable, false);
      // The same words as the text's line.
      assert.ok(text.stdout.includes(check.message.slice(0, 60)), check.message);
      assert.match(check.message, /\(--ignore-check upgrade-path cannot get past it: /);
    });
  });

  it('a downgrade: the run refuses before any change (exit 3), saying the same', async () => {
    await happyPath.use('a refused run of a downgrade', async (sim) => {
      const run = await sim.ctl(['upgrade', 'run', '--to', OLDER, '--ignore-check', 'upgrade-path', '--yes']);
      assertExit(run, 3, 'run of a downgrade with --ignore-check upgrade-path');
      assert.match(run.stderr, /upgrade-path: .*\(--ignore-check upgrade-path cannot get past it: /);
      assert.match(run.stderr, /nothing was changed/);
      assert.doesNotMatch(run.stderr, /pass --ignore-check upgrade-path/);
      // The command to make next does not repeat the --ignore-check that could not get past it.
      // The same run again would fail the same way: the next step is choosing another target.
      // Named with the kubeconfig the run read (KUBECONFIG): pasted in a fresh shell, the same cluster.
      assert.ok(
        run.stderr.includes(
          `Nothing was changed. Next: ctl upgrade plan --kubeconfig ${shellQuote(sim.env.KUBECONFIG ?? '')}\n`,
        ),
        run.stderr,
      );
      assert.doesNotMatch(run.stderr, /Next: .*--ignore-check upgrade-path/);
    });
  });

  it("a refused downgrade: ctl upgrade status tells the run's own Next line, in text and in JSON", async () => {
    await happyPath.use('status of a refused downgrade', async (sim) => {
      const args = ['upgrade', 'run', '--to', OLDER, '-n', 'redis'];
      const run = await sim.ctl([...args, '--ignore-check', 'upgrade-path', '--yes']);
      assertExit(run, 3, 'run of a downgrade with --ignore-check upgrade-path');
      const next = /Nothing was changed\. Next: (ctl [^\n]*)$/m.exec(run.stderr)?.[1];
      assert.equal(
        next,
        `ctl upgrade plan -n redis --kubeconfig ${shellQuote(sim.env.KUBECONFIG ?? '')}`,
        run.stderr,
      );

      const text = await sim.ctl(['upgrade', 'status']);
      assertExit(text, 0, 'status after the refused downgrade');
      assert.ok(
        text.stdout
          .split('\n')
          .includes(
            `nothing was changed (it stopped in preflight, having changed nothing); once fixed, run: ${next}`,
          ),
        text.stdout,
      );
      // Not the run that was refused: the same --to and --ignore-check would fail the same way.
      assert.doesNotMatch(text.stdout, /run: ctl upgrade run|run: .*--ignore-check upgrade-path/);

      const json = await sim.ctl(['upgrade', 'status', '-o', 'json']);
      assertExit(json, 0, 'status -o json after the refused downgrade');
      const status = JSON.parse(json.stdout) as { state: { nextCommand?: string; resumeCommand?: string } };
      assert.equal(status.state.nextCommand, next, json.stdout);
      // resumeCommand keeps its meaning: the command line of the run as it was given.
      assert.match(
        status.state.resumeCommand ?? '',
        /^ctl upgrade run --to 7\.4\.2-2 .*--ignore-check upgrade-path/,
      );

      // A dry run writes no state: status still tells the recorded run's Next line.
      const dry = await sim.ctl([...args, '--dry-run']);
      assertExit(dry, 3, 'dry run of the same downgrade');
      const after = await sim.ctl(['upgrade', 'status', '-o', 'json']);
      assert.equal((JSON.parse(after.stdout) as typeof status).state.nextCommand, next);
    });
  });

  it('a release that is not there: target-available stays failing, in text and in JSON', async () => {
    await happyPath.use('plans of a missing release', async (sim) => {
      const bundle = `${sim.env.CTL_BUNDLE?.replace(/\{version\}.*$/, '')}missing/{version}.yaml`;
      const args = [
        'upgrade',
        'plan',
        '--to',
        NEWER,
        '--bundle',
        bundle,
        '--ignore-check',
        'target-available',
      ];
      const text = await sim.ctl(args);
      assertExit(text, 3, 'plan of a missing bundle with --ignore-check target-available');
      assert.match(
        text.stdout,
        /FAIL target-available +the bundle of 7\.22\.2-45 is not there: .*\(--ignore-check target-available cannot get past it: the operator step installs this release, and it is not there to install\)/,
      );
      const json = await sim.ctl([...args, '-o', 'json']);
      assertExit(json, 3, 'the same plan, -o json');
      const check = (JSON.parse(json.stdout) as PlanJson).checks.find((c) => c.id === 'target-available');
      assert.equal(check?.status, 'fail', json.stdout);
      assert.match(check.message, /cannot get past it: the operator step installs this release/);
    });
  });
});
