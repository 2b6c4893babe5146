import { createRequire } from 'node:module';
import { CommanderError } from 'commander';
import { buildProgram } from './cli/program.js';
import type { Runtime } from './cli/globals.js';
import { ExitCode, isCtlError } from './errors.js';
import { Io } from './io/io.js';

const require = createRequire(import.meta.url);
const { version } = require('../../package.json') as { version: string };

/**
 * argv -> command -> exit code. The only place that maps errors to exit codes; `run` below is
 * the only place that exits.
 */
export async function main(argv: string[], runtime: Omit<Runtime, 'onIo' | 'argv'>): Promise<number> {
  let io: Io | undefined;
  const full: Runtime = {
    ...runtime,
    argv,
    onIo: (created) => {
      io = created;
    },
  };
  const program = await buildProgram(full, version);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    return report(error, io ?? fallbackIo(runtime, argv), argv);
  }
}

function report(error: unknown, io: Io, argv: string[]): number {
  if (error instanceof CommanderError) {
    // Commander already printed its message (or the help/version text).
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return ExitCode.ok;
    if (error.code === 'commander.help') return ExitCode.ok;
    return ExitCode.usage;
  }
  const showStack = io.verbose >= 2 || countVerbose(argv) >= 2;
  if (isCtlError(error)) {
    io.error(error.message);
    if (error.hint) io.info(io.color.dim(`hint: ${error.hint}`));
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

function fallbackIo(runtime: Omit<Runtime, 'onIo' | 'argv'>, argv: string[]): Io {
  return new Io({
    stdout: runtime.stdout,
    stderr: runtime.stderr,
    stdin: runtime.stdin,
    env: runtime.env,
    verbose: countVerbose(argv),
    color: !argv.includes('--no-color'),
  });
}

/** Entry point for bin/ctl.js: run, flush, exit. */
export async function run(): Promise<void> {
  const code = await main(process.argv.slice(2), {
    env: process.env,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
  });
  // Lingering keep-alive sockets or watches must not hold the process open after the answer.
  process.stdout.write('', () => process.exit(code));
}
