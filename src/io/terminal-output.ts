import { readFileSync } from 'node:fs';

/**
 * A terminal that stops taking output never stops the run.
 *
 * Ctrl-S (XOFF) at a terminal stops its output; so does a terminal emulator that stops reading
 * (a paused tmux pane, a frozen ssh session). Node writes to a terminal synchronously on Linux
 * (tty.WriteStream sets its handle blocking: nodejs.org/api/process.html "A note on process
 * I/O"), so the first write after Ctrl-S blocked the whole event loop: no watch event was read,
 * no timer fired, the cluster's Lease was not renewed, and every wait overran by the length of
 * the pause. Here the terminal's writes are made asynchronous instead:
 * - Progress frames (src/io/live-region.ts) are drawn only while the terminal has taken
 *   everything written before (`drained`); a frame it could not take is never queued: dropped.
 * - Lines (log lines, warnings, errors, the summary) are queued in memory up to
 *   MAX_QUEUED_BYTES, then dropped and counted; when the terminal takes output again, one line
 *   says how many were not shown. The state file and `upgrade status` keep what the run did.
 * - Data on stdout is never dropped: it is queued whatever its size (a run writes little there).
 * - The process exits once the terminal has taken what was queued (src/cli/run-cli.ts), as any
 *   program writing to a paused terminal does; Ctrl-Q lets it go.
 *
 * Only where it is safe: libuv opens a terminal again for itself (uv_tty_init reopens the
 * slave pty by its name), so the process has its own open file description and O_NONBLOCK
 * does not reach the shell or the other processes on the terminal. Where libuv could not reopen
 * it (no name for the terminal in this container), the description is the
 * shell's and libuv writes in a loop that would spin on EAGAIN; there the terminal stays
 * blocking, as before. Such a reopened descriptor is the only one of the three with
 * close-on-exec set (an inherited descriptor never has it), which /proc shows.
 */

/** What a line queue holds at most while the terminal does not drain: about an hour of -v output. */
export const MAX_QUEUED_BYTES = 1024 * 1024;

/** The part of a Node stream this needs (a tty.WriteStream; tests give their own). */
export interface TerminalStream {
  /** `callback` runs once this chunk, and so everything before it, has been written. */
  write(chunk: string, callback?: (error?: Error | null) => void): unknown;
  isTTY?: boolean;
  readonly writableLength: number;
  fd?: number;
  _handle?: { setBlocking?(blocking: boolean): unknown } | null;
}

export interface TerminalOutputOptions {
  /** Lines beyond this many queued bytes are dropped (stderr); Infinity: never (stdout's data). */
  maxQueuedBytes: number;
  /** The descriptor's flags as /proc shows them (tests replace it); undefined: unknown. */
  fdFlags?: (fd: number) => number | undefined;
  platform?: NodeJS.Platform;
}

/** O_CLOEXEC as /proc/<pid>/fdinfo shows it (octal flags: 02000000 on Linux). */
const O_CLOEXEC = 0o2000000;

function procFdFlags(fd: number): number | undefined {
  try {
    const match = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
    return match ? Number.parseInt(match[1]!, 8) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The stream's writes made asynchronous where that is safe (see above); true when they are.
 * Blocking is restored at exit, so nothing after ctl inherits a non-blocking terminal.
 */
export function stopBlocking(
  stream: TerminalStream,
  options: Pick<TerminalOutputOptions, 'fdFlags' | 'platform'> = {},
): boolean {
  const { fdFlags = procFdFlags, platform = process.platform } = options;
  const handle = stream._handle;
  if (platform !== 'linux' || stream.isTTY !== true || typeof stream.fd !== 'number') return false;
  if (!handle || typeof handle.setBlocking !== 'function') return false;
  const flags = fdFlags(stream.fd);
  if (flags === undefined || (flags & O_CLOEXEC) === 0) return false;
  handle.setBlocking(false);
  process.once('exit', () => {
    try {
      handle.setBlocking?.(true);
    } catch {
      // the handle is already closed
    }
  });
  return true;
}

/**
 * stdout or stderr at a terminal, written without ever blocking the run, or passed through as is
 * anywhere else. A frame asks `drained` first and is not drawn when the terminal is behind.
 */
export class TerminalOutput {
  readonly isTTY: boolean | undefined;
  readonly #stream: TerminalStream;
  readonly #async: boolean;
  readonly #max: number;
  #droppedLines = 0;
  #droppedBytes = 0;
  #waitingForDrain = false;

  constructor(stream: TerminalStream, options: TerminalOutputOptions) {
    this.#stream = stream;
    this.isTTY = stream.isTTY;
    this.#max = options.maxQueuedBytes;
    this.#async = stopBlocking(stream, options);
  }

  /** The terminal's writes no longer block (a paused terminal queues them instead). */
  get nonBlocking(): boolean {
    return this.#async;
  }

  /** Bytes written that the terminal has not taken yet. */
  get queuedBytes(): number {
    return this.#stream.writableLength;
  }

  /** The terminal has taken everything written so far: a frame may be drawn. */
  drained(): boolean {
    return this.#stream.writableLength === 0;
  }

  /** Text that must reach the terminal, queued while it is paused, up to the bound (then dropped and counted). */
  write(chunk: string): boolean {
    if (chunk === '') return true;
    const size = Buffer.byteLength(chunk);
    if (this.#async && this.#stream.writableLength + size > this.#max) {
      this.#droppedLines += Math.max(1, chunk.split('\n').length - 1);
      this.#droppedBytes += size;
      this.#reportDropsOnDrain();
      return false;
    }
    this.#stream.write(chunk);
    return true;
  }

  /** Resolves once the terminal has taken everything queued (at once when nothing is). */
  flushed(): Promise<void> {
    if (this.drained()) return Promise.resolve();
    // An empty write's callback runs after every write before it ('drain' would only come
    // after the stream's high-water mark was passed).
    return new Promise((resolve) => this.#stream.write('', () => resolve()));
  }

  #reportDropsOnDrain(): void {
    if (this.#waitingForDrain) return;
    this.#waitingForDrain = true;
    this.#stream.write('', (error) => {
      this.#waitingForDrain = false;
      if (error) return; // the terminal is gone: nobody to tell
      const lines = this.#droppedLines;
      const kb = Math.ceil(this.#droppedBytes / 1024);
      this.#droppedLines = 0;
      this.#droppedBytes = 0;
      this.#stream.write(
        `warning: ${lines} line${lines === 1 ? '' : 's'} of output (${kb} KB) not shown: the terminal stopped taking output (Ctrl-S pauses it, Ctrl-Q resumes); the run went on, and its state keeps what it did.\n`,
      );
    });
  }
}
