import { lstatSync, readlinkSync, realpathSync, type Stats, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
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

const MIB = 1024 * 1024;

/**
 * The most ctl reads of each file it is given and reads whole. Each is far more than ctl or
 * kubectl ever write there, and a bound on what a file handed over can cost: a sparse file
 * (`truncate -s 200M`) takes no disk, yet a 200 MB plan held 490 MB and a 200 MB kubeconfig
 * 3.5 GB and a minute of CPU before either was refused for what it held.
 */
export const INPUT_FILE_LIMITS = {
  /** A saved plan: as large as the state file may be (src/run/state.ts MAX_STATE_BYTES). */
  plan: 64 * MIB,
  /** A kubeconfig: thousands of contexts with their certificates inline. */
  kubeconfig: 16 * MIB,
  /** A fleet file: a list of contexts. */
  fleet: 4 * MIB,
  /** A scenario for `ctl sim up`: a capture of tens of thousands of databases. */
  scenario: 64 * MIB,
} as const;

/**
 * Refuses `path` when it is not a regular file, or, given `maxBytes`, when it is larger. An
 * `input` may be missing (the reader says so in its own words); an `output` may be missing too
 * (ctl creates it), but not be a FIFO, a device, a directory or a socket.
 */
export function checkFilePath(
  flag: string,
  path: string | undefined,
  role: PathRole,
  maxBytes?: number,
): void {
  if (path === undefined || path === '') return;
  const stats = statOrMissing(path);
  if (stats === undefined) return;
  if (!stats.isFile()) throw notRegularFile(flag, path, stats, role);
  if (maxBytes !== undefined && stats.size > maxBytes) throw tooLarge(flag, path, stats.size, maxBytes);
}

/**
 * A file ctl is given, read whole within `maxBytes`: refused as {@link checkFilePath} refuses it
 * (exit 2) before it is opened, its size measured again on the open file, and its length after
 * the read (it may grow meanwhile). A missing or unreadable file throws the fs error, for the
 * reader to word.
 */
export async function readInputFile(flag: string, path: string, maxBytes: number): Promise<string> {
  checkFilePath(flag, path, 'input', maxBytes);
  const handle = await open(path, 'r');
  try {
    const stats = await handle.stat();
    // The path may have been replaced between the check and the open: refused the same way.
    if (!stats.isFile()) throw notRegularFile(flag, path, stats, 'input');
    if (stats.size > maxBytes) throw tooLarge(flag, path, stats.size, maxBytes);
    const text = await handle.readFile('utf8');
    if (text.length > maxBytes) throw tooLarge(flag, path, text.length, maxBytes);
    return text;
  } finally {
    await handle.close();
  }
}

function notRegularFile(flag: string, path: string, stats: Stats, role: PathRole): UsageError {
  return new UsageError(`${flag} ${path} is ${describeKind(stats)}, not a regular file`, {
    hint:
      role === 'output'
        ? `ctl writes ${flag} as a regular file: give the path of a file, or of one that does not exist yet.`
        : `ctl reads ${flag} as a regular file: give the path of a file (for a pipe, save it to a file first).`,
  });
}

function tooLarge(flag: string, path: string, size: number, maxBytes: number): UsageError {
  const mib = (bytes: number) => `${Math.round((bytes / MIB) * 10) / 10} MiB`;
  return new UsageError(
    `${flag} ${path} is ${mib(size)}, more than the ${mib(maxBytes)} ctl reads of it; ctl did not read it`,
    { hint: `Check that ${path} is the file you meant: neither ctl nor kubectl writes one near that size.` },
  );
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
export function checkPathList(
  name: string,
  list: string | undefined,
  delimiter: string,
  maxBytes?: number,
): void {
  for (const file of (list ?? '').split(delimiter)) checkFilePath(name, file, 'input', maxBytes);
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
