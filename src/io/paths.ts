import { lstatSync, readlinkSync, realpathSync, type Stats, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import {
  describeKind,
  FileTooLargeError,
  formatBytes,
  formatSizeOver,
  NotRegularFileError,
  readBoundedFile,
  readBoundedFileSync,
} from './bounded-file.js';

/**
 * The files ctl is given (`--state`, `--plan`, `--report`, `--password-file`, `--module-file`,
 * `--kubeconfig`, `--ca-file`, `--fleet` and their CTL_* and KUBECONFIG equivalents) must be
 * regular files, and no larger than ctl reads of them (./bounded-file.ts reads them). Opening a
 * FIFO blocks until someone writes to it, a device may never end, and a directory or socket
 * cannot be read as a file: each is refused here, at once, with exit 2. Only stat and lstat are
 * used, never open, so the check itself cannot hang.
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
  /**
   * A scenario for `ctl sim up` and `ctl demo`. The largest the tests make, `ctl sim capture` of
   * the built-in scale-10000 (10,000 databases, 100 modules), is 964 KiB; parsing it took 1.7 s
   * and 111 MiB (the yaml package, on the 2-core development machine, 2026-11-30). 8 MiB is eight
   * times that capture, tens of thousands of databases, and bounds the parse near 15 s and 1 GiB,
   * where 64 MiB would have allowed minutes and gigabytes.
   */
  scenario: 8 * MIB,
  /**
   * A module package for `--remediate` (`--module-file`, uploaded whole with POST /v2/modules):
   * a zip of the module's shared object and its module.json, tens of MB for the largest
   * (RediSearch with its vector libraries); far more than any, and what ctl holds in memory for
   * the upload.
   */
  moduleFile: 256 * MIB,
  /** A CA bundle (`--ca-file`, CTL_CA_FILE, CTL_PARTICIPANT_CA_FILE): the system's whole root store is ~220 KB. */
  caFile: 4 * MIB,
  /** `--password-file`: a password, as `--password-stdin` (src/api/credentials.ts STDIN_PASSWORD_LIMITS). */
  passwordFile: 64 * 1024,
  /**
   * A kubeconfig user's `token-file`, or its auth-provider's `tokenFile` (the in-cluster service
   * account's token is one): a bearer token, sent whole in every request's Authorization header.
   * A service account's JWT is about 1 KiB, an OIDC id-token with many groups claims a few KiB.
   * As the password file: 64 KiB, far more than any token, and far less than what a FIFO, a
   * device or a file named by mistake would cost on every request.
   */
  tokenFile: 64 * 1024,
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
  if (!stats.isFile()) throw notRegularFile(flag, path, describeKind(stats), role);
  if (maxBytes !== undefined && stats.size > maxBytes) throw tooLarge(flag, path, stats.size, maxBytes);
}

/**
 * A file ctl is given, read whole within `maxBytes` (./bounded-file.ts: a regular file, checked
 * before and after it is opened, the read itself stopped past the bound). Refused with exit 2,
 * naming `flag`; a missing or unreadable file throws the fs error, for the reader to word.
 */
export async function readInputFile(flag: string, path: string, maxBytes: number): Promise<string> {
  return (await readInputBytes(flag, path, maxBytes)).toString('utf8');
}

/**
 * {@link readInputFile} without the event loop, for a reader that cannot wait (the simulator's
 * scenario loader, src/sim/scenario.ts).
 */
export function readInputFileSync(flag: string, path: string, maxBytes: number): string {
  try {
    return readBoundedFileSync(path, maxBytes).toString('utf8');
  } catch (error) {
    throw inputFileError(flag, error, 'input');
  }
}

/** {@link readInputFile}'s bytes, for a file that is not text (a module package). */
export async function readInputBytes(flag: string, path: string, maxBytes: number): Promise<Buffer> {
  try {
    return await readBoundedFile(path, maxBytes);
  } catch (error) {
    throw inputFileError(flag, error, 'input');
  }
}

/**
 * A refusal of ./bounded-file.ts as the usage error (exit 2) that names the flag or variable
 * which gave the file and what to do; any other error as it is.
 */
export function inputFileError(flag: string, error: unknown, role: PathRole = 'input'): unknown {
  if (error instanceof NotRegularFileError) return notRegularFile(flag, error.path, error.kind, role);
  if (error instanceof FileTooLargeError) return tooLarge(flag, error.path, error.size, error.maxBytes);
  return error;
}

function notRegularFile(flag: string, path: string, kind: string, role: PathRole): UsageError {
  return new UsageError(`${flag} ${path} is ${kind}, not a regular file`, {
    hint:
      role === 'output'
        ? `ctl writes ${flag} as a regular file: give the path of a file, or of one that does not exist yet.`
        : `ctl reads ${flag} as a regular file: give the path of a file (for a pipe, save it to a file first).`,
  });
}

function tooLarge(flag: string, path: string, size: number | undefined, maxBytes: number): UsageError {
  // undefined: stat said less, and the read found more (the file grew, or stat cannot tell).
  return new UsageError(
    size === undefined
      ? `${flag} ${path} holds more than the ${formatBytes(maxBytes)} ctl reads of it; ctl read no further`
      : `${flag} ${path} is ${formatSizeOver(size, maxBytes)}, more than the ${formatBytes(maxBytes)} ctl reads of it; ctl did not read it`,
    {
      hint: `Check that ${path} is the file you meant: ${formatBytes(maxBytes)} is far more than ${flag} ever needs.`,
    },
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
