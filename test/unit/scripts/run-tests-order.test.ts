import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { repoRoot, runTool } from '../../helpers/tools.js';
import { tempDir } from '../../helpers/temp.js';
import { childRunnerEnv } from '../../helpers/test-env.js';
import { hangGuardMs } from '../../helpers/wait.js';

/**
 * scripts/run-tests.mjs starts the slowest files first, by the times of earlier runs, and its test
 * runner (scripts/run-test-files.mjs) keeps that order: `node --test` sorts its files by name, so
 * until 2026-12-03 the slowest files of unit-groups/ and worlds/ started last and ran on alone.
 * Here the real runner runs four files of this test's own, one at a time, whose names sort
 * against the order their times give; each writes its name into a log as it starts.
 */

const RUN_TESTS = join(repoRoot, 'scripts', 'run-tests.mjs');

const TEST_FILE = (name: string): string =>
  `import { appendFileSync } from 'node:fs';\n` +
  `import { test } from 'node:test';\n` +
  `test('${name} starts', () => { appendFileSync(process.env.ORDER_LOG, '${name}\\n'); });\n`;

test('run-tests.mjs starts the files slowest first, not by name', async () => {
  const dir = tempDir('run-tests-order-');
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  const log = join(dir, 'order.log');
  writeFileSync(log, '');
  // Seconds of the last run: d slowest, then b, then a; c has no time.
  const seconds: Record<string, number | undefined> = { a: 1, b: 2, c: undefined, d: 3 };
  const files: string[] = [];
  const times: Record<string, number> = {};
  for (const [name, s] of Object.entries(seconds)) {
    const file = join(dir, `${name}.test.js`);
    writeFileSync(file, TEST_FILE(name));
    files.push(file);
    if (s !== undefined) times[relative(repoRoot, file)] = s * 1000;
  }
  const timesFile = join(dir, 'times.json');
  writeFileSync(timesFile, JSON.stringify(times));

  const env = childRunnerEnv({
    TMPDIR: tmp,
    ORDER_LOG: log,
    CTL_TEST_TIMES_FILE: timesFile,
    CTL_TEST_CONCURRENCY: '1',
  });
  const { code, stdout, stderr } = await runTool(process.execPath, [RUN_TESTS, ...files], {
    env,
    timeoutMs: hangGuardMs(60_000),
  });
  const output = stdout + stderr;
  assert.equal(code, 0, output);
  // A file without a time starts first when the checkout has times (it may be a new, slow file).
  assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n'), ['c', 'd', 'b', 'a'], output);
  assert.match(output, /4 passed, 0 failed/);
});
