import type { Command } from 'commander';
import { ExitCode, isCtlError, UsageError } from '../errors.js';
import type { Io } from '../io/io.js';
import { endCommand } from '../io/command-end.js';
import { programNameOf } from '../io/program-name.js';
import { MAX_QUEUED_BYTES, TerminalOutput } from '../io/terminal-output.js';
import { packageVersion } from '../package-root.js';
import { tolerateClosedOutputs } from '../run/signals.js';
import type { Runtime } from './globals.js';
import { badVerbosityArg, normalizeKubectlArgs } from './kubectl-args.js';

/** Declares the commands a process can run: the whole tree, or only `ctl auth token`'s part. */
export type ProgramBuilder = (runtime: Runtime, version: string) => Promise<Command>;

/** The process-free part of the runtime: what `main` is given. */
export type MainRuntime = Omit<Runtime, 'onIo' | 'argv'>;

/**
 * argv -> command -> exit code, for the commands `build` declares (src/main.ts: the whole
 * tree). With runAction, the only place that maps errors to exit codes; `runProcess` below is
 * the only place that exits.
 */
export async function runCli(build: ProgramBuilder, argv: string[], runtime: MainRuntime): Promise<number> {
  return runAction(argv, runtime, async (full) => {
    const bad = badVerbosityArg(argv);
    if (bad !== undefined) {
      throw new UsageError(`${bad}: the verbosity level is not a number`, {
        hint: "Use -v (each API call) or -vv (bodies too), or kubectl's -v=6 (same as -v) and -v=8 (same as -vv).",
      });
    }
    const program = await build(full, packageVersion());
    // `ctl` alone: the help on stdout and exit 0, as `kubectl` and `gh` alone do (commander
    // would write it to stderr as an error).
    if (argv.length === 0) {
      program.outputHelp();
      return;
    }
    await program.parseAsync(normalizeKubectlArgs(argv), { from: 'user' });
  });
}

/**
 * `action` (a parsed command, or commander parsing and running one) -> exit code: its errors
 * reported as every command's are. src/token-main.ts runs `ctl auth token` through it directly.
 */
export async function runAction(
  argv: string[],
  runtime: MainRuntime,
  action: (full: Runtime) => Promise<void>,
): Promise<number> {
  let io: Io | undefined;
  const full: Runtime = {
    env: runtime.env,
    stdout: runtime.stdout,
    stderr: runtime.stderr,
    programName: runtime.programName,
    // Read when a command asks: process.stdin builds a stream, which `--help` does not need.
    get stdin() {
      return runtime.stdin;
    },
    argv,
    onIo: (created) => {
      io = created;
      strayErrorIo = created;
    },
  };
  try {
    await action(full);
    return ExitCode.ok;
  } catch (error) {
    if (isCommanderError(error)) return commanderExit(error);
    return report(error, io ?? (await fallbackIo(runtime, normalizeKubectlArgs(argv))));
  } finally {
    endCommand();
  }
}

/** Commander already printed its message (or the help or version text). */
function commanderExit(error: Error & { code: string }): number {
  const done = ['commander.helpDisplayed', 'commander.version', 'commander.help'];
  return done.includes(error.code) ? ExitCode.ok : ExitCode.usage;
}

/**
 * The error and its hint. Messages may quote the cluster (names, operator and API messages); the
 * Io escapes their control characters before it colours `error:`, so neither can drive the
 * terminal.
 */
