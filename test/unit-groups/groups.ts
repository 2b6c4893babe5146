/**
 * The unit test files, run by the whole suite in UNIT_GROUPS processes instead of one each
 * (scripts/run-tests.mjs runs the group files in place of test/unit's own). A unit file's own
 * process spent most of its time loading the compiled sources (a median file 0.33 s of CPU, ~200
 * modules of dist/src and yaml's 72): one process for all 1,798 unit tests took 33 s of CPU
 * against 86 s in 184 processes, and every test passed (docs/reliability.md, the tenth round).
 * A group imports its files one after another; their tests run as they would in a file of their
 * own, and a failure names the file that defines the test. `node scripts/run-tests.mjs unit`
 * (npm run test:unit) still runs each file in its own process.
 */

import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** How many processes the unit files share: each about a quarter of them, 20-30 s alone. */
export const UNIT_GROUPS = 4;

const unitRoot = path.join(import.meta.dirname, '..', 'unit');

/** Every compiled unit test file, in the order of their paths. */
export function unitTestFiles(dir = unitRoot): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) return unitTestFiles(file);
      return name.endsWith('.test.js') ? [file] : [];
    });
}

/** The files of group `group` (1 to UNIT_GROUPS): every UNIT_GROUPS-th file of the sorted list. */
export function unitGroupFiles(group: number, files = unitTestFiles()): string[] {
  return files.filter((_, index) => index % UNIT_GROUPS === group - 1);
}

/** Imports the files of group `group`, one after another, so their tests run in this process. */
export async function importUnitGroup(group: number): Promise<void> {
  for (const file of unitGroupFiles(group)) await import(pathToFileURL(file).href);
}
