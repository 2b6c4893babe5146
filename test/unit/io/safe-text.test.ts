/**
 * Issue 20: text from the cluster never drives the terminal or the CI log. Examples of each
 * escaping, then fast-check properties that feed arbitrary strings (full unicode, controls,
 * `\r\n`, `::`, `%`, escape sequences) through every renderer: text (spinner), plain, GitHub,
 * Markdown summary, NDJSON, the report, the state file and the plan. Each asserts that no control
 * character reaches the output and that no line is forged: the renderer writes exactly the lines
 * ctl itself writes.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { GitHubActionsReporter, writeStepSummary } from '../../../src/io/github.js';
import {
  JsonReporter,
  PlainReporter,
  type ProgressEvent,
  type LiveDisplay,
  SpinnerReporter,
} from '../../../src/io/progress.js';
import {
  hasUnsafeChar,
  markdownText,
  neutralizeWorkflowCommands,
  oneLine,
  quotedLines,
  safeJson,
  terminalText,
  workflowData,
  workflowProperty,
} from '../../../src/io/safe-text.js';
import { paint, renderStyled } from '../../../src/io/style.js';
import { createTestIo } from '../../../src/io/test-io.js';
import { renderPlan } from '../../../src/planning/render-plan.js';
import { newRunRecord, runReport, writeReportFile } from '../../../src/run/report.js';
import { newState, StateFile } from '../../../src/run/state.js';
import { renderSummaryMarkdown } from '../../../src/run/summary.js';
import { planUpgrade } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from '../planning/snapshot-fixture.js';

const RUNS = 300;
const at = () => new Date('2026-11-25T00:00:00.000Z');

/** What an attacker would try, mixed with anything fast-check thinks of. */
const NASTY = [
  '\u001b[2J',
  '\u001b[H',
  '\u001b]0;owned\u0007',
  '\u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\',
  '\u001b[31m',
  '\u009b31m',
  '\r',
  '\n',
  '\r\n',
  '\rforged line: upgrade complete',
  '\nforged line: upgrade complete',
  '::error::pwned',
  '\n::add-mask::x',
  '\n  ::stop-commands::t',
  '##[set-output name=x;]y',
  '%',
  '%0A',
  '%0D',
  ':',
  ',',
  '\u202e',
  '\u2066',
  '\u2028',
  '\u0000',
  '\u007f',
  '\u0008',
  '|',
  '[x](https://evil.example)',
  '![i](https://evil.example/i.png)',
  '<img src=x onerror=alert(1)>',
  '`',
  '# heading',
  '&lt;',
  '\t',
];
const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc
    .array(fc.oneof(fc.constantFrom(...NASTY), fc.string({ maxLength: 6 })), { maxLength: 8 })
    .map((parts) => parts.join('')),
);

/** ctl's own colour codes (src/io/style.ts), the only escape sequences it may write. */
const CTL_SGR = /\u001b\[(?:1|2|22|31|32|33|36|39)m/g;

function assertSafe(output: string, what: string): void {
  const bare = output.replace(CTL_SGR, '');
  assert.ok(
    !hasUnsafeChar(bare, true),
    `${what}: a control character reached the output: ${JSON.stringify(output)}`,
  );
}

function lines(text: string): string[] {
  return text.split('\n').filter((line, i, all) => i < all.length - 1 || line !== '');
}

/** A line the GitHub runner would obey (stdout and stderr are both read for commands). */
function isWorkflowCommand(line: string): boolean {
  return /^\s*::/.test(line.replace(CTL_SGR, '')) || line.includes('##[');
}

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ctl-safe-text-'));
  dirs.push(dir);
  return dir;
}

