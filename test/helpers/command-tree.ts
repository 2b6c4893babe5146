import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';

export interface TreeCommand {
  /** The words after `ctl` (empty for the program itself). */
  path: string[];
  command: Command;
}

/** Every command of ctl's real commander tree, built with silent streams, program first. */
export async function commandTree(): Promise<TreeCommand[]> {
  const sink = { write: () => true };
  const program = await buildProgram(
    {
      env: {},
      stdin: new PassThrough() as unknown as NodeJS.ReadStream,
      stdout: sink,
      stderr: sink,
      onIo: () => {},
    },
    '0.0.0',
  );
  const out: TreeCommand[] = [];
  const walk = (command: Command, path: string[]): void => {
    out.push({ path, command });
    for (const child of command.commands) walk(child, [...path, child.name()]);
  };
  walk(program, []);
  return out;
}
