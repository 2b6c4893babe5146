import type { Command } from 'commander';
import type { Runtime } from './globals.js';

/** `ctl demo`: plan and run an upgrade on an in-process simulated cluster (README's first command). */
export function register(program: Command, runtime: Runtime): void {
  program
    .command('demo')
    .description('plan and run an upgrade on a built-in simulated cluster, with visible progress')
    .option('--scenario <name|file>', 'scenario to start from (ctl sim scenarios lists them)', 'happy-path')
    .option(
      '--to <operator-version>',
      'target operator version (default: the one ctl upgrade plan recommends for the scenario)',
    )
    .option('--instant', 'no simulated waits (the whole upgrade in about a second)')
    .addHelpText(
      'after',
      '\nExamples:\n  ctl demo\n  ctl demo --scenario helm-installed\n  ctl demo --scenario license-invalid   # a blocked plan: exit 3\n',
    )
    .action(async (_options: unknown, command: Command) => {
      const { createIo, readGlobalOptions } = await import('./read-globals.js');
      const globals = readGlobalOptions(command);
      const io = await createIo(globals, runtime);
      const o = command.opts() as { scenario: string; to?: string; instant?: boolean };
      const { runDemo } = await import('../commands/demo.js');
      await runDemo({
        globals,
        io,
        env: runtime.env,
        stdin: runtime.stdin,
        scenario: o.scenario,
        to: o.to,
        instant: o.instant === true,
      });
    });
}
