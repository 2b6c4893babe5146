import { Command } from 'commander';
import { terminalText } from '../io/safe-text.js';
import * as auth from './auth.js';
import * as completion from './completion.js';
import * as demo from './demo.js';
import { addGlobalOptions, type Runtime } from './globals.js';
import * as sim from './sim.js';
import * as upgrade from './upgrade.js';

/**
 * The command tree. Each group lives in its own file, which declares its commands with nothing
 * but commander and imports its logic lazily inside the action: the whole tree is in the
 * bundle's first file, so `ctl <any command> --help` reads that file and little else
 * (docs/performance.md).
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
  for (const group of [auth, upgrade, sim, demo, completion]) group.register(program, runtime);
  return program;
}
