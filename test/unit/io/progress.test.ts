import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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
  type LiveDisplay,
  SizeGuardedReporter,
  SpinnerReporter,
} from '../../../src/io/progress.js';
import { createTestIo } from '../../../src/io/test-io.js';
import { renderSummaryMarkdown, renderSummaryText } from '../../../src/run/summary.js';
import { FanOutTally } from '../../../src/steps/fan-out.js';
import { tempDir } from '../../helpers/temp.js';

const at = () => new Date('2026-11-21T10:11:12.000Z');

/** A terminal's live lines as a test sees them: what the next frame would draw, and the stops. */
function fakeDisplay(): {
  display: LiveDisplay;
  frame(columns?: number): readonly string[];
  stops(): number;
} {
  let frame: ((columns: number) => readonly string[]) | undefined;
  let stops = 0;
  return {
    display: {
      show: (next) => {
        frame = next;
      },
      stop: () => {
        stops += 1;
        frame = undefined;
      },
    },
    // A wide terminal unless a test names the columns a line has.
    frame: (columns = 1000) => frame?.(columns) ?? [],
    stops: () => stops,
  };
}

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

  it('a terminal resized to 0 columns mid-run turns the live lines into plain lines for good', () => {
    const t = createTestIo({ stderrIsTTY: true });
    let size = { columns: 100, rows: 30 };
    const fake = fakeDisplay();
    const reporter = createReporter(
      t.io,
      () => fake.display,
      at,
      () => size,
    );
    reporter.emit({ type: 'step-start', step: 'monitor', message: 'Wait for the cluster' });
    size = { columns: 0, rows: 0 };
    reporter.emit({ type: 'progress', step: 'monitor', message: 'pods 1/3' });
    size = { columns: 100, rows: 30 };
    reporter.emit({ type: 'progress', step: 'monitor', message: 'pods 2/3' });
    reporter.close();
    assert.ok(fake.stops() >= 1);
    assert.deepEqual(fake.frame(), []);
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

  it('a terminal: the running step on the live lines, and a line that says what it did', () => {
    const t = createTestIo({ stdin: { isTTY: true } });
    const fake = fakeDisplay();
    const reporter = new SpinnerReporter(t.io, fake.display, at);
    reporter.emit({ type: 'step-start', step: 'monitor', message: 'Wait for the rolling upgrade' });
    assert.deepEqual(fake.frame(), ['Wait for the rolling upgrade 0ms']);
    reporter.emit({ type: 'progress', step: 'monitor', message: 'pods 1/3' });
    assert.deepEqual(fake.frame(), ['Wait for the rolling upgrade 0ms pods 1/3']);
    assert.equal(t.stderr(), '', 'progress is drawn, never printed line by line');
    reporter.emit({
      type: 'step-done',
      step: 'monitor',
      message: 'Wait for the rolling upgrade: rec runs 7.8.2-6 on 3 pods',
    });
    // The live lines are gone before the line that stays is written: no frame left behind.
    assert.deepEqual(fake.frame(), []);
    reporter.emit({ type: 'warning', step: 'monitor', message: 'slow' });
    reporter.emit({ type: 'done', message: 'upgrade to 7.8.2-6 complete' });
    reporter.close();
    assert.equal(
      t.stderr(),
      '✔ Wait for the rolling upgrade: rec runs 7.8.2-6 on 3 pods (0ms)\nwarning: slow\nupgrade to 7.8.2-6 complete\n',
    );
    assert.equal(fake.stops(), 1);
    reporter.emit({ type: 'step-start', step: 'databases', message: 'after the end' });
    assert.deepEqual(fake.frame(), [], 'nothing drawn after close');
  });

  it("the Linux console (TERM=linux) gets ASCII marks, from the command's environment", () => {
    const t = createTestIo({ stdin: { isTTY: true }, env: { TERM: 'linux' } });
    const reporter = new SpinnerReporter(t.io, fakeDisplay().display, at);
    reporter.emit({ type: 'step-start', step: 'monitor', message: 'Wait' });
    reporter.emit({ type: 'step-done', step: 'monitor', message: 'Wait: done' });
    reporter.emit({ type: 'step-start', step: 'databases', message: 'Upgrade the databases' });
    reporter.emit({ type: 'error', step: 'databases', message: 'refused' });
    reporter.close();
    assert.equal(t.stderr(), 'v Wait: done (0ms)\nx Upgrade the databases: refused\n');
  });

  it('a long step title is cut on a narrow terminal, never the elapsed time and progress after it', () => {
    const t = createTestIo({ stdin: { isTTY: true } });
    const fake = fakeDisplay();
    const reporter = new SpinnerReporter(t.io, fake.display, at);
    const title = 'Wait for the rolling upgrade, then remove an OpenShift SCC no longer needed';
    reporter.emit({ type: 'step-start', step: 'monitor', message: title });
    reporter.emit({
      type: 'progress',
      step: 'monitor',
      message: 'cluster Upgrade, pods 1/3 upgraded (rec-0 old)',
    });
    // 80 columns leave 77 for the text after the spinner (src/io/live-region.ts).
    // The region cuts the rest (cutLine): what stays on screen is the first 77 columns.
    const [line80 = ''] = fake.frame(77);
    assert.match(
      [...line80].slice(0, 77).join(''),
      /^Wait for the rolling upgrade, \S*… 0ms cluster Upgrade, pods 1\/3 upgraded \(rec/,
    );
    // 40 columns: a few words of the title, the time, the start of the progress (the region cuts it).
    assert.match(fake.frame(37)[0] ?? '', /^Wait for th… 0ms cluster Upgrade, pods 1\/3/);
    // Wide enough, the title is whole.
    assert.equal(fake.frame(200)[0], `${title} 0ms cluster Upgrade, pods 1/3 upgraded (rec-0 old)`);
    reporter.close();
  });

  it('a terminal shows 1,000 databases as counts and the slowest, in two lines at most', () => {
    // A fake terminal: stderr is a TTY (so the reporter animates); the fake display is the screen.
    const t = createTestIo({ stdin: { isTTY: true }, stderrIsTTY: true, env: { NO_COLOR: '1' } });
    let clock = Date.parse('2026-11-21T10:00:00.000Z');
    const now = () => new Date(clock);
    const fake = fakeDisplay();
    const reporter = createReporter(
      t.io,
      () => fake.display,
      now,
      () => ({ columns: 120, rows: 40 }),
    );
    assert.ok(reporter instanceof SizeGuardedReporter);
    const tally = new FanOutTally(1000, () => clock);
    const names = Array.from({ length: 1000 }, (_, i) => `ns-${i % 20}/db-${String(i + 1).padStart(4, '0')}`);
    const seen: (readonly string[])[] = [];
    const emit = (message: string) => {
      reporter.emit({ type: 'progress', step: 'databases', message, data: { fanOut: tally.snapshot() } });
      seen.push(fake.frame());
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
    reporter.emit({ type: 'step-done', step: 'databases', message: 'Upgrade the databases: 1000 upgraded' });
    reporter.close();

    assert.ok(seen.length >= 2000, 'every database reported its progress');
    assert.ok(Math.max(...seen.map((lines) => lines.length)) <= 2, 'never more than two live lines');
    const left = t.stderr().trimEnd().split('\n');
    assert.equal(left.length, 1, 'one line left on the screen for the step');
    assert.match(left[0] ?? '', /^✔ Upgrade the databases: 1000 upgraded \(/);
    const middle = seen[1000] ?? [];
    assert.match(
      middle[0] ?? '',
      /^Upgrade the databases \S+ \d+\/1000 done, 50 running, 0 failed, \d+ waiting$/,
    );
    // db-0001 started first and never finished until the end: it leads the slowest.
    assert.match(
      middle[1] ?? '',
      /^slowest: ns-0\/db-0001 \d+m\d\ds, ns-\d+\/db-\d+ \d+s, ns-\d+\/db-\d+ \d+s$/,
    );
    assert.match(
      seen.at(-1)?.[0] ?? '',
      /^Upgrade the databases \S+ 1000\/1000 done, 0 running, 0 failed, 0 waiting$/,
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
    const noWarning = (warning: string) => assert.fail(warning);
    assert.equal(
      writeStepSummary({}, 'x', (text) => text, noWarning),
      false,
    );
    assert.equal(
      writeStepSummary(
        { GITHUB_STEP_SUMMARY: file },
        renderSummaryMarkdown('ctl upgrade', rows),
        (text) => text,
        noWarning,
      ),
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

  // A FIFO there is driven through the built ctl, under a hang guard (test/e2e/github-actions.test.ts):
  // here a wait in open() would hold the whole test process.
  it('a step summary path that is no regular file: a warning, never a throw', () => {
    const dir = tempDir('ctl-gh-odd-');
    const cases: [string, RegExp][] = [
      [dir, /GITHUB_STEP_SUMMARY \S+ is a directory, not a regular file; the result above stands$/],
      ['/dev/null', /is a character device, not a regular file/],
    ];
    for (const [path, expected] of cases) {
      const warnings: string[] = [];
      assert.equal(
        writeStepSummary(
          { GITHUB_STEP_SUMMARY: path },
          '### x\n',
          (text) => text,
          (w) => warnings.push(w),
        ),
        false,
        path,
      );
      assert.equal(warnings.length, 1, path);
      assert.match(warnings[0] ?? '', /^the job summary was not written: /);
      assert.match(warnings[0] ?? '', expected);
    }
    // A missing file is created, as the runner's own `>>` would.
    const fresh = join(dir, 'fresh.md');
    assert.equal(
      writeStepSummary(
        { GITHUB_STEP_SUMMARY: fresh },
        '### y',
        (text) => text,
        (w) => assert.fail(w),
      ),
      true,
    );
    assert.equal(readFileSync(fresh, 'utf8'), '### y\n');
  });

  it('formats durations briefly', () => {
    assert.equal(formatDuration(950), '950ms');
    assert.equal(formatDuration(12_400), '12s');
    assert.equal(formatDuration(184_000), '3m04s');
    assert.equal(formatDuration(3_720_000), '1h02m');
  });
});
