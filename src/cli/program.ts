import { Command, type Option } from 'commander';
import { CTL, renameProgram } from '../io/program-name.js';
import { helpWidth, renamedHelpStyle, renameHelpText, unglued } from './help-rename.js';
import { terminalText } from '../io/safe-text.js';
import * as auth from './auth.js';
import * as completion from './completion.js';
import * as demo from './demo.js';
import { addGlobalOptions, type Runtime } from './globals.js';
import { asksForHelp, invokedBranch } from './invoked-branch.js';
import * as sim from './sim.js';
import * as upgrade from './upgrade.js';
import * as versionCommand from './version.js';

/**
 * The command tree. Each group lives in its own file, which declares its commands with nothing
 * but commander and imports its logic lazily inside the action: the whole tree is in the
 * bundle's first file, so `ctl <any command> --help` reads that file and little else
 * (docs/performance.md).
 */
export async function buildProgram(runtime: Runtime, version: string): Promise<Command> {
  // The check and step ids of the help texts, from the program's own lists: loaded only when
  // help may be printed (the build's help.json is rendered the same way).
  const lists = asksForHelp(runtime.argv) ? (await import('./help-lists.js')).HELP_LISTS : undefined;
  const name = runtime.programName ?? CTL;
  const program = new Command(name)
    .description(
      'Upgrade a Redis Enterprise cluster on Kubernetes through its operator, safely and resumably.',
    )
    .version(version, '--version', 'print the version')
    .showSuggestionAfterError(true)
    // Named as typed before commander wraps (help-rename.ts): `kubectl rec` is wider than `ctl`.
    .configureHelp({ sortSubcommands: false, optionDescription: describeOption, ...renamedHelpStyle(name) })
    // Set before any subcommand exists: commander copies these settings to subcommands only
    // when they are created. Errors must reach main (exit 2), output goes to our streams.
    .exitOverride()
    .configureOutput({
      // Help and usage name the program as it was typed (`kubectl rec` as the kubectl plugin),
      // at the width commander wraps to (its own default: stdout's columns on a terminal, else 80).
      writeOut: (text) => runtime.stdout.write(renameHelpText(text, name, helpWidth(process.stdout))),
      // Commander's errors quote the arguments, which a script may have taken from the cluster.
      writeErr: (text) => runtime.stderr.write(renameProgram(terminalText(unglued(text)), name)),
    });
  addGlobalOptions(program);
  // For the person who has just installed ctl: what to type first and where the docs are. The
  // messages cite docs/<page>.md; the npm package ships that folder (package.json "files").
  program.addHelpText(
    'after',
    '\nStart here: ctl demo upgrades a simulated cluster (nothing else is touched);\n' +
      'ctl upgrade plan -n NAMESPACE shows what it would do to yours (read-only).\n' +
      '\nDocs: docs/quickstart.md, then docs/README.md (folder: ctl version -o json)\n',
  );
  // The invoked command's branch alone where that is the same program (invoked-branch.ts).
  const branch = invokedBranch(runtime.argv);
  const declares = (group: string) => branch === undefined || branch.group === group;
  for (const [name, group] of [
    ['auth', auth],
    ['sim', sim],
    ['demo', demo],
    ['completion', completion],
  ] as const) {
    if (declares(name)) group.register(program, runtime);
  }
  if (declares('upgrade')) upgrade.register(program, runtime, lists, branch?.subcommand);
  if (declares('version')) versionCommand.register(program, runtime, version);
  sayWhatToReadAfterUsageErrors(program);
  return program;
}

/**
 * Commander's usage errors (an unknown command or option, a missing value, a bad choice) end,
 * as kubectl's do, with the help to read; a subcommand typed without its group (`ctl status`,
 * as in `git status` or `helm status`) is named with it, which commander's suggestion, made
 * from the top-level names alone, never does.
 */
function sayWhatToReadAfterUsageErrors(program: Command): void {
  const name = program.name();
  program.showHelpAfterError(`hint: run '${name} --help' for the commands and global options.`);
  const walk = (command: Command, path: string): void => {
    for (const sub of command.commands) {
      const subPath = `${path} ${sub.name()}`;
      sub.showHelpAfterError(`hint: run '${subPath} --help' for its usage.`);
      walk(sub, subPath);
    }
  };
  walk(program, name);
  // Commander emits this, when it is listened to, instead of reporting the unknown command.
  program.on('command:*', (operands: string[]) => {
    const word = operands[0] ?? '';
    const group = program.commands.find((g) => g.commands.some((sub) => sub.name() === word));
    if (group) {
      program.error(`error: unknown command '${word}'\n(Did you mean ${name} ${group.name()} ${word}?)`, {
        code: 'commander.unknownCommand',
        exitCode: 2,
      });
    }
    (program as unknown as { unknownCommand(): never }).unknownCommand();
  });
}

/**
 * An option's help line with its default shown one way, `(default: 3)`, as the prose defaults
 * are written: commander's own quotes string defaults (`(default: "3")`).
 */
function describeOption(option: Option): string {
  const extra: string[] = [];
  if (option.argChoices) extra.push(`choices: ${option.argChoices.join(', ')}`);
  if (option.defaultValue !== undefined && (option.required || option.optional)) {
    extra.push(`default: ${option.defaultValueDescription ?? String(option.defaultValue)}`);
  }
  return extra.length > 0 ? `${option.description} (${extra.join('; ')})` : option.description;
}
