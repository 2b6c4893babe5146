import type { Command } from 'commander';
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

/**
 * The global options of CLI.md, declared on the program. Reading them is in read-globals.ts,
 * which only a command's action loads: declaring the tree (all `--help` needs) stays light.
 */
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
    .option(
      '-o, --output <format>',
      'text for people, json or yaml for machines (yaml: the same data as json)',
      'text',
    )
    .option('--no-color', 'no colour (env NO_COLOR)')
    .option(
      '-v, --verbose',
      "repeatable: -v shows each API call, -vv bodies (redacted); kubectl's -v=N also works (6: -v, 8: -vv)",
      countRepeats,
      0,
    )
    .option('-q, --quiet', 'only errors');
}

function collectContexts(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function countRepeats(_value: string, previous: number): number {
  return previous + 1;
}
