import type { Command } from 'commander';
import type { GlobalOptions } from '../commands/options.js';
import { UsageError } from '../errors.js';
import { checkFilePath } from '../io/paths.js';
import { Io } from '../io/io.js';
import type { Runtime } from './globals.js';

// Only a command's action loads this module (`--help` never needs the Io, nor these checks).

/** The global options (declared in globals.ts) as a command's action reads them. */
export function readGlobalOptions(
  command: Command,
  options: { multipleContexts?: boolean } = {},
): GlobalOptions {
  const raw = command.optsWithGlobals() as Record<string, unknown>;
  const contexts = raw.context === undefined ? [] : ([] as string[]).concat(raw.context as string | string[]);
  if (contexts.length > 1 && !options.multipleContexts && new Set(contexts).size > 1) {
    throw new UsageError(`--context is given ${contexts.length} times (${contexts.join(', ')})`, {
      hint: 'Only ctl upgrade run takes several contexts (one cluster each); give this command one.',
    });
  }
  const output = String(raw.output ?? 'text');
  if (output !== 'text' && output !== 'json') {
    throw new UsageError(`--output must be text or json, not "${output}"`, {
      hint: 'Use -o text or -o json.',
    });
  }
  checkFilePath('--kubeconfig', raw.kubeconfig as string | undefined, 'input');
  return {
    kubeconfig: raw.kubeconfig as string | undefined,
    context: contexts.at(-1),
    contexts,
    namespace: raw.namespace as string | undefined,
    cluster: raw.cluster as string | undefined,
    output,
    color: raw.color !== false,
    verbose: Number(raw.verbose ?? 0),
    quiet: raw.quiet === true,
  };
}

/** Builds the command's Io from the global options and hands it to main for error reporting. */
export async function createIo(globals: GlobalOptions, runtime: Runtime): Promise<Io> {
  const io = new Io({
    stdout: runtime.stdout,
    stderr: runtime.stderr,
    stdin: runtime.stdin,
    env: runtime.env,
    output: globals.output,
    verbose: globals.verbose,
    quiet: globals.quiet,
    color: globals.color,
  });
  runtime.onIo(io);
  return io;
}
