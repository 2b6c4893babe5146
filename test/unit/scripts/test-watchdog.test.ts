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
  `import { setTimeout as armTimer } from 'node:timers';`,
  `import { setTimeout as delay } from 'node:timers/promises';`,
  `test('leaves timers armed', () => {`,
  `  setInterval(() => {}, 99_000).unref();`,
  `  setTimeout(() => {}, 100_000);`,
  `  armTimer(() => {}, 100_001);`,
  `  void delay(100_002);`,
  `  setTimeout(() => {}, 1);`,
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
  // The armed timers, the global's and node:timers' (one function), each with the test file's
  // line where it was made; the unref'd one and the one that fired not at all; the promise
  // form's counted, not named (the watchdog wraps the functions, it has no async hook).
  assert.match(output, /timer of 100000 ms: \(\) => \{\}\n# +created at .*lingering\.test\.mjs:6:/);
  assert.match(output, /timer of 100001 ms: \(\) => \{\}\n# +created at .*lingering\.test\.mjs:7:/);
  assert.match(output, /1 timer\(s\) armed elsewhere \(node:timers\/promises, Node's own\): not named/);
  assert.doesNotMatch(output, /timer of 99000 ms|timer of 1 ms/);
});
