import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ExitCode, InterruptedError, OperationError, TimeoutError } from '../../../src/errors.js';
import { JsonReporter } from '../../../src/io/progress.js';
import { createTestIo } from '../../../src/io/test-io.js';
import type { Step } from '../../../src/run/step.js';
import type { StepId } from '../../../src/steps/index.js';
import { reportSteps } from '../../../src/run/report.js';
import { runSteps, selectSteps } from '../../../src/run/runner.js';
import { newState, StateFile } from '../../../src/run/state.js';
import { tempDir } from '../../helpers/temp.js';

const ids: StepId[] = ['preflight', 'operator', 'cluster'];

function recordingSteps(
  calls: string[],
  behaviour: Partial<Record<StepId, () => Promise<unknown>>> = {},
): Step<null>[] {
  return ids.map((id) => ({
    id,
    title: `Step ${id}`,
    run: async (ctx) => {
      calls.push(id);
      await ctx.recordIntent({ about: id });
      await behaviour[id]?.();
      return id === 'operator' ? { skipped: 'already at target' } : { outcome: { verified: id } };
    },
  }));
}

async function setup() {
  const file = new StateFile(join(tempDir('ctl-run-'), 'rec.json'));
  const state = newState({ context: 'c', namespace: 'n', cluster: 'rec' }, { operator: '7.8.2-6' }, ids);
  const test = createTestIo({ output: 'json' });
  return { file, state, test, reporter: new JsonReporter(test.io, () => new Date(0)) };
}

