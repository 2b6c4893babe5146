/**
 * What stopped ctl, said as it was (src/run/signals.ts stopCauseOf): SIGINT, SIGTERM, or the
 * reader of stdout or stderr gone (a broken pipe, exit 141). The question before a run, an
 * interrupted step's note of what goes on without ctl, and the demo's ending each name it; none
 * says SIGINT or Ctrl-C for a closed pipe or a SIGTERM. The fleet's clusters not started name it
 * in test/e2e/fleet.test.ts, the run's own message in test/e2e/exit-codes.test.ts.
 */

import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { asDemoEnding } from '../../../src/commands/demo.js';
import { confirm } from '../../../src/commands/run-confirm.js';
import type { RunCommandInput } from '../../../src/commands/run-input.js';
import { describeInterruption } from '../../../src/commands/run-interrupted.js';
import { ExitCode, InterruptedError } from '../../../src/errors.js';
import { createTestIo } from '../../../src/io/test-io.js';
import { OutputClosed, stopCauseOf } from '../../../src/run/signals.js';
import type { UpgradeState } from '../../../src/run/state.js';
import { planUpgrade } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from '../planning/snapshot-fixture.js';

/** Each abort reason the run's signal gets (guardInterrupts), with what it must be called. */
const STOPS = [
  { reason: 'SIGINT', signal: 'SIGINT', exitCode: ExitCode.sigint, cause: 'SIGINT', subject: 'SIGINT' },
  { reason: 'SIGTERM', signal: 'SIGTERM', exitCode: ExitCode.sigterm, cause: 'SIGTERM', subject: 'SIGTERM' },
  {
    reason: new OutputClosed('stdout'),
    signal: 'SIGPIPE',
    exitCode: ExitCode.sigpipe,
    cause: 'a broken pipe: the reader of stdout went away',
    subject: 'the closed output pipe',
  },
] as const;

describe('what stopped ctl, named as it was', () => {
  it('stopCauseOf: the signal to exit by and the words, for each abort reason', () => {
    for (const stop of STOPS) {
      assert.deepEqual(stopCauseOf(stop.reason), { signal: stop.signal, cause: stop.cause });
    }
    assert.deepEqual(stopCauseOf(new OutputClosed('stderr')), {
      signal: 'SIGPIPE',
      cause: 'a broken pipe: the reader of stderr went away',
    });
  });

  it('at the question: the cause and its exit code, nothing changed', async () => {
    const plan = planUpgrade(makeSnapshot(), makeTarget());
    for (const stop of STOPS) {
      const { io } = createTestIo();
      // Nobody answers: only the run's signal ends the question.
      const stdin = new PassThrough();
      const interrupts = new AbortController();
      interrupts.abort(stop.reason);
      const input = { yes: false, io, stdin } as unknown as RunCommandInput;
      await assert.rejects(confirm(input, plan, interrupts.signal), (error: unknown) => {
        assert.ok(error instanceof InterruptedError, String(error));
        assert.equal(error.exitCode, stop.exitCode);
        assert.equal(error.message, `interrupted by ${stop.cause} at the question: nothing was changed`);
        return true;
      });
      stdin.destroy();
    }
  });

  it("an interrupted step's note of what goes on without ctl names what stopped it", () => {
    const state = { steps: { monitor: { status: 'in-progress' } } } as unknown as UpgradeState;
    for (const stop of STOPS) {
      const { signal, cause } = stopCauseOf(stop.reason);
      const error = new InterruptedError(signal, `interrupted by ${cause}; the state was saved`);
      describeInterruption(error, state, ['cluster', 'monitor'], '');
      assert.equal(error.message, `interrupted by ${cause} during step monitor; the state was saved`);
      assert.equal(
        error.hint,
        `The operator goes on rolling the cluster's pods to the new version without ctl: ${stop.subject} stopped ctl following it, not the upgrade.`,
      );
      assert.equal(error.exitCode, stop.exitCode);
    }
  });

  it('the demo interrupted by a closed pipe says so, not SIGPIPE (a signal Node does not die of)', () => {
    const ended = asDemoEnding(
      new InterruptedError('SIGPIPE', 'interrupted by a broken pipe: the reader of stdout went away'),
    );
    assert.ok(ended instanceof InterruptedError);
    assert.equal(ended.exitCode, ExitCode.sigpipe);
    assert.equal(
      ended.message,
      'the demo was interrupted by the closed output pipe; its simulated cluster stopped with it',
    );
  });
});