describe('safe text: each escaping', () => {
  it('shows controls escaped instead of obeying them', () => {
    assert.equal(oneLine('a\u001b[2Jb\rc\nd\u202ee\u009bf'), 'a\\x1b[2Jb\\rc\\nd\\u202ee\\x9bf');
    assert.equal(terminalText('a\nb\r\u0007'), 'a\nb\\r\\x07');
    assert.equal(oneLine('Ünïcødé 数据库 🚀'), 'Ünïcødé 数据库 🚀');
  });

  it('quotes a block of text (helm stderr) with its lines indented', () => {
    assert.equal(quotedLines('Error: x\r\nforged\u001b[2J'), 'Error: x\n  forged\\x1b[2J');
    fc.assert(
      fc.property(hostile, (value) => {
        const [, ...rest] = quotedLines(value).split('\n');
        assert.ok(!hasUnsafeChar(quotedLines(value), true));
        for (const line of rest) assert.match(line, /^ {2}/);
      }),
      { numRuns: RUNS },
    );
  });

  it('escapes workflow command data and properties the runner way', () => {
    assert.equal(workflowData('50%\r\n::error::x\u001b'), '50%25%0D%0A::error::x\\x1b');
    assert.equal(workflowProperty('a:b,c'), 'a%3Ab%2Cc');
    assert.equal(
      neutralizeWorkflowCommands('ok\n  ::error::x\n##[set-output]'),
      'ok\n  \\::error::x\n##\\[set-output]',
    );
  });

  it('escapes Markdown so a value makes no cell, link, image or HTML', () => {
    assert.equal(markdownText('a | b'), 'a \\| b');
    assert.equal(markdownText('[x](http://e)'), '\\[x\\]\\(http://e\\)');
    assert.equal(markdownText('<b>\n# h'), '\\<b\\>\\\\n\\# h');
  });

  it('keeps JSON the same value, with terminal-driving characters as \\u escapes', () => {
    const value = { name: 'a\u009b\u202e\u2028\u007f\n' };
    const text = safeJson(value);
    assert.deepEqual(JSON.parse(text), value);
    assert.ok(!hasUnsafeChar(text), text);
  });

  it('keeps ctl styling and escapes the same codes coming from a value', () => {
    const styled = `${paint.red('FAIL')} db \u001b[31mred\u001b[39m`;
    assert.equal(renderStyled(styled, true), '\u001b[31mFAIL\u001b[39m db \\x1b[31mred\\x1b[39m');
    assert.equal(renderStyled(styled, false), 'FAIL db \\x1b[31mred\\x1b[39m');
    // Nested styles re-open the outer one, as chalk does.
    assert.equal(
      renderStyled(paint.dim(`a ${paint.bold('b')} c`), true),
      '\u001b[2ma \u001b[1mb\u001b[22m\u001b[2m c\u001b[22m',
    );
  });
});

