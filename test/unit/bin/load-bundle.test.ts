import assert from 'node:assert/strict';
import { dirname, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface Reach {
  exit: number;
  scripts: number;
}
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const { reachesFurther } = (await import(pathToFileURL(resolve(repoRoot, 'bin', 'load-bundle.js')).href)) as {
  reachesFurther(run: Reach, writer: Reach): boolean;
};

/**
 * bin/load-bundle.js: when a run writes its command's code caches again over those another run
 * wrote (docs/performance.md, "A code cache of whole runs"). The e2e side (a failed first plan,
 * then a whole one) is test/e2e/code-cache.test.ts; here, every order of runs.
 */
describe('the code cache: which run writes the caches again', () => {
  const none: Reach = { exit: -1, scripts: 0 };

  it('the first run of a command writes them, whatever it ends with', () => {
    assert.equal(reachesFurther({ exit: 0, scripts: 70 }, none), true);
    assert.equal(reachesFurther({ exit: 2, scripts: 40 }, none), true);
  });

  it('a run that ends with 0 after one that failed writes them, even with fewer scripts', () => {
    assert.equal(reachesFurther({ exit: 0, scripts: 60 }, { exit: 2, scripts: 75 }), true);
    assert.equal(reachesFurther({ exit: 0, scripts: 60 }, { exit: 3, scripts: 60 }), true);
  });

  it('a failed run never writes over the caches of one that ended with 0', () => {
    assert.equal(reachesFurther({ exit: 1, scripts: 90 }, { exit: 0, scripts: 70 }), false);
    assert.equal(reachesFurther({ exit: 3, scripts: 70 }, { exit: 0, scripts: 70 }), false);
  });

  it('among runs that end alike, only one that ran more scripts', () => {
    assert.equal(reachesFurther({ exit: 0, scripts: 71 }, { exit: 0, scripts: 70 }), true);
    assert.equal(reachesFurther({ exit: 0, scripts: 70 }, { exit: 0, scripts: 70 }), false);
    assert.equal(reachesFurther({ exit: 0, scripts: 65 }, { exit: 0, scripts: 70 }), false);
    assert.equal(reachesFurther({ exit: 3, scripts: 72 }, { exit: 2, scripts: 70 }), true);
    assert.equal(reachesFurther({ exit: 2, scripts: 70 }, { exit: 3, scripts: 70 }), false);
  });

  it('any sequence of runs writes them again a bounded number of times', () => {
    // The writer's record only moves forward: each write needs a run further than the last.
    let writer = none;
    let writes = 0;
    for (let i = 0; i < 1000; i += 1) {
      const run = { exit: [0, 1, 2, 3][i % 4]!, scripts: 60 + ((i * 7) % 20) };
      if (reachesFurther(run, writer)) {
        writer = run;
        writes += 1;
      }
    }
    assert.ok(writes <= 1 + 20 + 20, `at most one per step of the order (${writes})`);
  });
});
