import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { repoRoot, runTool } from '../../helpers/tools.js';
import { tempDir } from '../../helpers/temp.js';
import { childRunnerEnv } from '../../helpers/test-env.js';
import { hangGuardMs } from '../../helpers/wait.js';

/**
 * scripts/test-harness-hook.mjs, preloaded first into every test file's process: node:test's
 * async hook is made without its destroy callback (which made Node track every promise for its
 * collection), and what the hook is for still works: a test() called in a describe() after an
 * await finds its suite, and an uncaught error in a test's async code fails that test.
 */

const HOOK = join(repoRoot, 'scripts', 'test-harness-hook.mjs');

interface HookRecord {
  harnessHooks: number;
}

describe('node:test in a test file of the suite', async () => {
  // After an await in the suite's own function: the suite is found through the promises' ids.
  await nextTurn();

  it("runs with the harness's hook made without destroy, and a test after an await finds its suite", (t) => {
    const record = (globalThis as Record<symbol, HookRecord | undefined>)[
      Symbol.for('ctl.test-harness-hook')
    ];
    assert.ok(
      record,
      'scripts/test-harness-hook.mjs is not preloaded: scripts/run-tests.mjs passes it with --import',
    );
    assert.equal(record.harnessHooks, 1, "node:test's harness made its hook once, through the preload");
    assert.equal(t.fullName, 'node:test in a test file of the suite > ' + t.name);
  });
});

const THROWS_LATER = [
  `import { test } from 'node:test';`,
  `test('fails by an error thrown in its async code', async () => {`,
  `  await new Promise((resolve) => setImmediate(resolve));`,
  // The test ends on the turn after the throw: the error comes while it still runs.
  `  await new Promise((resolve) => setImmediate(() => {`,
  `    setImmediate(resolve);`,
  `    throw new Error('thrown on a later turn');`,
  `  }));`,
  `});`,
  `test('passes', () => {`,
  `  console.log('harness hooks: ' + globalThis[Symbol.for('ctl.test-harness-hook')].harnessHooks);`,
  `});`,
  '',
].join('\n');

it("an uncaught error in a test's async code still fails that test, not the file alone", async () => {
  const dir = tempDir('test-harness-hook-');
  const file = join(dir, 'throws-later.test.mjs');
  writeFileSync(file, THROWS_LATER);
  const { code, stdout, stderr } = await runTool(
    process.execPath,
    ['--import', HOOK, '--test', '--test-reporter=tap', file],
    { env: childRunnerEnv(), cwd: dir, timeoutMs: hangGuardMs(30_000) },
  );
  const output = stdout + stderr;
  assert.equal(code, 1, output);
  assert.match(
    output,
    /not ok 1 - fails by an error thrown in its async code\n[^]*?failureType: 'uncaughtException'[^]*?thrown on a later turn/,
  );
  assert.match(output, /\nok 2 - passes\n/);
  assert.match(output, /harness hooks: 1/);
  assert.doesNotMatch(output, /generated asynchronous activity after the test ended/);
});
