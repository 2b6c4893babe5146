import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/**
 * A new empty folder under the system's temporary folder (the run's own, TMPDIR, under
 * scripts/run-tests.mjs), removed with everything in it when the test process exits, passing or
 * failing: for tests that hand a folder to code that outlives the test body.
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (made.length === 0) {
    process.once('exit', () => {
      for (const path of made) rmSync(path, { recursive: true, force: true });
    });
  }
  made.push(dir);
  return dir;
}
