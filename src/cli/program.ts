import { Command } from 'commander';
import { terminalText } from '../io/safe-text.js';
import { addGlobalOptions, type Runtime } from './globals.js';

/**
 * The command tree. Each group lives in its own file and imports its logic lazily inside the
 * action, so `ctl --help` and `ctl --version` load nothing heavy.
 */
export async function buildProgram(runtime: Runtime, version: string): Promise<Command> {
  const program = new Command('ctl')
    .description(
      'Upgrade a Redis Enterprise cluster on Kubernetes through its operator, safely and resumably.',
    )
    .version(version, '--version', 'print the version')
    .showSuggestionAfterError(true)
    .configureHelp({ sortSubcommands: false })
    // Set before any subcommand exists: commander copies these settings to subcommands only
    // when they are created. Errors must reach main (exit 2), output goes to our streams.
    .exitOverride()
    .configureOutput({
      writeOut: (text) => runtime.stdout.write(text),
      // Commander's errors quote the arguments, which a script may have taken from the cluster.
      writeErr: (text) => runtime.stderr.write(terminalText(text)),
    });
  addGlobalOptions(program);
  const groups = await Promise.all([
    import('./auth.js'),
    import('./upgrade.js'),
    import('./sim.js'),
    import('./demo.js'),
    import('./completion.js'),
  ]);
  for (const group of groups) group.register(program, runtime);
  return program;
}