describe('safe text: every renderer, arbitrary strings (properties)', () => {
  it('the Io edge: info, warn, error, data, stderrWrite and hint write no control character', () => {
    fc.assert(
      fc.property(hostile, fc.boolean(), fc.boolean(), (value, color, github) => {
        const t = createTestIo({
          color,
          env: { ...(color ? { FORCE_COLOR: '1' } : {}), ...(github ? { GITHUB_ACTIONS: 'true' } : {}) },
        });
        t.io.info(`${t.io.color.bold('name')} ${value}`);
        t.io.warn(value);
        t.io.error(value);
        t.io.hint(value);
        t.io.stderrWrite(value);
        t.io.data(value);
        assertSafe(t.stderr(), 'stderr');
        assertSafe(t.stdout(), 'stdout');
        if (github) {
          assert.ok(
            !lines(t.stderr()).some(isWorkflowCommand),
            `a workflow command on stderr: ${JSON.stringify(t.stderr())}`,
          );
          assert.ok(
            !lines(t.stdout()).some(isWorkflowCommand),
            `a workflow command on stdout: ${JSON.stringify(t.stdout())}`,
          );
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('plain (CI, pipes): one line per event, the step and message escaped', () => {
    const oneLineTypes: ProgressEvent['type'][] = [
      'step-start',
      'progress',
      'step-done',
      'step-skip',
      'error',
      'done',
    ];
    fc.assert(
      fc.property(fc.constantFrom(...oneLineTypes), hostile, hostile, (type, step, message) => {
        const t = createTestIo({});
        new PlainReporter(t.io, at).emit({ type, step, message });
        assertSafe(t.stderr(), 'plain');
        assert.equal(lines(t.stderr()).length, 1, `forged line: ${JSON.stringify(t.stderr())}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('plain: a warning ctl writes over several lines starts no line at the margin but its first', () => {
    fc.assert(
      fc.property(hostile, hostile, (value, step) => {
        const t = createTestIo({ env: { GITHUB_ACTIONS: 'true' } });
        new PlainReporter(t.io, at).emit({ type: 'warning', step, message: `value ${value}:\n  a command` });
        assertSafe(t.stderr(), 'warning');
        const [first, ...rest] = lines(t.stderr());
        assert.match(first ?? '', /^warning: /);
        for (const line of rest) assert.match(line, /^ {2}/, `forged line: ${JSON.stringify(t.stderr())}`);
        assert.ok(!lines(t.stderr()).some(isWorkflowCommand));
      }),
      { numRuns: RUNS },
    );
  });

  it('text (a terminal): every live line is one line with no control character but ctl colours', () => {
    fc.assert(
      fc.property(fc.array(hostile, { minLength: 4, maxLength: 4 }), ([title, detail, skip, failure]) => {
        const texts: string[] = [];
        const t = createTestIo({ color: true, env: { FORCE_COLOR: '1' } });
        let frame: ((columns: number) => readonly string[]) | undefined;
        const display: LiveDisplay = {
          show: (next) => {
            frame = next;
          },
          stop: () => {
            frame = undefined;
          },
        };
        const draw = (): void => {
          // A narrow terminal's columns: the title is cut (src/io/progress.ts fitTitle).
          if (frame) texts.push(...frame(37));
        };
        const reporter = new SpinnerReporter(t.io, display, at);
        reporter.emit({ type: 'step-start', step: 'a', message: title! });
        draw();
        reporter.emit({ type: 'progress', step: 'a', message: detail! });
        draw();
        reporter.emit({ type: 'step-done', step: 'a', message: title! });
        reporter.emit({ type: 'step-start', step: 'b', message: title! });
        draw();
        reporter.emit({ type: 'step-skip', step: 'b', message: skip! });
        reporter.emit({ type: 'step-start', step: 'c', message: title! });
        reporter.emit({ type: 'error', step: 'c', message: failure! });
        reporter.emit({ type: 'done', message: detail! });
        reporter.close();
        for (const text of texts) {
          assertSafe(text, 'live line');
          assert.ok(!text.includes('\n'), `live line on two lines: ${JSON.stringify(text)}`);
        }
        assertSafe(t.stderr(), 'spinner stderr');
        // One line that stays per step (done, skipped, failed) and the run's last one: none forged.
        assert.equal(lines(t.stderr()).length, 4, `forged line: ${JSON.stringify(t.stderr())}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('GitHub: exactly the workflow commands ctl writes, the plain lines beside them', () => {
    fc.assert(
      fc.property(hostile, hostile, hostile, hostile, (step, title, warning, failure) => {
        const t = createTestIo({ env: { GITHUB_ACTIONS: 'true' } });
        const reporter = new GitHubActionsReporter(new PlainReporter(t.io, at), t.io);
        reporter.emit({ type: 'step-start', step, message: title });
        reporter.emit({ type: 'progress', step, message: warning });
        reporter.emit({ type: 'warning', step, message: warning });
        reporter.emit({ type: 'error', step, message: failure, data: { hint: warning } });
        reporter.close();
        const err = t.stderr();
        assertSafe(err, 'github');
        const commands = lines(err).filter(isWorkflowCommand);
        assert.deepEqual(
          commands.map((line) => /^::(\w+)/.exec(line)?.[1]),
          ['group', 'warning', 'error', 'endgroup'],
          `forged workflow command: ${JSON.stringify(err)}`,
        );
        for (const line of commands)
          assert.match(line, /^::(group|endgroup|warning|error)( title=ctl [^:,]*)?::/);
        assert.equal(t.stdout(), '');
      }),
      { numRuns: RUNS },
    );
  });

  it('the Markdown job summary: one row per step, four cells, no link, image or HTML', () => {
    const dir = tempDir();
    let n = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(hostile, hostile), { minLength: 1, maxLength: 4 }),
        hostile,
        (cells, title) => {
          const rows = cells.map(([id, message]) => ({
            id,
            title: 'x',
            result: 'failed' as const,
            durationMs: 0,
            message,
          }));
          const file = join(dir, `summary-${(n += 1)}.md`);
          writeStepSummary(
            { GITHUB_STEP_SUMMARY: file },
            renderSummaryMarkdown(`ctl upgrade: ${title}`, rows),
            (text) => text,
            (warning) => assert.fail(warning),
          );
          const text = readFileSync(file, 'utf8');
          assertSafe(text, 'summary');
          const out = lines(text);
          assert.equal(out.length, 4 + rows.length, `forged line: ${JSON.stringify(text)}`);
          for (const row of out.slice(4)) {
            // Unescaped pipes: the five that frame the four cells.
            assert.equal(row.replace(/\\./g, '').split('|').length - 1, 5, `forged cell: ${row}`);
            assert.ok(!/(^|[^\\])[[<`]/.test(row), `link, HTML or code: ${row}`);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('NDJSON: one line per event, the data kept exactly, no raw control character', () => {
    fc.assert(
      fc.property(hostile, hostile, fc.boolean(), (step, message, github) => {
        const t = createTestIo({ output: 'json', env: github ? { GITHUB_ACTIONS: 'true' } : {} });
        new JsonReporter(t.io, at).emit({ type: 'warning', step, message, data: { name: message } });
        const out = t.stdout();
        assert.equal(lines(out).length, 1);
        assert.ok(!hasUnsafeChar(out.slice(0, -1)), `raw control: ${JSON.stringify(out)}`);
        if (github) assert.ok(!isWorkflowCommand(out), out);
        assert.deepEqual(JSON.parse(out), {
          ts: at().toISOString(),
          type: 'warning',
          step,
          message,
          data: { name: message },
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('the report and the state file: the same strings back, no raw control character in the file', async () => {
    const dir = tempDir();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(hostile, hostile, async (cluster, message) => {
        n += 1;
        const record = newRunRecord(false, at());
        record.cluster = cluster;
        record.error = { message, exitCode: 1 };
        const report = runReport(record);
        const reportFile = join(dir, `report-${n}.json`);
        await writeReportFile(reportFile, report, (text) => text);
        const reportText = readFileSync(reportFile, 'utf8');
        assertSafe(reportText, 'report');
        assert.deepEqual(JSON.parse(reportText), JSON.parse(JSON.stringify(report)));

        const state = new StateFile(join(dir, `state-${n}.json`));
        const saved = await state.save(
          newState({ context: 'c', namespace: 'n', cluster }, { operator: '7.8.2-6' }, ['preflight']),
        );
        const stateText = readFileSync(state.path, 'utf8');
        assertSafe(stateText, 'state');
        assert.deepEqual(await state.load(), saved);
      }),
      { numRuns: 60 },
    );
  });

  it('the plan: names, modules and check messages from the cluster forge no line', () => {
    const benign = renderPlan(planUpgrade(makeSnapshot(), makeTarget()), false);
    fc.assert(
      fc.property(hostile, hostile, fc.boolean(), (database, module, color) => {
        const plan = planUpgrade(
          makeSnapshot((s) => {
            s.databases[0]!.name = database;
            s.databases[0]!.modules = [{ name: module, version: '2.8.4' }];
            s.api.bdbs = [
              {
                uid: 1,
                name: database,
                redis_version: '7.2',
                module_list: [{ module_name: module, semantic_version: '2.8.4' }],
              },
            ];
            s.api.modules = [];
          }),
          makeTarget(),
        );
        const text = renderPlan(plan, color ? paint : false);
        const shown = renderStyled(text, color);
        assertSafe(shown, 'plan');
        const expected = renderPlan(
          planUpgrade(
            makeSnapshot((s) => {
              s.databases[0]!.modules = [{ name: 'm', version: '2.8.4' }];
              s.api.bdbs = [
                {
                  uid: 1,
                  name: 'db1',
                  redis_version: '7.2',
                  module_list: [{ module_name: 'm', semantic_version: '2.8.4' }],
                },
              ];
              s.api.modules = [];
            }),
            makeTarget(),
          ),
          false,
        );
        assert.equal(lines(shown).length, lines(expected).length, `forged line:\n${shown}`);
        assert.ok(lines(benign).length > 10);
      }),
      { numRuns: 100 },
    );
  });
});
