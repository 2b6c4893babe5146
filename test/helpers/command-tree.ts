import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { main } from '../../src/main.js';

export interface TreeCommand {
  /** The words after `ctl` (empty for the program itself). */
  path: string[];
  command: Command;
}

/** ctl's real commander tree, built with silent streams and an empty environment. */
export function silentProgram(argv?: string[]): Promise<Command> {
  const sink = { write: () => true };
  return buildProgram(
    {
      env: {},
      stdin: new PassThrough() as unknown as NodeJS.ReadStream,
      stdout: sink,
      stderr: sink,
      ...(argv ? { argv } : {}),
      onIo: () => {},
    },
    '0.0.0',
  );
}

/** Every command of ctl's real commander tree, built with silent streams, program first. */
export async function commandTree(): Promise<TreeCommand[]> {
  const program = await silentProgram();
  const out: TreeCommand[] = [];
  const walk = (command: Command, path: string[]): void => {
    out.push({ path, command });
    for (const child of command.commands) walk(child, [...path, child.name()]);
  };
  walk(program, []);
  return out;
}

/**
 * What the command tree prints for these arguments, run in this process (no build-time text),
 * named as `programName` when given (`kubectl rec`, as the plugin's executable is).
 */
export async function fromTree(
  args: string[],
  programName?: string,
): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const code = await main(args, {
    env: {},
    stdin: new PassThrough() as unknown as NodeJS.ReadStream,
    stdout: { write: (chunk: string) => ((stdout += chunk), true) },
    stderr: { write: () => true },
    ...(programName ? { programName } : {}),
  });
  return { code, stdout };
}
