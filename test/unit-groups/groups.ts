/**
 * The unit test files, run by the whole suite in a few processes instead of one each
 * (scripts/run-tests.mjs runs the group files in place of test/unit's own). A unit file's own
 * process spent most of its time loading the compiled sources (a median file 0.33 s of CPU, ~200
 * modules of dist/src and yaml's 72): one process for all 1,798 unit tests took 33 s of CPU
 * against 86 s in 184 processes, and every test passed (docs/reliability.md, the tenth round).
 * A group imports its files one after another; their tests run as they would in a file of their
 * own, and a failure names the file that defines the test. `node scripts/run-tests.mjs unit`
 * (npm run test:unit) still runs each file in its own process.
 *
 * There are as many groups as group-<n>.test.js files beside this one, so a file added or
 * removed there shares the unit files out again, and no unit file is left without a group.
 */

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const here = import.meta.dirname;
const unitRoot = path.join(here, '..', 'unit');

/** Imports every n-th unit file (n the number of groups), from the `group`-th on (1-based). */
export async function importUnitGroup(group: number): Promise<void> {
  const groups = readdirSync(here).filter((name) => /^group-\d+\.test\.js$/.test(name)).length;
  const files = readdirSync(unitRoot, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.js'))
    .sort();
  for (const [index, file] of files.entries()) {
    if (index % groups === group - 1) await import(pathToFileURL(path.join(unitRoot, file)).href);
  }
}
