import { buildProgram } from './cli/program.js';
import { type MainRuntime, runCli, runProcess } from './cli/run-cli.js';

/** argv -> command -> exit code, with the whole command tree (src/cli/run-cli.ts). */
export async function main(argv: string[], runtime: MainRuntime): Promise<number> {
  return runCli(buildProgram, argv, runtime);
}

/** Entry point for bin/ctl.js: run, flush, exit. */
export async function run(): Promise<void> {
  await runProcess(main);
}
