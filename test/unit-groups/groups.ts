/**
 * The unit test files, run by the whole suite in a few processes instead of one each
 * (scripts/run-tests.mjs runs the group files in place of test/unit's own). A unit file's own
 * process spent most of its time loading the compiled sources (a median file 0.33 s of CPU, ~200
 * modules of dist/src and yaml's 72): one process for all 1,798 unit tests took 33 s of CPU
 * against 86 s in 184 processes, and every test passed (docs/reliability.md, the tenth round).
 * `node scripts/run-tests.mjs unit` (npm run test:unit) still runs each file in its own process.
 * There are as many groups as group-<n>.test.js files beside this one (../helpers/file-groups.ts).
 */

import path from 'node:path';
import { filesOfGroup, groupOfEach, importFiles, testFilesUnder } from '../helpers/file-groups.js';

const here = import.meta.dirname;
const unitRoot = path.join(here, '..', 'unit');

/** Imports the unit files of group `group` (1-based). */
export async function importUnitGroup(group: number): Promise<void> {
  await importFiles(unitRoot, filesOfGroup(testFilesUnder(unitRoot), here, group));
}

/** The group file of each unit file (absolute paths), for the runner's failures reporter. */
export function groupOfEachFile(): Map<string, string> {
  return groupOfEach(unitRoot, testFilesUnder(unitRoot), here);
}
