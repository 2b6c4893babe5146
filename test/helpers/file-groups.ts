import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Test files run several to a process (test/unit-groups/, test/short-files/): a file's own
 * process spends most of a short file's time loading what every file loads (the compiled sources,
 * the simulator, yaml), so the whole run shares those processes out (docs/reliability.md, the
 * tenth and eleventh rounds). A group imports its files one after another; their tests run as
 * they would in a file of their own, and a failure names the file that defines the test.
 */

/** Every `.test.js` file under `root`, as paths relative to it, in the order of their paths. */
export function testFilesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.js'))
    .sort();
}

/**
 * The group-<n>.test.js files in `groupsFolder`: as many groups as there are of them, so that a
 * group file added or removed shares the files out again and none is left without a group.
 */
export function groupFileNames(groupsFolder: string): string[] {
  return readdirSync(groupsFolder).filter((name) => /^group-\d+\.test\.js$/.test(name));
}

/** The group number (1-based) of each of `files`: every n-th file to the same group. */
function shareOut(files: readonly string[], groupsFolder: string): [file: string, group: number][] {
  const groups = groupFileNames(groupsFolder).length;
  return files.map((file, index) => [file, (index % groups) + 1]);
}

/** The files of group `group` (1-based). */
export function filesOfGroup(files: readonly string[], groupsFolder: string, group: number): string[] {
  return shareOut(files, groupsFolder)
    .filter(([, of]) => of === group)
    .map(([file]) => file);
}

/**
 * The group file of each of `files` (relative to `root`), both as absolute paths: where the
 * runner's failures reporter finds the output of a grouped test (its group's process wrote it).
 */
export function groupOfEach(
  root: string,
  files: readonly string[],
  groupsFolder: string,
): Map<string, string> {
  return new Map(
    shareOut(files, groupsFolder).map(([file, group]) => [
      path.join(root, file),
      path.join(groupsFolder, `group-${group}.test.js`),
    ]),
  );
}

/** Imports each file (relative to `root`) in turn, so that their tests run in this process. */
export async function importFiles(root: string, files: readonly string[]): Promise<void> {
  for (const file of files) await import(pathToFileURL(path.join(root, file)).href);
}
