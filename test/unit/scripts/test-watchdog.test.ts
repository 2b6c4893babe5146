import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot, runTool } from '../../helpers/tools.js';
import { tempDir } from '../../helpers/temp.js';
import { childRunnerEnv } from '../../helpers/test-env.js';
import { hangGuardMs } from '../../helpers/wait.js';

/**
 * scripts/test-watchdog.mjs, preloaded into every test file's process: a file whose tests are done
 * but whose process a timer keeps alive fails soon after, and the failure names the timer and the
 * line that armed it (not only "Timeout"), so the file to mend is known. An unref'd timer holds
 * nothing and is not named. Here a file of this test's own is run by `node --test` with the
 * watchdog preloaded, as run-tests.mjs preloads it, and a grace of 200 ms instead of 10 s.
 */

const WATCHDOG = join(repoRoot, 'scripts', 'test-watchdog.mjs');

const LINGERING = [
  `import { test } from 'node:test';`,
  `test('leaves a timer armed', () => {`,
  `  setInterval(() => {}, 99_000).unref();`,
  `  setTimeout(() => {}, 100_000);`,
  `});`,
  '',
].join('\n');

test('a timer left armed after the last test fails the file, named with the line that armed it', async () => {
  const dir = tempDir('test-watchdog-');
  const file = join(dir, 'lingering.test.mjs');
  writeFileSync(file, LINGERING);
  const { code, stdout, stderr } = await runTool(
    process.execPath,
    ['--import', WATCHDOG, '--test', '--test-reporter=tap', file],
    { env: childRunnerEnv({ CTL_TEST_EXIT_GRACE_MS: '200' }), cwd: dir, timeoutMs: hangGuardMs(30_000) },
  );
  const output = stdout + stderr;
  assert.equal(code, 1, output);
  assert.match(output, /test-watchdog: .*lingering\.test\.mjs: every test finished 200 ms ago/);
  // The armed timer, with the test file's line 4 where it was made; the unref'd one not at all.
  assert.match(output, /timer of 100000 ms: \(\) => \{\}\n# +created at .*lingering\.test\.mjs:4:/);
  assert.doesNotMatch(output, /timer of 99000 ms/);
});
