import { randomUUID } from 'node:crypto';
import {
  currentProcess,
  isGoneHere,
  isJudgedHere,
  ownerElsewhere,
  type ProcessIdentity,
} from './process-identity.js';
import { link, mkdir, open, readdir, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { describeKind, readBoundedText } from '../io/bounded-file.js';
import { makeDirectories } from '../io/make-directories.js';
import { basename, dirname, join, resolve } from 'node:path';
import { LockedError, OperationError } from '../errors.js';
import { commandFor, DEFAULT_KUBE_TARGET, type KubeTarget } from '../kube/kube-target.js';
import { shellQuote } from '../io/shell-words.js';

/**
 * One upgrade of a cluster at a time: an exclusive lock file next to the state file, holding
 * who owns it. A lock whose owner process is gone (same host, dead pid or a reused pid) is stale
 * and taken over, so a SIGKILLed run never blocks the next one. No secret is ever written here.
 */
export interface LockOwner extends ProcessIdentity {
  id: string;
  operation: string;
  createdAt: string;
}

export interface HeldLock {
  owner: LockOwner;
  release(): Promise<void>;
}

export function lockPathFor(statePath: string): string {
  return `${statePath}.lock`;
}

/**
 * `ctl upgrade status` or `unlock` of the state file at `statePath`, for a hint to paste. It names
 * the file, absolute: without --state they look for the default file of the kubeconfig's context
 * and namespace, which is another file after a run with --state or -n (unlock then exits 2 and
 * unlocks nothing; status shows another run's state, or none).
 */
export function stateFileCommand(
  statePath: string,
  target: KubeTarget,
  subcommand: 'status' | 'unlock',
  ...words: string[]
): string {
  return commandFor('ctl', target, 'upgrade', subcommand, ...words, '--state', resolve(statePath));
}

/** The state file whose lock is at `lockPath` (lockPathFor). */
function statePathOf(lockPath: string): string {
  return lockPath.endsWith('.lock') ? lockPath.slice(0, -'.lock'.length) : lockPath;
}

/** The `ctl upgrade unlock` of this lock, for a hint to paste (stateFileCommand). */
function unlockCommand(lockPath: string, target: KubeTarget, ...words: string[]): string {
  return stateFileCommand(statePathOf(lockPath), target, 'unlock', ...words);
}

/**
 * `target`: the kubeconfig and context ctl was given, named by the `ctl upgrade unlock` a hint
 * prints (src/kube/kube-target.ts): the default state file's path depends on the context.
 */
export async function acquireLock(
  lockPath: string,
  operation: string,
  target: KubeTarget = DEFAULT_KUBE_TARGET,
): Promise<HeldLock> {
  await makeDirectories(dirname(lockPath), 0o700).catch((error: unknown) => {
    throw new OperationError(`cannot create the folder of ${lockPath}: ${(error as Error).message}`, {
      hint: 'Pass a state file in a folder you can write with --state.',
    });
  });
  const owner: LockOwner = {
    id: randomUUID(),
    ...currentProcess(),
    operation,
    createdAt: new Date().toISOString(),
  };
  await removeAbandonedTempFiles(lockPath);
  for (let attempt = 0; attempt < 5; attempt += 1) {
    if (await createLockFile(lockPath, owner)) {
      await removeLeftoverTakeover(lockPath);
      return { owner, release: () => releaseLock(lockPath, owner.id) };
    }
    const current = await readLock(lockPath);
    if (!current) await refuseOddLock(lockPath);
    if (current && !isStale(current)) {
      throw new LockedError(`another upgrade of this cluster is running: ${describeOwner(current)}`, {
        hint: heldLockHint(current, lockPath, target),
      });
    }
    // An unreadable lock is only abandoned once it is old: never judge a lock being created.
    if (!current && !(await isOlderThan(lockPath, UNREADABLE_LOCK_GRACE_MS))) {
      throw new LockedError(`the lock ${lockPath} exists but cannot be read`, {
        hint: `Another run may be starting. Try again in a few seconds; if it persists, run: ${unlockCommand(lockPath, target, '--force')}`,
      });
    }
    await removeStaleLock(lockPath, current);
  }
  throw new LockedError(`could not take the lock ${lockPath}: other runs keep taking it`, {
    hint: 'Make sure only one ctl upgrade runs for this cluster, then try again.',
  });
}

/**
 * What to do about a lock that is not stale. Its owner judged here runs now: once it is gone,
 * unlock removes its lock without --force (forceUnlock). An owner elsewhere is never judged gone
 * from here, so unlock refuses it without --force: the hint says so, and where to look first.
 */
function heldLockHint(owner: LockOwner, lockPath: string, target: KubeTarget): string {
  if (isJudgedHere(owner, 'same')) {
    return `Wait for it to finish. If that process is gone for good, run: ${unlockCommand(lockPath, target, '--lock-id', owner.id)}`;
  }
  return `Wait for it to finish. ctl cannot tell from here whether it still runs (it was started ${ownerElsewhere(owner)}); once you are sure it is not running there, run: ${unlockCommand(lockPath, target, '--lock-id', owner.id, '--force')}`;
}

/**
 * A folder, a FIFO or a device where the lock goes is nothing a run left: no wait turns it into a
 * lock, and removing it is not ctl's to do. Said at once (exit 1) instead of waiting out the
 * grace of an unreadable lock and then failing to remove it.
 */
async function refuseOddLock(lockPath: string): Promise<void> {
  const stats = await stat(lockPath).catch(() => undefined);
  if (stats === undefined || stats.isFile()) return;
  throw new OperationError(
    `the lock ${lockPath} is ${describeKind(stats)}, not a regular file: ctl cannot take it`,
    {
      hint: `Move it aside (it is not ctl's), or pass a state file in another place with --state.`,
    },
  );
}

/** How old an unreadable lock file must be before it counts as left behind by a crash. */
const UNREADABLE_LOCK_GRACE_MS = 10_000;

/** How to look at the folder of a lock file ctl cannot create: its path, quoted. */
function folderHint(lockPath: string): string {
  return `Check that the folder of the state file exists and is yours to write (ls -ld ${shellQuote(dirname(lockPath))}), or pass a state file in another folder with --state.`;
}

/**
 * Creates the lock file with its whole content in one step: the owner is written to a private
 * temp file, which is then hard-linked to the lock path (link fails if the path exists). So no
 * other run can ever see the lock empty or half written and mistake it for a crashed one.
 */
async function createLockFile(lockPath: string, owner: LockOwner): Promise<boolean> {
  const temp = tempLockPath(lockPath, owner);
  const handle = await open(temp, 'wx', 0o600).catch((error: Error) => {
    throw new OperationError(`cannot create the lock file ${lockPath}: ${error.message}`, {
      hint: folderHint(lockPath),
    });
  });
  try {
    await handle.writeFile(`${JSON.stringify(owner, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new OperationError(`cannot create the lock file ${lockPath}: ${(error as Error).message}`, {
      hint: folderHint(lockPath),
    });
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/**
 * `<lock>.<id>.<pid>@<host>.tmp`: the name says whose it is, because a run killed right after
 * creating it leaves it empty, and an empty file cannot say.
 */
function tempLockPath(lockPath: string, owner: LockOwner): string {
  return `${lockPath}.${owner.id}.${owner.pid}@${owner.host}.tmp`;
}

/** `<id>.<pid>@<host>.tmp`, and `<id>.tmp` from versions that did not name the process. */
const TEMP_SUFFIX = /^[0-9a-f-]{36}(?:\.(\d+)@([^/]+))?\.tmp$/;

/**
 * A run killed while it created its lock leaves its temp file behind (createLockFile). Such a
 * file is removed once its owner is gone, judged from its content or, when it is empty or torn,
 * from the pid and host in its name (else once it is old); a live run's is left alone. A pid
 * judged in this PID namespace may live in another one sharing the folder: removing that run's
 * temp file in the milliseconds before its link makes its lock attempt fail with an error,
 * never two runs at once.
 */
async function removeAbandonedTempFiles(lockPath: string): Promise<void> {
  const dir = dirname(lockPath);
  const prefix = `${basename(lockPath)}.`;
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const named = name.startsWith(prefix) ? TEMP_SUFFIX.exec(name.slice(prefix.length)) : null;
    if (!named) continue;
    const file = join(dir, name);
    const owner = await readLock(file);
    const [, pid, host] = named;
    const abandoned = owner
      ? isStale(owner)
      : pid && host
        ? isGoneHere({ pid: Number(pid), host, pidStart: undefined, pidNamespace: undefined }, 'same') ||
          (await isOlderThan(file, UNREADABLE_LOCK_GRACE_MS))
        : await isOlderThan(file, UNREADABLE_LOCK_GRACE_MS);
    if (abandoned) await unlink(file).catch(() => undefined);
  }
}

async function isOlderThan(path: string, ms: number): Promise<boolean> {
  return stat(path).then(
    (s) => Date.now() - s.mtimeMs > ms,
    () => true,
  );
}

/**
 * A run killed inside removeStaleLock leaves its takeover folder. Once this run holds the lock,
 * any takeover folder is left over or belongs to a run that judged an older lock: that run
 * removes only the lock it judged (by id), never this one. So the folder goes unless a live
 * taker is still in it (rmdir fails then; that taker removes it as it leaves).
 */
async function removeLeftoverTakeover(lockPath: string): Promise<void> {
  const takeover = `${lockPath}.takeover`;
  for (const { file, taker } of await takersIn(takeover)) {
    if (isGoneHere(taker, 'same')) await unlink(file).catch(() => undefined);
  }
  await rmdir(takeover).catch(() => undefined);
}

/**
 * How long a takeover may take before its folder counts as left behind. A takeover is a few
 * syscalls; a run killed inside it leaves the folder, and its marker (takerMarker) says so at once,
 * so only a folder without one (a run killed between its mkdir and its marker, or a ctl from
 * before the markers) is waited for this long.
 */
const TAKEOVER_GRACE_MS = 10_000;
const TAKEOVER_POLL_MS = 50;

/**
 * Two runs may judge the same lock stale at once. Only the one that creates the takeover
 * folder (mkdir is atomic) removes the lock, and only if it is still the lock it judged, so a
 * fresh lock taken by the other run in between is never removed. A run that finds the folder
 * waits for that takeover to end (awaitTakeover), so a resume started right after a run was
 * killed mid-takeover goes on instead of giving up (reliability run 31).
 */
async function removeStaleLock(lockPath: string, judged: LockOwner | undefined): Promise<void> {
  const takeover = `${lockPath}.takeover`;
  const marker = await enterTakeover(takeover);
  if (marker === undefined) {
    await awaitTakeover(takeover);
    return;
  }
  try {
    const now = await readLock(lockPath);
    if (now?.id === judged?.id) await unlink(lockPath).catch(() => undefined);
  } finally {
    await unlink(marker).catch(() => undefined);
    await rmdir(takeover).catch(() => undefined);
  }
}

/**
 * `<pid>@<host>` inside the takeover folder, holding the taker's identity: whoever meets the
 * folder can tell a taker killed here from one still at work. Its name says whose it is when a
 * kill left it empty, as the lock's temp files do (tempLockPath).
 */
const TAKER_MARKER = /^(\d+)@([^/]+)$/;

/**
 * Creates the takeover folder and this run's marker in it; the marker's path, or `undefined`
 * when another run holds the takeover. A run that removed a left-over folder may have removed a
 * new one in the instant it was made: the marker is then missing, or not alone, and this run
 * stands back (the other goes on), so two runs never judge and remove a lock at the same time.
 */
async function enterTakeover(takeover: string): Promise<string | undefined> {
  try {
    await mkdir(takeover);
  } catch {
    return undefined;
  }
  const me = currentProcess();
  const marker = join(takeover, `${me.pid}@${me.host}`);
  try {
    await writeFile(marker, `${JSON.stringify(me)}\n`, { flag: 'wx', mode: 0o600 });
  } catch {
    return undefined;
  }
  const names = await readdir(takeover).catch(() => [] as string[]);
  if (names.length === 1 && names[0] === basename(marker)) return marker;
  await unlink(marker).catch(() => undefined);
  return undefined;
}

/** The markers in a takeover folder, each with its taker: as written in it, else as its name says. */
async function takersIn(takeover: string): Promise<{ file: string; taker: ProcessIdentity }[]> {
  const names = await readdir(takeover).catch(() => [] as string[]);
  const takers: { file: string; taker: ProcessIdentity }[] = [];
  for (const name of names) {
    const named = TAKER_MARKER.exec(name);
    if (!named) continue;
    const file = join(takeover, name);
    const written = await readOwnerFile<ProcessIdentity>(
      file,
      (parsed) => typeof parsed.pid === 'number' && typeof parsed.host === 'string',
    );
    const [, pid, host] = named;
    takers.push({ file, taker: written ?? { pid: Number(pid), host: host!, user: '' } });
  }
  return takers;
}

/**
 * Another run holds the takeover folder: wait until it is gone (that run took over), its taker is
 * gone here (killed mid-takeover: the folder is removed at once), or it is older than the grace
 * (a taker that cannot be judged from here, or none). Bounded by the grace: at most about 10 s.
 */
async function awaitTakeover(takeover: string): Promise<void> {
  const deadline = Date.now() + TAKEOVER_GRACE_MS + 1_000;
  while (Date.now() < deadline) {
    const made = await stat(takeover).then(
      (s) => s.mtimeMs,
      () => undefined,
    );
    if (made === undefined) return;
    const takers = await takersIn(takeover);
    const abandoned =
      (takers.length > 0 && takers.every(({ taker }) => isGoneHere(taker, 'same'))) ||
      Date.now() - made > TAKEOVER_GRACE_MS;
    if (abandoned) {
      for (const { file } of takers) await unlink(file).catch(() => undefined);
      await rmdir(takeover).catch(() => undefined);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, TAKEOVER_POLL_MS));
  }
}

/**
 * What ctl writes in a lock is a few hundred bytes; the bound and the check that it is a regular
 * file (src/io/bounded-file.ts) keep a FIFO or a huge file put at its path from holding the run.
 */
const MAX_LOCK_BYTES = 64 * 1024;

export async function readLock(lockPath: string): Promise<LockOwner | undefined> {
  return readOwnerFile<LockOwner>(
    lockPath,
    (parsed) => typeof parsed.id === 'string' && typeof parsed.pid === 'number',
  );
}

/**
 * A lock's or a takeover marker's owner, bounded (MAX_LOCK_BYTES); undefined when the file is
 * missing, empty, torn or not what `isOwner` accepts (a run killed while writing it).
 */
async function readOwnerFile<T>(
  path: string,
  isOwner: (parsed: Partial<Record<keyof T, unknown>>) => boolean,
): Promise<T | undefined> {
  try {
    const parsed = JSON.parse(await readBoundedText(path, MAX_LOCK_BYTES)) as unknown;
    return typeof parsed === 'object' &&
      parsed !== null &&
      isOwner(parsed as Partial<Record<keyof T, unknown>>)
      ? (parsed as T)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the lock only when it is still ours (or when the caller names its id on purpose). */
export async function releaseLock(lockPath: string, id: string): Promise<void> {
  const current = await readLock(lockPath);
  if (current && current.id !== id) return;
  await unlink(lockPath).catch(() => undefined);
}

/** `ctl upgrade unlock`: remove a lock whose owner is gone. Refuses a live owner unless forced. */
export async function forceUnlock(
  lockPath: string,
  options: { id?: string | undefined; force?: boolean | undefined; target?: KubeTarget | undefined } = {},
): Promise<LockOwner | undefined> {
  const current = await readLock(lockPath);
  if (!current) {
    await unlink(lockPath).catch(() => undefined);
    return undefined;
  }
  if (options.id !== undefined && options.id !== current.id) {
    throw new OperationError(`the lock is held by ${current.id}, not ${options.id}`, {
      hint: `Check the id with: ${stateFileCommand(statePathOf(lockPath), options.target ?? DEFAULT_KUBE_TARGET, 'status')}. The lock: ${describeOwner(current)}`,
    });
  }
  if (!isStale(current) && !options.force) {
    if (isJudgedHere(current, 'same')) {
      throw new LockedError(`the lock is held by a live process: ${describeOwner(current)}`, {
        hint: 'Stop that run first (Ctrl-C saves its state), or pass --force if you are sure it is not running.',
      });
    }
    throw new LockedError(
      `the lock is held by a process ctl cannot judge from here: ${describeOwner(current)}`,
      {
        hint: `It was started ${ownerElsewhere(current)}. If it still runs, stop it there first (Ctrl-C saves its state); once you are sure it is not running there, pass --force with --lock-id ${shellQuote(current.id)}.`,
      },
    );
  }
  await unlink(lockPath).catch(() => undefined);
  return current;
}

/** Another machine or container cannot be judged from here: only its owner or unlock can tell. */
export function isStale(owner: LockOwner): boolean {
  // Locks written before the PID namespace was recorded came from this namespace's ctl.
  return isGoneHere(owner, 'same');
}

export function describeOwner(owner: LockOwner): string {
  return `pid ${owner.pid} on ${owner.host} (user ${owner.user}), ${owner.operation}, since ${owner.createdAt}, lock id ${owner.id}`;
}
