/**
 * A file from outside ctl (a flag's, an environment variable's, one a kubeconfig, fleet file or
 * state file names), read whole within a bound and without waiting. Every reader of such a file
 * goes through here, so the rules are one:
 *
 * - Only a regular file. Opening a FIFO for reading blocks until a writer comes, a device such
 *   as /dev/zero never ends, a directory cannot be read. The path is checked with stat before it
 *   is opened; it is opened with O_NONBLOCK (a FIFO swapped in after the stat then opens at once
 *   instead of waiting; a regular file ignores the flag) and checked again on the open file.
 * - At most `maxBytes`. The size stat gives is checked before anything is read, and the read
 *   itself stops one byte past the bound: a file that grows meanwhile, or whose stat says 0 (a
 *   procfs file), costs its bound in memory, never more.
 *
 * The refusals are errors of their own ({@link NotRegularFileError}, {@link FileTooLargeError})
 * for the caller to word with the flag or variable that named the file and its exit code
 * (src/io/paths.ts, src/kube/download.ts, src/run/state.ts); an error of the file system (no such
 * file, no permission) is thrown as it is.
 */

import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';

const KIB = 1024;
const MIB = 1024 * KIB;

/** Not O_RDONLY alone: O_NONBLOCK keeps the open of a FIFO from waiting (Windows has no such flag). */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** The first allocation of a file whose stat says less than it holds, and the least a buffer grows by. */
const GROWTH_BYTES = 64 * KIB;

/** The path names something other than a regular file: `kind` says what ("a FIFO (named pipe)"). */
export class NotRegularFileError extends Error {
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`${path} is ${kind}, not a regular file`);
    this.name = 'NotRegularFileError';
  }
}

/** The file holds more than `maxBytes`: `size` as stat gave it, or undefined when the read found more. */
export class FileTooLargeError extends Error {
  constructor(
    readonly path: string,
    readonly size: number | undefined,
    readonly maxBytes: number,
  ) {
    super(
      `${path} is ${size === undefined ? 'more than' : `${formatSizeOver(size, maxBytes)}, more than`} ${formatBytes(maxBytes)}`,
    );
    this.name = 'FileTooLargeError';
  }
}

/** `1.5 MiB`, `64 KiB`, `12 bytes`: sizes in messages. */
export function formatBytes(bytes: number): string {
  if (bytes >= MIB) return `${Math.round((bytes / MIB) * 10) / 10} MiB`;
  if (bytes >= KIB) return `${Math.round((bytes / KIB) * 10) / 10} KiB`;
  return `${bytes} bytes`;
}

/**
 * The size of a file over `maxBytes`, for a message that names both: in bytes when rounding
 * would make it look no larger (`64 KiB, more than 64 KiB`).
 */
export function formatSizeOver(size: number, maxBytes: number): string {
  const shown = formatBytes(size);
  return shown === formatBytes(maxBytes) ? `${size} bytes` : shown;
}

/** What stat says a path is, in words for a message. */
export function describeKind(stats: Stats): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/** Throws when `stats` is not a regular file of at most `maxBytes`. */
export function refuseUnlessBounded(path: string, stats: Stats, maxBytes: number): void {
  if (!stats.isFile()) throw new NotRegularFileError(path, describeKind(stats));
  if (stats.size > maxBytes) throw new FileTooLargeError(path, stats.size, maxBytes);
}

/** The bytes of `path`, a regular file of at most `maxBytes`, read without waiting on it. */
export async function readBoundedFile(path: string, maxBytes: number): Promise<Buffer> {
  refuseUnlessBounded(path, await stat(path), maxBytes);
  const handle = await open(path, OPEN_FLAGS);
  try {
    // The path may have been replaced between the stat and the open.
    const stats = await handle.stat();
    refuseUnlessBounded(path, stats, maxBytes);
    const into = new BoundedBuffer(path, stats.size, maxBytes);
    for (let room = into.room(); room !== undefined; room = into.room()) {
      const { bytesRead } = await handle.read(room, 0, room.length, null);
      if (bytesRead === 0) break;
      into.add(bytesRead);
    }
    return into.bytes();
  } finally {
    await handle.close();
  }
}

/**
 * {@link readBoundedFile} without the event loop: for a small file read where each of fs/promises'
 * open, stat, read and close would wait behind other work (a CA file, src/api/connect.ts).
 */
export function readBoundedFileSync(path: string, maxBytes: number): Buffer {
  refuseUnlessBounded(path, statSync(path), maxBytes);
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const stats = fstatSync(fd);
    refuseUnlessBounded(path, stats, maxBytes);
    const into = new BoundedBuffer(path, stats.size, maxBytes);
    for (let room = into.room(); room !== undefined; room = into.room()) {
      const bytesRead = readSync(fd, room, 0, room.length, null);
      if (bytesRead === 0) break;
      into.add(bytesRead);
    }
    return into.bytes();
  } finally {
    closeSync(fd);
  }
}

/** {@link readBoundedFile} as UTF-8 text. */
export async function readBoundedText(path: string, maxBytes: number): Promise<string> {
  return (await readBoundedFile(path, maxBytes)).toString('utf8');
}

/**
 * Where the reads go: sized by stat, grown (up to `maxBytes + 1`) when the file turns out longer.
 * The one byte past the bound is how a read tells a file of exactly `maxBytes` from a larger one.
 */
class BoundedBuffer {
  private buffer: Buffer;
  private length = 0;

  constructor(
    private readonly path: string,
    expected: number,
    private readonly maxBytes: number,
  ) {
    this.buffer = Buffer.allocUnsafe(Math.min(Math.max(expected, 0), maxBytes) + 1);
  }

  /** The free part of the buffer, or undefined once more than `maxBytes` were read. */
  room(): Buffer | undefined {
    if (this.length > this.maxBytes) return undefined;
    if (this.length === this.buffer.length) {
      const size = Math.min(Math.max(this.buffer.length * 2, this.length + GROWTH_BYTES), this.maxBytes + 1);
      const grown = Buffer.allocUnsafe(size);
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    return this.buffer.subarray(this.length);
  }

  add(bytesRead: number): void {
    this.length += bytesRead;
  }

  bytes(): Buffer {
    if (this.length > this.maxBytes) throw new FileTooLargeError(this.path, undefined, this.maxBytes);
    return this.buffer.subarray(0, this.length);
  }
}
