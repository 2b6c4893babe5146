import type { Command } from 'commander';
import type { Io, ReadableLike, WritableLike } from '../io/io.js';
import { declareOptions } from './declare-options.js';
import { GLOBAL_OPTIONS } from './option-specs.js';

/** What a command needs from the process: injected so tests can run commands in-process. */
export interface Runtime {
  /** The arguments as given (no secret can be among them: there is no --password flag). */
  argv?: string[];
  env: NodeJS.ProcessEnv;
  stdin: ReadableLike & NodeJS.ReadableStream;
  stdout: WritableLike;
  stderr: WritableLike;
  /**
   * How the person typed the program: `ctl`, or `kubectl rec` as the kubectl plugin
   * (src/io/program-name.ts); `ctl` when not given.
   */
  programName?: string;
  /** Called once a command has built its Io, so main can report errors through it. */
  onIo(io: Io): void;
}

/**
 * The global options of CLI.md (option-specs.ts), declared on the program. Reading them is in
 * read-globals.ts, which only a command's action loads: declaring the tree (all `--help` needs)
 * stays light.
 */
export function addGlobalOptions(program: Command): Command {
  return declareOptions(program, GLOBAL_OPTIONS);
}