function report(error: unknown, io: Io): number {
  // The Io knows the parsed -v count; the fallback Io (no command parsed) was given a best guess.
  const showStack = io.verbose >= 2;
  if (isCtlError(error) && error.exitCode === ExitCode.ok) {
    // A declined prompt: what happened, no `error:` (src/errors.ts NotConfirmedError).
    io.info(error.message);
    return ExitCode.ok;
  }
  if (isCtlError(error)) {
    io.error(error.message);
    if (error.hint) io.hint(error.hint);
    if (showStack && error.stack) io.stderrWrite(`${error.stack}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.error(`unexpected failure: ${message}`);
  io.info('hint: run again with -vv for details, and report it if it persists.');
  if (showStack && error instanceof Error && error.stack) io.stderrWrite(`${error.stack}\n`);
  return ExitCode.failed;
}

function countVerbose(argv: string[]): number {
  let n = 0;
  for (const arg of argv) {
    if (arg === '--verbose') n += 1;
    else if (/^-v+$/.test(arg)) n += arg.length - 1;
  }
  return n;
}

/** Commander's own errors (usage, help, version) carry a `commander.*` code. */
function isCommanderError(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('commander.');
}

async function fallbackIo(runtime: MainRuntime, argv: string[]): Promise<Io> {
  const { Io } = await import('../io/io.js');
  return new Io({
    stdout: runtime.stdout,
    stderr: runtime.stderr,
    stdin: runtime.stdin,
    env: runtime.env,
    programName: runtime.programName,
    verbose: countVerbose(argv),
    color: !argv.includes('--no-color'),
  });
}

/** The Io of the command running, for an error nothing awaited (reportStrayErrors). */
let strayErrorIo: Io | undefined;
/** The exit code of the stray error reported, which the command's own end must not override. */
let strayExitCode: number | undefined;

/**
 * An error nothing awaits (a promise rejected without a handler, a throw in a callback) would
 * end the process with Node's own report: the error inspected whole, its properties too (a URL
 * with its password, a server's text), raw on stderr, past the redactor and the escaping that
 * every other line gets. Reported as any command's failure is instead (`report`: redacted,
 * escaped, the stack only with -vv), then the process exits as Node's would have, with 1 (or
 * the error's own exit code).
 */
function reportStrayErrors(argv: string[], runtime: MainRuntime): void {
  let reported = false;
  const onStray = (error: unknown): void => {
    if (reported) return;
    reported = true;
    const exit = (code: number) => {
      // Also the code of an end without exit(): the event loop may empty before the write's callback.
      process.exitCode = code;
      process.stdout.write('', () => process.exit(code));
    };
    void (async () => strayErrorIo ?? (await fallbackIo(runtime, normalizeKubectlArgs(argv))))().then(
      (io) => {
        strayExitCode = report(error, io);
        exit(strayExitCode);
      },
      () => exit(ExitCode.failed),
    );
  };
  process.on('unhandledRejection', onStray);
  process.on('uncaughtException', onStray);
}

/** Entry point for bin/ctl.js: run `main` on the process's arguments, flush, exit. */
export async function runProcess(
  main: (argv: string[], runtime: MainRuntime) => Promise<number>,
): Promise<void> {
  // A reader of stdout or stderr that goes away (`| head`) must not crash ctl: an unhandled
  // EPIPE would exit 1 unsaid, leaving a run's lock (src/run/signals.ts).
  tolerateClosedOutputs();
  // At a terminal, writes that never block the run (Ctrl-S: src/io/terminal-output.ts): data
  // on stdout is never dropped, people's lines on stderr are queued up to a bound.
  const stdout = new TerminalOutput(process.stdout, { maxQueuedBytes: Number.POSITIVE_INFINITY });
  const stderr = new TerminalOutput(process.stderr, { maxQueuedBytes: MAX_QUEUED_BYTES });
  const runtime: MainRuntime = {
    env: process.env,
    get stdin() {
      return process.stdin;
    },
    stdout,
    stderr,
    // `kubectl rec` when kubectl ran the plugin's executable (src/io/program-name.ts).
    programName: programNameOf(process.argv[1]),
  };
  reportStrayErrors(process.argv.slice(2), runtime);
  const code = await main(process.argv.slice(2), runtime);
  // A paused terminal gets what was queued for it when it resumes, then the process exits.
  if (stderr.nonBlocking) await stderr.flushed();
  // Lingering keep-alive sockets or watches must not hold the process open after the answer.
  process.stdout.write('', () => process.exit(strayExitCode ?? code));
}
