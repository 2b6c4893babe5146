import type { Command } from 'commander';
import type { GlobalOptions } from '../commands/options.js';
import { UsageError } from '../errors.js';
import { checkFilePath } from '../io/paths.js';
import type { Io, ReadableLike, WritableLike } from '../io/io.js';

/** What a command needs from the process: injected so tests can run commands in-process. */
export interface Runtime {
  /** The arguments as given (no secret can be among them: there is no --password flag). */
  argv?: string[];
  env: NodeJS.ProcessEnv;
  stdin: ReadableLike & NodeJS.ReadableStream;
  stdout: WritableLike;
  stderr: WritableLike;
  /** Called once a command has built its Io, so main can report errors through it. */
  onIo(io: Io): void;
}

export function addGlobalOptions(program: Command): Command {
  return program
    .option('--kubeconfig <path>', 'kubeconfig file (env KUBECONFIG)')
    .option(
      '--context <name>',
      'kubeconfig context (ctl upgrade run: repeatable, one per cluster)',
      collectContexts,
    )
    .option('-n, --namespace <ns>', "namespace of the cluster resource (default: the context's namespace)")
    .option('--cluster <name>', 'cluster resource name (default: the only one in the namespace)')
    .option('-o, --output <format>', 'text for people, json for machines', 'text')
    .option('--no-color', 'no colour (env NO_COLOR)')
    .option('-v, --verbose', 'repeatable: -v shows each API call, -vv bodies (redacted)', countRepeats, 0)
    .option('-q, --quiet', 'only errors');
}

function collectContexts(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function countRepeats(_value: string, previous: number): number {
  return previous + 1;
}

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
  // Loaded here, not at the top: `ctl --help` and `--version` never need the Io.
  const { Io } = await import('../io/io.js');
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
