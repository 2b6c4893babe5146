/**
 * `ctl demo`'s errors offer nothing to resume: its cluster and its state lived only as long as the
 * demo, so `resume with: ctl upgrade run ...` would go to whatever the kubeconfig names.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asDemoEnding } from '../../../src/commands/demo.js';
import { ExitCode, InterruptedError, OperationError, UsageError } from '../../../src/errors.js';

describe("ctl demo's endings", () => {
  it('an interruption says it was the demo, keeps its exit code, and offers the demo again', () => {
    const ended = asDemoEnding(
      new InterruptedError('SIGINT', 'interrupted by SIGINT during step monitor; the state was saved', {
        hint: 'The operator goes on rolling...\nresume with: ctl upgrade run --to 8.2.0-18 -n redis --cluster rec --yes',
      }),
    );
    assert.ok(ended instanceof InterruptedError);
    assert.equal(ended.exitCode, ExitCode.sigint);
    assert.equal(ended.message, 'the demo was interrupted by SIGINT; its simulated cluster stopped with it');
    assert.match(ended.hint ?? '', /nothing is left to resume: run ctl demo again/);
    assert.doesNotMatch(ended.hint ?? '', /resume with|state was saved/);
  });

  it("a failed run keeps its advice but the resume line, which named the demo's own cluster", () => {
    const failed = new OperationError('step databases failed', {
      hint: 'Look at the database.\nresume with: ctl upgrade run --to 8.2.0-18 --yes',
    });
    const ended = asDemoEnding(failed);
    assert.equal(ended, failed);
    assert.equal(
      failed.hint,
      'Look at the database.\nNothing outside the simulated cluster was touched, and nothing is left to resume: run ctl demo again (--instant: about a second).',
    );
    // Other errors (a wrong --to, a blocked plan) are the demo's own answer: left as they are.
    const usage = new UsageError('--to 9.9.9-9: unknown', { hint: 'Check the version.' });
    assert.equal((asDemoEnding(usage) as UsageError).hint, 'Check the version.');
  });
});
