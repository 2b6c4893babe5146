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
  TeeReporter,
  type Spinner,
  SizeGuardedReporter,
  SpinnerReporter,
} from '../../../src/io/progress.js';
import { createTestIo } from '../../../src/io/test-io.js';
import { renderSummaryMarkdown, renderSummaryText } from '../../../src/run/summary.js';
import { FanOutTally } from '../../../src/steps/fan-out.js';
import { tempDir } from '../../helpers/temp.js';

const at = () => new Date('2026-11-21T10:11:12.000Z');

describe('progress reporters', () => {
  it('a terminal reporting 0 columns or rows, or a tiny one, gets plain lines', () => {
    for (const size of [
      { columns: 0, rows: 0 },
      { columns: 0, rows: 40 },
      { columns: 120, rows: 0 },
      { columns: 5, rows: 40 },
      {},
    ]) {
      const t = createTestIo({ stderrIsTTY: true });
      const reporter = createReporter(
        t.io,
        () => assert.fail('no spinner on a 0-size terminal'),
        at,
        () => size,
      );
      assert.ok(reporter instanceof PlainReporter, JSON.stringify(size));
    }
  });

  it('a terminal resized to 0 columns mid-run turns the spinner into plain lines for good', () => {
    const t = createTestIo({ stderrIsTTY: true });
    let size = { columns: 100, rows: 30 };
    let stopped = 0;
    const spinner: Spinner = {
      text: '',
      start: () => spinner,
      succeed: () => spinner,
      fail: () => spinner,
      info: () => spinner,
      warn: () => spinner,
      stop: () => ((stopped += 1), spinner),
    };
    const reporter = createReporter(
      t.io,
      () => spinner,
      at,
      () => size,
    );
    reporter.emit({ type: 'step-start', step: 'monitor', message: 'Wait for the cluster' });
    size = { columns: 0, rows: 0 };
    reporter.emit({ type: 'progress', step: 'monitor', message: 'pods 1/3' });
    size = { columns: 100, rows: 30 };
    reporter.emit({ type: 'progress', step: 'monitor', message: 'pods 2/3' });
    reporter.close();
    assert.ok(stopped >= 1);
    assert.match(t.stderr(), /\[monitor\] pods 1\/3\n.*\[monitor\] pods 2\/3/s);
  });

  it('json: one event per line on stdout, and the plain line for people on stderr', () => {
    const t = createTestIo({ output: 'json' });
    const reporter = createReporter(t.io, undefined, at);
    assert.ok(reporter instanceof TeeReporter);
    assert.ok(reporter.reporters[0] instanceof JsonReporter);
    reporter.emit({ type: 'progress', step: 'monitor', message: 'pods 2/3', data: { ready: 2 } });
    assert.deepEqual(JSON.parse(t.stdout()), {
      ts: '2026-11-21T10:11:12.000Z',
      type: 'progress',
      step: 'monitor',
      message: 'pods 2/3',
      data: { ready: 2 },
    });
    assert.equal(t.stderr(), '10:11:12 [monitor] pods 2/3\n');
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

  it('a terminal shows 1,000 databases as counts and the slowest, in two lines at most', () => {
    // A fake terminal: stderr is a TTY (so the reporter animates), the spinner is the screen.
    const t = createTestIo({ stdin: { isTTY: true }, stderrIsTTY: true, env: { NO_COLOR: '1' } });
    let clock = Date.parse('2026-11-21T10:00:00.000Z');
    const now = () => new Date(clock);
    const screen: string[] = [];
    const fake = (text: string): Spinner => {
      const spinner: Spinner = {
        text,
        start: () => spinner,
        succeed: (s) => (screen.push(`done ${s}`), spinner),
        fail: (s) => (screen.push(`failed ${s}`), spinner),
        info: (s) => (screen.push(`info ${s}`), spinner),
        warn: (s) => (screen.push(`warn ${s}`), spinner),
        stop: () => spinner,
      };
      return spinner;
    };
    let current: Spinner | undefined;
    const reporter = createReporter(
      t.io,
      (text) => {
        current = fake(text);
        return current;
      },
      now,
      () => ({ columns: 120, rows: 40 }),
    );
    assert.ok(reporter instanceof SizeGuardedReporter);
    const tally = new FanOutTally(1000, () => clock);
    const names = Array.from({ length: 1000 }, (_, i) => `ns-${i % 20}/db-${String(i + 1).padStart(4, '0')}`);
    const seen: string[] = [];
    const emit = (message: string) => {
      reporter.emit({ type: 'progress', step: 'databases', message, data: { fanOut: tally.snapshot() } });
      seen.push(current?.text ?? '');
    };
    reporter.emit({ type: 'step-start', step: 'databases', message: 'Upgrade the databases' });
    // 50 at a time, as with --max-parallel 50; db-0001 is slow and finishes last.
    let next = 0;
    const running: string[] = [];
    while (next < names.length || running.length > 0) {
      while (running.length < 50 && next < names.length) {
        const name = names[next++] as string;
        tally.start(name);
        running.push(name);
        emit(`${name}: setting spec.redisVersion to 7.4 (runs 7.2)`);
      }
      clock += 500;
      const finished =
        running.length > 1 || next >= names.length ? running.splice(running.length > 1 ? 1 : 0, 1) : [];
      for (const name of finished) {
        emit(`${name}: runs 7.4`);
        tally.finish(name, 'done');
      }
    }
    emit('db-0001: runs 7.4');
    reporter.emit({ type: 'step-done', step: 'databases', message: 'done' });
    reporter.close();

    const linesOf = (text: string) => text.split('\n').length;
    assert.ok(seen.length >= 2000, 'every database reported its progress');
    assert.ok(Math.max(...seen.map(linesOf)) <= 2, 'the spinner never grows past two lines');
    assert.equal(t.stderr(), '', 'nothing printed line by line on a terminal');
    assert.deepEqual(screen.length, 1, 'one line left on the screen for the step');
    assert.match(screen[0] ?? '', /^done Upgrade the databases/);
    const middle = seen[1000] ?? '';
    assert.match(middle, /^Upgrade the databases \d+\/1000 done, 50 running, 0 failed, \d+ waiting /);
    // db-0001 started first and never finished until the end: it leads the slowest.
    assert.match(middle, /\n {2}slowest: ns-0\/db-0001 \d+m\d\ds, ns-\d+\/db-\d+ \d+s, ns-\d+\/db-\d+ \d+s$/);
    assert.match(
      seen.at(-1) ?? '',
      /^Upgrade the databases 1000\/1000 done, 0 running, 0 failed, 0 waiting \S+$/,
    );
  });

  it('off a terminal the same 1,000 databases stay one line per event', () => {
    const t = createTestIo();
    const reporter = createReporter(t.io, () => assert.fail('no spinner off a terminal'), at);
    const tally = new FanOutTally(1000, () => 0);
    for (let i = 0; i < 1000; i++) {
      tally.start(`db-${i}`);
      reporter.emit({
        type: 'progress',
        step: 'databases',
        message: `redis/db-${i}: runs 7.4`,
        data: { fanOut: tally.snapshot() },
      });
      tally.finish(`db-${i}`, 'done');
    }
    const lines = t.stderr().trimEnd().split('\n');
    assert.equal(lines.length, 1000);
    assert.equal(lines[999], '10:11:12 [databases] redis/db-999: runs 7.4');
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
