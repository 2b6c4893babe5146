/**
 * The short test files of the other folders (end-to-end, reliability, simulator, worlds), run by
 * the whole suite several to a process (scripts/run-tests.mjs runs the group files in place of
 * theirs). A short end-to-end file's process spent about 1 s of CPU before its first test:
 * starting Node, loading the simulator and its certificates' library, compiling ctl's bundle for
 * its in-process runs. 77 files of under 10 s took 246 s of CPU in a process each and 170 s in
 * six, and every test passed both ways (docs/reliability.md, the eleventh round).
 *
 * Short means not in scripts/slow-test-files.json, the files of 7 s or more in a whole run: a long
 * file keeps its own process, which the run starts early beside the others. The runner keeps a
 * grouped file's time too (the sum of its tests'), so `node scripts/run-tests.mjs --slow-list`
 * lists a grouped file that has grown long, and it runs alone from then on. Naming a folder
 * (`node scripts/run-tests.mjs e2e`) runs each of its files in its own process.
 */

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { filesOfGroup, groupOfEach, importFiles, testFilesUnder } from '../helpers/file-groups.js';

const here = import.meta.dirname;
const testRoot = path.join(here, '..');
const repo = path.join(testRoot, '..', '..');
const slowList = path.join(repo, 'scripts', 'slow-test-files.json');
/** The folders of dist/test whose files never join these groups. */
const OWN_FOLDERS = new Set(['unit', 'unit-groups', 'short-files', 'upstream']);

/** The files (relative to dist/test) that these groups run: those of no other group, not long. */
export function shortFiles(): string[] {
  const long = new Set(Object.keys(JSON.parse(readFileSync(slowList, 'utf8')) as Record<string, number>));
  return testFilesUnder(testRoot).filter(
    (file) => !OWN_FOLDERS.has(file.split(path.sep)[0] ?? '') && !long.has(`dist/test/${file}`),
  );
}

/** Imports the short files of group `group` (1-based). */
export async function importShortGroup(group: number): Promise<void> {
  await importFiles(testRoot, filesOfGroup(shortFiles(), here, group));
}

/** The group file of each short file (absolute paths), for the runner's failures reporter. */
export function groupOfEachFile(): Map<string, string> {
  return groupOfEach(testRoot, shortFiles(), here);
}
