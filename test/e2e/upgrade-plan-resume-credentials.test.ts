import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  assertExit,
  assertNoChanges,
  readState,
  type RunEvent,
  RunningCtl,
  startUpgradeSim,
  TARGET,
} from './upgrade-support.js';

/**
 * A saved plan made with a bundle URL that carries credentials (CTL_BUNDLE with user:password@),
 * its run interrupted, then resumed with `--to` and the same CTL_BUNDLE: the plan file keeps the
 * location redacted, the run has it whole, and the resume compares the two as the plan file holds
 * them, so it goes on instead of refusing (exit 2) a bundle that is the same. Another bundle is
 * still refused, and no credential is printed either way.
 */

const PASSWORD = 'mirror-Pa55-7f3e91';
const stepStart = (step: string) => (e: RunEvent) => e.type === 'step-start' && e.step === step;
// 4 s a pod: SIGINT lands in the monitor step, whatever the machine's speed.
const TIMING = { operatorStart: 0.3, podRestart: 4, databaseUpgrade: 0.2 };

describe('a --to resume of a saved plan whose bundle URL has credentials (e2e)', () => {
  it('goes on with the same CTL_BUNDLE; another bundle is refused; nothing prints the password', async () => {
    const sim = await startUpgradeSim('happy-path', { timing: TIMING });
    try {
      const url = new URL(sim.env.CTL_BUNDLE?.replace('{version}', '__version__') ?? '');
      url.username = 'mirror';
      url.password = PASSWORD;
      const bundle = url.href.replace('__version__', '{version}');
      const env = { ...sim.env, CTL_BUNDLE: bundle };
      const printed: string[] = [];

      const planFile = path.join(sim.sandbox.dir, 'plan.json');
      const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '--out', planFile], { env });
      assertExit(plan, 0, 'plan --out with credentials in CTL_BUNDLE');
      assert.ok(!readFileSync(planFile, 'utf8').includes(PASSWORD), 'the saved plan holds the password');

      const first = new RunningCtl(
        ['upgrade', 'run', '--plan', planFile, '--yes', '-o', 'json'],
        env,
        sim.sandbox.dir,
      );
      await first.waitFor('the start of monitor', stepStart('monitor'));
      first.child.kill('SIGINT');
      const interrupted = await first.result;
      assertExit(interrupted, 130, 'the interrupted run --plan');
      assert.equal(readState(sim).steps.monitor?.status, 'in-progress');
      printed.push(interrupted.stdout, interrupted.stderr);

      // Another bundle changes the plan's selection: still refused, naming it, changing nothing.
      const before = sim.cluster.audit.entries.length;
      const otherUrl = new URL(url.href);
      otherUrl.pathname = `/elsewhere${otherUrl.pathname}`;
      const other = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes'], {
        env: { CTL_BUNDLE: otherUrl.href.replace('__version__', '{version}') },
      });
      assertExit(other, 2, 'a resume with another bundle');
      assert.match(other.stderr, /this run would change its selection: bundle /);
      assertNoChanges(sim, before, 'a refused resume');
      printed.push(other.stdout, other.stderr);

      // The same bundle, credentials and all: the run goes on where it stopped.
      const resumed = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes'], { env });
      assertExit(resumed, 0, 'a resume with --to and the same CTL_BUNDLE');
      assert.match(resumed.stderr, /resuming the upgrade to 7\.8\.2-6 at step monitor/);
      assert.doesNotMatch(resumed.stderr, /would change its selection/);
      assert.equal(readState(sim).result, 'succeeded');
      printed.push(resumed.stdout, resumed.stderr);

      assert.deepEqual(
        printed.filter((text) => text.includes(PASSWORD)),
        [],
        'printed the password',
      );
    } finally {
      await sim.close();
    }
  });
});
