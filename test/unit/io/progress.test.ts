import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { GitHubActionsReporter, escapeData, writeStepSummary } from '../../../src/io/github.js';
import {
  createReporter,
  formatDuration,
  JsonReporter,
  PlainReporter,
  type Spinner,
  SpinnerReporter,
} from '../../../src/io/progress.js';
import { createTestIo } from '../../../src/io/test-io.js';
import { renderSummaryMarkdown, renderSummaryText } from '../../../src/run/summary.js';
import { tempDir } from '../../helpers/temp.js';

const at = () => new Date('2026-11-21T10:11:12.000Z');

describe('progress reporters', () => {
  it('json: one event per line on stdout, nothing for people on stderr', () => {
    const t = createTestIo({ output: 'json' });
    const reporter = createReporter(t.io, undefined, at);
    assert.ok(reporter instanceof JsonReporter);
    reporter.emit({ type: 'progress', step: 'monitor', message: 'pods 2/3', data: { ready: 2 } });
    assert.deepEqual(JSON.parse(t.stdout()), {
      ts: '2026-11-21T10:11:12.000Z',
      type: 'progress',
      step: 'monitor',
      message: 'pods 2/3',
      data: { ready: 2 },
    });
    assert.equal(t.stderr(), '');
  });

  it('plain: timestamped lines on stderr when not a terminal', () => {
    const t = createTestIo();
    const reporter = createReporter(t.io, () => assert.fail('no spinner off a terminal'), at);
    assert.ok(reporter instanceof PlainReporter);
    reporter.emit({ type: 'step-start', step: 'operator', message: 'Upgrade the operator' });
    reporter.emit({ type: 'warning', step: 'operator', message: 'slow' });
    assert.equal(t.stdout(), '');
    assert.match(t.stderr(), /^10:11:12 \[operator\] Upgrade the operator\nwarning: \[operator\] slow\n$/);
  });

  it('spinner: one spinner per step on a terminal, with progress in its text', () => {
    const t = createTestIo({ stdin: { isTTY: true } });
    const calls: string[] = [];
    const fake = (text: string): Spinner => {
      const spinner: Spinner = {
        text,
        start: () => (calls.push(`start ${spinner.text}`), spinner),
        succeed: (s) => (calls.push(`succeed ${s}`), spinner),
        fail: (s) => (calls.push(`fail ${s}`), spinner),
        info: (s) => (calls.push(`info ${s}`), spinner),
        warn: (s) => (calls.push(`warn ${s}`), spinner),
        stop: () => (calls.push('stop'), spinner),
      };
      return spinner;
    };
    const reporter = new SpinnerReporter(t.io, fake, at);
    reporter.emit({ type: 'step-start', step: 'monitor', message: 'Wait for the rolling upgrade' });
    reporter.emit({ type: 'progress', step: 'monitor', message: 'pods 1/3' });
    reporter.emit({ type: 'step-done', step: 'monitor', message: 'done' });
    reporter.close();
    assert.match(calls[0]!, /^start Wait for the rolling upgrade/);
    assert.match(calls[1]!, /^succeed Wait for the rolling upgrade/);
  });

  it('GitHub Actions: groups and annotations on stderr, stdout untouched', () => {
    const t = createTestIo({ env: { GITHUB_ACTIONS: 'true' } });
    const reporter = new GitHubActionsReporter(new PlainReporter(t.io, at), t.io);
    reporter.emit({ type: 'step-start', step: 'cluster', message: 'Upgrade the cluster' });
    reporter.emit({ type: 'warning', step: 'cluster', message: '50% done, a:b' });
    reporter.emit({ type: 'error', step: 'cluster', message: 'patch refused', data: { hint: 'fix\nit' } });
    reporter.close();
    const err = t.stderr();
    assert.match(err, /^::group::Upgrade the cluster$/m);
    assert.match(err, /^::warning title=ctl cluster::50%25 done, a:b$/m);
    assert.match(err, /^::error title=ctl cluster::patch refused%0Afix%0Ait$/m);
    assert.equal(err.match(/::endgroup::/g)?.length, 1);
    assert.equal(t.stdout(), '');
    assert.equal(escapeData('a%\r\nb'), 'a%25%0D%0Ab');
  });

  it('writes the step summary only where GitHub provides the file', async () => {
    const file = join(tempDir('ctl-gh-'), 'summary.md');
    const rows = [
      { id: 'preflight' as const, title: 'Check', result: 'done' as const, durationMs: 1200 },
      { id: 'operator' as const, title: 'Op', result: 'failed' as const, durationMs: 0, message: 'a | b' },
    ];
    assert.equal(writeStepSummary({}, 'x'), false);
    assert.equal(
      writeStepSummary({ GITHUB_STEP_SUMMARY: file }, renderSummaryMarkdown('ctl upgrade', rows)),
      true,
    );
    const md = await readFile(file, 'utf8');
    assert.match(md, /\| preflight \| done \| 1s \| {2}\|/);
    assert.match(md, /\| operator \| failed \| - \| a \\\| b \|/);
    assert.equal(
      renderSummaryText(rows),
      'STEP       RESULT  DURATION\npreflight  done    1s\noperator   failed  -',
    );
  });

  it('formats durations briefly', () => {
    assert.equal(formatDuration(950), '950ms');
    assert.equal(formatDuration(12_400), '12s');
    assert.equal(formatDuration(184_000), '3m04s');
    assert.equal(formatDuration(3_720_000), '1h02m');
  });
});
