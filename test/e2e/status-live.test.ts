import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { clusterTagFor } from '../../src/release/catalog.js';
import { shellQuote } from '../../src/io/shell-words.js';
import { hangGuardMs } from '../helpers/wait.js';
import {
  assertExit,
  assertUpgraded,
  readState,
  type StateDoc,
  startUpgradeSim,
  TARGET,
} from './upgrade-support.js';

/**
 * A run in progress, seen by `ctl upgrade status`, and a run whose stderr reader goes away
 * (`ctl upgrade run ... 2>&1 >/dev/null | head -3`), on a simulated cluster whose rolling upgrade
 * takes 4 s a pod:
 * - while the run holds its lock, status says it runs (pid, since when, its step) and what to
 *   do, never `resume with:` (that command would exit 5); `-o json` says `running: true`;
 * - stderr closed mid-run: the run stops as on an interrupt, exit 141 (128 + SIGPIPE, as a Go
 *   tool on a broken pipe), the state says why, the lock is released; status shows `resume
 *   with:` again and the next run resumes and completes;
 * - a lock of a process on another host: status cannot tell whether it runs and says how to
 *   unlock it if it is gone; its commands name the state file it read.
 */

const TAG = clusterTagFor(TARGET) ?? '';
type State = StateDoc & { stoppedBy?: string };

/** The state once `test` holds for it (the run writes it as it goes). */
async function stateWhen(
  statePath: string,
  what: string,
  test: (state: State) => boolean,
  exited: () => boolean,
): Promise<State> {
  const deadline = Date.now() + hangGuardMs(60_000);
  for (;;) {
    const state = existsSync(statePath) ? (JSON.parse(readFileSync(statePath, 'utf8')) as State) : undefined;
    if (state && test(state)) return state;
    assert.ok(!exited(), `the run ended before ${what}`);
    assert.ok(Date.now() < deadline, `no state with ${what} in time`);
    await sleep(100);
  }
}

describe('ctl upgrade status beside a live run; a run whose stderr closes (e2e)', () => {
  it('status names the live run instead of a resume line; a closed stderr stops the run with 141, saved and unlocked; it resumes', async () => {
    const sim = await startUpgradeSim('happy-path', {
      timing: { operatorStart: 0.3, podRestart: 4, databaseUpgrade: 0.2 },
    });
    try {
      // Text mode: the run's progress lines go to stderr, as in `2>&1 >/dev/null | head -3`.
      const first = sim.spawnCtl(['upgrade', 'run', '--to', TARGET, '--yes']);
      let exited = false;
      void first.result.then(() => (exited = true));
      await stateWhen(
        sim.statePath,
        'monitor in progress',
        (s) => s.steps.monitor?.status === 'in-progress',
        () => exited,
      );

      const status = await sim.ctl(['upgrade', 'status'], { timeoutMs: 60_000 });
      assertExit(status, 0, 'status beside the live run');
      assert.match(
        status.stdout,
        new RegExp(
          `\\nrunning now: pid ${first.child.pid} on \\S+ \\(user [^)]+\\) holds the lock since \\S+; at step monitor, per the state written \\S+\\n`,
        ),
      );
      assert.match(
        status.stdout,
        /\n {2}wait for it to finish: another ctl upgrade run exits 5 \(locked\) meanwhile;/,
      );
      // The status to run again names the state file it read.
      assert.match(
        status.stdout,
        new RegExp(
          `; run ctl (--kubeconfig \\S+ )?upgrade status --state ${escaped(shellQuote(sim.statePath))} again to see how far it got`,
        ),
      );
      assert.doesNotMatch(status.stdout, /resume with:/, 'a resume line that would exit 5');
      const json = await sim.ctl(['upgrade', 'status', '-o', 'json'], { timeoutMs: 60_000 });
      assertExit(json, 0, 'status -o json beside the live run');
      const doc = JSON.parse(json.stdout) as { running: boolean | null; lockStale: boolean | null };
      assert.equal(doc.running, true);
      assert.equal(doc.lockStale, false);

      // Its stderr's reader goes away: the next line it writes there finds a broken pipe.
      const closed = Date.now();
      first.child.stderr.destroy();
      const result = await first.result;
      const took = Date.now() - closed;
      assertExit(result, 141, 'the run whose stderr closed');
      const guard = hangGuardMs(15_000);
      assert.ok(took < guard, `the run exited ${took} ms after its stderr closed (guard ${guard} ms)`);
      const state = readState(sim) as State;
      assert.equal(state.result, 'interrupted');
      assert.equal(state.stoppedBy, 'a broken pipe: the reader of stderr went away');
      assert.ok(
        Object.values(state.steps).some((step) => step.status === 'in-progress'),
        `a step stays in progress: ${JSON.stringify(state.steps)}`,
      );
      assert.ok(!existsSync(`${sim.statePath}.lock`), 'the lock is released, as on SIGINT');

      const after = await sim.ctl(['upgrade', 'status'], { timeoutMs: 60_000 });
      assertExit(after, 0, 'status after the run stopped');
      assert.match(
        after.stdout,
        /\nresult {4}interrupted \(by a broken pipe: the reader of stderr went away\), last written /,
      );
      assert.match(after.stdout, /\nresume with: ctl upgrade run --to 7\.8\.2-6 /);
      assert.doesNotMatch(after.stdout, /running now:/);

      // A lock of a process elsewhere: nothing here can tell whether it runs.
      const lock = {
        id: '0f0e0d0c-0b0a-4909-8807-060504030201',
        pid: 4242,
        host: 'elsewhere.example',
        user: 'ops',
        operation: 'upgrade run',
        createdAt: '2026-11-30T08:00:00.000Z',
      };
      writeFileSync(`${sim.statePath}.lock`, `${JSON.stringify(lock)}\n`, { mode: 0o600 });
      const remote = await sim.ctl(['upgrade', 'status'], { timeoutMs: 60_000 });
      assertExit(remote, 0, 'status with a lock held on another host');
      assert.match(
        remote.stdout,
        /\nheld by pid 4242 on elsewhere\.example \(user ops\) since 2026-11-30T08:00:00\.000Z, on another host or in another container: ctl cannot tell from here whether it still runs; at step \w+/,
      );
      // The unlock names the state file status read, absolute: pasted anywhere, it unlocks this lock.
      assert.match(
        remote.stdout,
        new RegExp(
          `if it is gone for good, run ctl (--kubeconfig \\S+ )?upgrade unlock --lock-id 0f0e0d0c-0b0a-4909-8807-060504030201 --force --state ${escaped(shellQuote(sim.statePath))}, then`,
        ),
      );
      assert.doesNotMatch(remote.stdout, /resume with:/);
      const remoteJson = await sim.ctl(['upgrade', 'status', '-o', 'json'], { timeoutMs: 60_000 });
      assert.equal((JSON.parse(remoteJson.stdout) as { running: unknown }).running, null);
      const unlocked = await sim.ctl(['upgrade', 'unlock', '--lock-id', lock.id, '--force'], {
        timeoutMs: 60_000,
      });
      assertExit(unlocked, 0, 'the unlock status names');

      const resumed = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes']);
      assertExit(resumed, 0, 'the resumed run');
      assert.match(resumed.stderr, /resuming the upgrade to 7\.8\.2-6 at step /);
      await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
      assert.equal((readState(sim) as State).stoppedBy, undefined, 'a finished run is not stopped');
    } finally {
      await sim.close();
    }
  });
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
