import type { InterruptedError } from '../errors.js';
import type { Io } from '../io/io.js';

export interface InterruptGuard {
  /** Aborted with reason 'SIGINT' or 'SIGTERM' on the first signal, or an OutputClosed. */
  signal: AbortSignal;
  dispose(): void;
}

/**
 * The abort reason when the reader of stdout or stderr went away (EPIPE: `ctl upgrade run ... |
 * head -3`). Go programs such as kubectl and helm die of SIGPIPE on a broken pipe at fd 1 or 2
 * ("A write to a broken pipe on file descriptors 1 or 2 ... will cause the program to exit with
 * a SIGPIPE signal", pkg.go.dev/os/signal, "SIGPIPE"); Node ignores SIGPIPE and gives EPIPE
 * instead. ctl stops as on SIGINT (state saved, lock released) and exits 141, the code a shell
 * gives such a Go program (128 + SIGPIPE's 13), naming why in the state (docs/automation.md).
 */
export class OutputClosed {
  constructor(readonly stream: 'stdout' | 'stderr') {}
  toString(): string {
    return `a broken pipe: the reader of ${this.stream} went away`;
  }
}

/** The signal an interrupted run exits by (InterruptedError: 130, 143 or 141). */
export type StopSignal = InterruptedError['signal'];

/** What stopped a run: the signal it exits by, and the words a message names it with. */
export interface StopCause {
  signal: StopSignal;
  /**
   * As in `interrupted by ${cause}`: `SIGINT`, `SIGTERM`, or `a broken pipe: the reader of
   * stdout went away` (OutputClosed). SIGHUP is not handled: it ends ctl as Node's default does.
   */
  cause: string;
}

/**
 * What stopped a run, from its signal's abort reason as guardInterrupts sets it ('SIGINT',
 * 'SIGTERM', an OutputClosed; readline's Ctrl-C at the question aborts with 'SIGINT'). Every
 * message that says why ctl stopped names it through here: a closed output pipe is no SIGINT.
 */
export function stopCauseOf(reason: unknown): StopCause {
  if (reason instanceof OutputClosed) return { signal: 'SIGPIPE', cause: String(reason) };
  if (reason === 'SIGTERM') return { signal: 'SIGTERM', cause: 'SIGTERM' };
  return { signal: 'SIGINT', cause: 'SIGINT' };
}

/** The stop as the subject of a sentence, from its signal: "SIGTERM stopped ctl following it". */
export function stopSubject(signal: StopSignal): string {
  return signal === 'SIGPIPE' ? 'the closed output pipe' : signal;
}

/** The part of process.stdout/stderr the guard needs: their 'error' event. */
export interface OutputStream {
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  off(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
}

/**
 * A broken pipe on stdout or stderr must not crash the process (an unhandled 'error' event: exit
 * 1, nothing said, the lock left): from the start of the process the error is taken here, so
 * every later write to that stream is dropped quietly, and guardInterrupts stops a run on it.
 */
export function tolerateClosedOutputs(
  outputs: readonly OutputStream[] = [process.stdout, process.stderr],
): void {
  for (const output of outputs) {
    output.on('error', (error) => {
      if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
    });
  }
}

/**
 * How long the first signal may take to stop the run. Every wait ctl owns ends on the abort at
 * once; this bounds the rest (a request in flight, helm stopping), so `timeout 1h ctl upgrade
 * run` without `-k` always ends (issue 28).
 */
export const STOP_GRACE_MS = 5_000;

/**
 * First SIGINT/SIGTERM: abort the run so the current step stops its waits and children, and
 * the runner saves the state (exit 130/143 follows through the normal error path). If the run
 * has not ended STOP_GRACE_MS later, it exits then. A second signal exits at once, as Terraform
 * does, because the user has said twice that they mean it.
 */
export function guardInterrupts(
  io: Io,
  exitNow: (code: number) => void = (code) => process.exit(code),
  graceMs = STOP_GRACE_MS,
  outputs: { stdout: OutputStream; stderr: OutputStream } = {
    stdout: process.stdout,
    stderr: process.stderr,
  },
): InterruptGuard {
  const controller = new AbortController();
  let grace: NodeJS.Timeout | undefined;
  const onSignal = (name: 'SIGINT' | 'SIGTERM') => () => {
    const code = name === 'SIGINT' ? 130 : 143;
    if (controller.signal.aborted) {
      io.error('second interrupt: exiting at once; the state may miss the last change.');
      exitNow(code);
      return;
    }
    io.warn(`${name} received: stopping and saving the state (send it again to exit at once)`);
    grace = setTimeout(() => {
      io.error(
        `did not stop within ${graceMs / 1000} s of ${name}: exiting; the state holds the last saved step, and running the same command again resumes from there.`,
      );
      exitNow(code);
    }, graceMs);
    grace.unref();
    controller.abort(name);
  };
  const sigint = onSignal('SIGINT');
  const sigterm = onSignal('SIGTERM');
  process.on('SIGINT', sigint);
  process.on('SIGTERM', sigterm);
  // A closed output stops the run as the first interrupt does, with the same grace; a later
  // one changes nothing. Said on the other stream, which may still have a reader.
  const onClosed = (stream: 'stdout' | 'stderr') => (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' || controller.signal.aborted) return;
    const reason = new OutputClosed(stream);
    if (stream === 'stdout') io.warn(`${String(reason)}: stopping and saving the state`);
    grace = setTimeout(() => exitNow(141), graceMs);
    grace.unref();
    controller.abort(reason);
  };
  const stdoutClosed = onClosed('stdout');
  const stderrClosed = onClosed('stderr');
  outputs.stdout.on('error', stdoutClosed);
  outputs.stderr.on('error', stderrClosed);
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(grace);
      process.off('SIGINT', sigint);
      process.off('SIGTERM', sigterm);
      outputs.stdout.off('error', stdoutClosed);
      outputs.stderr.off('error', stderrClosed);
    },
  };
}
