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
 * The files of group `group` (1-based): every n-th of `files`, n the number of group-<n>.test.js
 * files in `groupsFolder`, so that a group file added or removed shares the files out again and
 * none is left without a group.
 */
export function filesOfGroup(files: readonly string[], groupsFolder: string, group: number): string[] {
  const groups = groupCount(groupsFolder);
  return files.filter((_, index) => index % groups === group - 1);
}

function groupCount(groupsFolder: string): number {
  return readdirSync(groupsFolder).filter((name) => /^group-\d+\.test\.js$/.test(name)).length;
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
  const groups = groupCount(groupsFolder);
  return new Map(
    files.map((file, index) => [
      path.join(root, file),
      path.join(groupsFolder, `group-${(index % groups) + 1}.test.js`),
    ]),
  );
}

/** Imports each file (relative to `root`) in turn, so that their tests run in this process. */
export async function importFiles(root: string, files: readonly string[]): Promise<void> {
  for (const file of files) await import(pathToFileURL(path.join(root, file)).href);
}