describe('runSteps', () => {
  it('runs every step in order and records intent, outcome and skip reasons', async () => {
    const { file, state, test, reporter } = await setup();
    const calls: string[] = [];
    const outcome = await runSteps({
      steps: recordingSteps(calls),
      state,
      stateFile: file,
      reporter,
      io: test.io,
      deps: null,
      dryRun: false,
      signal: new AbortController().signal,
    });
    assert.deepEqual(calls, ids);
    const saved = await file.load();
    assert.equal(saved?.result, 'succeeded');
    assert.equal(saved?.steps.preflight?.status, 'done');
    assert.deepEqual(saved?.steps.preflight?.intent, { about: 'preflight' });
    assert.deepEqual(saved?.steps.cluster?.outcome, { verified: 'cluster' });
    assert.equal(saved?.steps.operator?.status, 'skipped');
    assert.equal(saved?.steps.operator?.skipReason, 'already at target');
    assert.deepEqual(
      outcome.summary.map((s) => s.result),
      ['done', 'skipped', 'done'],
    );
    const events = test
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      events.map((e) => `${e.type}:${e.step}`),
      [
        'step-start:preflight',
        'step-done:preflight',
        'step-start:operator',
        'step-skip:operator',
        'step-start:cluster',
        'step-done:cluster',
      ],
    );
  });

  it('stops at a failing step, records the error, and resumes there on the next run', async () => {
    const { file, state, test, reporter } = await setup();
    const calls: string[] = [];
    let fail = true;
    const steps = recordingSteps(calls, {
      cluster: async () => {
        if (fail) throw new OperationError('the patch was refused', { hint: 'fix it' });
      },
    });
    const common = {
      steps,
      stateFile: file,
      reporter,
      io: test.io,
      deps: null,
      dryRun: false,
      signal: new AbortController().signal,
    };
    await assert.rejects(runSteps({ ...common, state }), (error: unknown) => {
      assert.ok(error instanceof OperationError);
      assert.equal((error as OperationError & { summary: unknown[] }).summary.length, 3);
      return true;
    });
    const failed = await file.load();
    assert.equal(failed?.steps.cluster?.status, 'failed');
    assert.equal(failed?.steps.cluster?.error?.hint, 'fix it');
    assert.equal(failed?.result, 'failed');

    fail = false;
    calls.length = 0;
    const resumed = await runSteps({ ...common, state: failed! });
    assert.deepEqual(calls, ['cluster']);
    // A step the first run skipped (nothing to do) is "skipped", with its reason; only a step
    // it did is "already done".
    assert.deepEqual(
      resumed.summary.map((s) => s.result),
      ['already done', 'skipped', 'done'],
    );
    assert.equal(resumed.summary[1]?.message, 'already at target (in an earlier run)');
    assert.deepEqual(
      resumed.summary.map((s) => s.earlierRun === true),
      [true, true, false],
    );
    // The report keeps the earlier run's times out of this run's rows.
    const rows = reportSteps(resumed.summary, resumed.state);
    assert.equal(rows[1]?.startedAt, undefined);
    assert.ok(rows[2]?.startedAt, 'the step run now has its times');
    assert.ok((await file.load())!.serial > failed!.serial);
  });

  it('leaves an interrupted step in progress and reports exit 130', async () => {
    const { file, state, test, reporter } = await setup();
    const controller = new AbortController();
    const steps = recordingSteps([], {
      operator: async () => {
        controller.abort('SIGINT');
        throw new Error('aborted');
      },
    });
    await assert.rejects(
      runSteps({
        steps,
        state,
        stateFile: file,
        reporter,
        io: test.io,
        deps: null,
        dryRun: false,
        signal: controller.signal,
      }),
      (error: unknown) => error instanceof InterruptedError && error.exitCode === ExitCode.sigint,
    );
    const saved = await file.load();
    assert.equal(saved?.steps.operator?.status, 'in-progress');
    assert.deepEqual(saved?.steps.operator?.intent, { about: 'operator' });
    assert.equal(saved?.steps.cluster?.status, 'pending');
    assert.equal(saved?.result, 'interrupted');
  });

  it('ends with exit 6 and a resumable state when the overall --timeout fires', async () => {
    const { file, state, test, reporter } = await setup();
    const controller = new AbortController();
    const steps = recordingSteps([], {
      cluster: async () => {
        controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
        throw new Error('aborted');
      },
    });
    await assert.rejects(
      runSteps({
        steps,
        state,
        stateFile: file,
        reporter,
        io: test.io,
        deps: null,
        dryRun: false,
        signal: controller.signal,
      }),
      (error: unknown) =>
        error instanceof TimeoutError &&
        error.exitCode === ExitCode.timeout &&
        /--timeout/.test(error.message),
    );
    const saved = await file.load();
    assert.equal(saved?.steps.cluster?.status, 'in-progress');
    assert.equal(saved?.result, 'interrupted');
  });

  it('writes nothing in dry-run', async () => {
    const { file, state, test, reporter } = await setup();
    await runSteps({
      steps: recordingSteps([]),
      state,
      stateFile: undefined,
      reporter,
      io: test.io,
      deps: null,
      dryRun: true,
      signal: new AbortController().signal,
    });
    assert.equal(await file.load(), undefined);
  });

  it('--only and --skip keep the fixed order', () => {
    const steps = ids.map((id) => ({ id }));
    assert.deepEqual(
      selectSteps(steps, ['cluster', 'preflight'], []).map((s) => s.id),
      ['preflight', 'cluster'],
    );
    assert.deepEqual(
      selectSteps(steps, [], ['operator']).map((s) => s.id),
      ['preflight', 'cluster'],
    );
  });
});

describe('runSteps beforeStep (a safe point)', () => {
  it('a throw before a step stops the run there: the step not run and still pending, the error kept', async () => {
    const { AvailabilityLimitError } = await import('../../../src/errors.js');
    const { file, state, test, reporter } = await setup();
    const calls: string[] = [];
    const asked: string[] = [];
    const run = runSteps({
      steps: recordingSteps(calls),
      state,
      stateFile: file,
      reporter,
      io: test.io,
      deps: null,
      dryRun: false,
      signal: new AbortController().signal,
      beforeStep: (id) => {
        asked.push(id);
        if (id === 'cluster') throw new AvailabilityLimitError('orders was down too long');
      },
    });
    const error = (await run.then(
      () => assert.fail('the run should stop'),
      (e: unknown) => e,
    )) as { exitCode: number; summary: { id: string; result: string }[] };
    assert.equal(error.exitCode, ExitCode.unavailable);
    assert.deepEqual(calls, ['preflight', 'operator']);
    assert.deepEqual(asked, ['preflight', 'operator', 'cluster']);
    assert.equal(error.summary.find((row) => row.id === 'cluster')?.result, 'not run');
    const saved = await file.load();
    assert.equal(saved?.steps.cluster?.status, 'pending');
    assert.equal(saved?.result, 'failed');
  });
});
