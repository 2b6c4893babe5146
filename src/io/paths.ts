import { lstatSync, readlinkSync, realpathSync, type Stats, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../errors.js';

/**
 * The files ctl is given (`--state`, `--plan`, `--report`, `--password-file`, `--module-file`,
 * `--kubeconfig`, `--ca-file`, `--fleet` and their CTL_* and KUBECONFIG equivalents) must be
 * regular files. Opening a FIFO blocks until someone writes to it, a device may never end, and a
 * directory or socket cannot be read as a file: each is refused here, at once, with exit 2. Only
 * stat and lstat are used, never open, so the check itself cannot hang.
 *
 * Symbolic links are followed (a Kubernetes Secret mounted as files is a tree of links); the file
 * they lead to is what must be regular. The state file is the one case where the link is also
 * resolved: its lock is the state's path plus `.lock`, so two links to one state must share one
 * lock, and the real path is what ctl then uses (docs/troubleshooting.md).
 */

export type PathRole = 'input' | 'output';

/**
 * Refuses `path` when it is not a regular file. An `input` may be missing (the reader says so in
 * its own words); an `output` may be missing too (ctl creates it), but not be a FIFO, a device, a
 * directory or a socket.
 */
export function checkFilePath(flag: string, path: string | undefined, role: PathRole): void {
  if (path === undefined || path === '') return;
  const stats = statOrMissing(path);
  if (stats === undefined || stats.isFile()) return;
  throw new UsageError(`${flag} ${path} is ${describeKind(stats)}, not a regular file`, {
    hint:
      role === 'output'
        ? `ctl writes ${flag} as a regular file: give the path of a file, or of one that does not exist yet.`
        : `ctl reads ${flag} as a regular file: give the path of a file (for a pipe, save it to a file first).`,
  });
}

/**
 * The state file's path: refused like any output when it is not a regular file, and a symbolic
 * link replaced by the path it leads to, so the lock beside it is the same for every link.
 */
export function resolveStatePath(flag: string, path: string | undefined, depth = 0): string | undefined {
  if (path === undefined || path === '') return path;
  if (depth > 8) {
    throw new UsageError(`${flag} ${path}: a loop of symbolic links`, {
      hint: `Give the state file's real path to ${flag}.`,
    });
  }
  checkFilePath(flag, path, 'output');
  let link: Stats;
  try {
    link = lstatSync(path);
  } catch {
    return path;
  }
  if (!link.isSymbolicLink()) return path;
  try {
    return realpathSync(path);
  } catch {
    // A link to a state file that does not exist yet (a first run): it will be written where the
    // link leads, which must itself be a place for a regular file.
    const target = resolve(dirname(path), readlinkSync(path));
    return resolveStatePath(flag, target, depth + 1);
  }
}

/** `KUBECONFIG`: a list of files, each checked like `--kubeconfig`; missing ones are skipped. */
export function checkPathList(name: string, list: string | undefined, delimiter: string): void {
  for (const file of (list ?? '').split(delimiter)) checkFilePath(name, file, 'input');
}

function statOrMissing(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    // Missing, a loop of links, a file used as a folder, no permission: the reader or writer
    // meets the same error and says so in its own words (exit 1); nothing here can block.
    return undefined;
  }
}

function describeKind(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}
