import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { currentProcess, isGoneHere } from './process-identity.js';

/**
 * The state file's atomic replace: a private temp file beside it, written, fsynced, renamed over
 * it, then the folder fsynced. The temp file's name says whose it is,
 * `<file>.<random>.<pid>@<host>.tmp`, so a later run can tell a temp file left by a killed
 * writer from one a live writer is still filling (issue 28: a reader that removed every
 * `<file>.<digits>` broke a running upgrade's save and deleted a user's `rec.json.1`).
 *
 * The calls go through node:fs's callback API, looked up at call time, so the crash trials'
 * preload (test/reliability/crash-preload.ts) can kill the process inside a write.
 */

export async function writeFileAtomically(path: string, text: string): Promise<void> {
  const temp = await writeTempBeside(path, text);
  try {
    await call((cb) => fs.rename(temp, path, cb));
  } catch (error) {
    await call((cb) => fs.unlink(temp, cb)).catch(() => undefined);
    throw error;
  }
  fsyncDirectory(dirname(path));
}

/**
 * A file that must not exist yet, complete or not at all (the preflight backup): written to a
 * temp file first, then linked to its name, which fails when the name exists, so an existing
 * file is never replaced and a write torn by a full disk or a kill never appears under the name.
 * False when the name exists. Where hard links are refused (some network file systems), a rename
 * after a check for the name does the same but for a race no ctl run has (the lock is held).
 */
export async function writeNewFileAtomically(
  path: string,
  text: string | Buffer,
  /** The new file's mode, exact whatever the umask. */
  mode = 0o600,
): Promise<boolean> {
  const temp = await writeTempBeside(path, text, mode);
  try {
    try {
      await call((cb) => fs.link(temp, path, cb));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
      if (fs.existsSync(path)) return false;
      await call((cb) => fs.rename(temp, path, cb));
    }
  } finally {
    await call((cb) => fs.unlink(temp, cb)).catch(() => undefined);
  }
  fsyncDirectory(dirname(path));
  return true;
}

/** Writes `text` to a private, synced temp file beside `path` (named as above) and returns its path. */
async function writeTempBeside(path: string, text: string | Buffer, mode = 0o600): Promise<string> {
  const me = currentProcess();
  const temp = `${path}.${randomUUID()}.${me.pid}@${me.host}.tmp`;
  // Private while it is written; given its mode once whole.
  const fd = await call<number>((cb) => fs.open(temp, 'wx', 0o600, cb));
  try {
    const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    // A string is written as a string: the crash trials tear exactly that write
    // (test/reliability/crash-preload.ts).
    let written = await call<number>((cb) =>
      typeof text === 'string'
        ? fs.write(fd, text, (error, n) => cb(error, n))
        : fs.write(fd, text, (error, n) => cb(error, n)),
    );
    // A short write (rare on a local file) is finished from the bytes.
    while (written < bytes.length) {
      const rest = bytes.subarray(written);
      written += await call<number>((cb) => fs.write(fd, rest, (error, n) => cb(error, n)));
    }
    // The mode is exact whatever the umask.
    await call((cb) => fs.fchmod(fd, mode, cb));
    await call((cb) => fs.fsync(fd, cb));
  } catch (error) {
    await call((cb) => fs.close(fd, cb)).catch(() => undefined);
    await call((cb) => fs.unlink(temp, cb)).catch(() => undefined);
    throw error;
  }
  await call((cb) => fs.close(fd, cb));
  return temp;
}

/** `<random uuid>.<pid>@<host>.tmp` after the state file's name. */
const TEMP_SUFFIX = /^[0-9a-f-]{36}\.(\d+)@([^/]+)\.tmp$/;

/**
 * Removes the temp files of this state file whose writer is gone (judged on this host and PID
 * namespace, as the lock is). Call it only while holding the lock: then no other ctl writes this
 * state file, and a temp file of a live process (another PID namespace) is left alone. Any other
 * file beside the state file is never touched.
 */
export async function removeAbandonedTempFiles(path: string): Promise<string[]> {
  const dir = dirname(path);
  const prefix = `${basename(path)}.`;
  const names = await fs.promises.readdir(dir).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const named = name.startsWith(prefix) ? TEMP_SUFFIX.exec(name.slice(prefix.length)) : null;
    if (!named) continue;
    const owner = {
      pid: Number(named[1]),
      host: named[2] ?? '',
      pidStart: undefined,
      pidNamespace: undefined,
    };
    if (owner.pid === process.pid && owner.host === currentProcess().host) continue;
    if (!isGoneHere(owner, 'same')) continue;
    await fs.promises.unlink(join(dir, name)).then(
      () => removed.push(name),
      () => undefined,
    );
  }
  return removed;
}

/** Makes a completed rename durable: without it a power loss can undo the rename. */
function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a directory; the rename itself already happened.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function call<T = void>(
  run: (callback: (error: NodeJS.ErrnoException | null, value?: T) => void) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    run((error, value) => (error ? reject(error) : resolve(value as T)));
  });
}
