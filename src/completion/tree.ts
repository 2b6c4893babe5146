/**
 * The command tree as completion data, read from commander at run time: every subcommand,
 * its long options and what their values look like. The shell scripts (scripts.ts) are
 * rendered from this, so they can never drift from the CLI.
 */

import type { Argument, Command, Option } from 'commander';

/** What follows an option that takes a value. */
export type ValueHint =
  | { kind: 'any' }
  | { kind: 'words'; words: readonly string[] }
  | { kind: 'files' }
  | { kind: 'dirs' }
  /** Asked at completion time: a command whose output lines are the values (`--context`). */
  | { kind: 'command'; command: DynamicValues };

/** The commands the scripts may run for values; a fixed set, so no shell text comes from data. */
export const DYNAMIC_VALUES = {
  /** The kubeconfig's contexts, as kubectl reads them (KUBECONFIG, else ~/.kube/config). */
  contexts: 'kubectl config get-contexts -o name',
} as const;
export type DynamicValues = keyof typeof DYNAMIC_VALUES;

export interface CompletionOption {
  /** `--to`; every option ctl defines has one. */
  long: string;
  /** `-n`, when there is one. */
  short?: string;
  description: string;
  /** undefined: a flag (`--yes`). */
  value?: ValueHint;
}

export interface CompletionCommand {
  name: string;
  /** Names from the root: [] for ctl itself, ['upgrade', 'plan'] for `ctl upgrade plan`. */
  path: readonly string[];
  description: string;
  /** This command's own options, plus --help (global options are in the tree). */
  options: readonly CompletionOption[];
  commands: readonly CompletionCommand[];
  /** Values its positional arguments accept (`bash zsh fish` for `ctl completion`). */
  argumentWords: readonly string[];
}

export interface CompletionTree {
  name: string;
  version: string;
  /** The root's options (but --version): commander accepts them after any subcommand. */
  globalOptions: readonly CompletionOption[];
  root: CompletionCommand;
}

/** Values ctl knows for some options whose commander definition has no `choices`. */
export type KnownValues = Readonly<Record<string, readonly string[] | { command: DynamicValues }>>;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const FLAG = /^--?[A-Za-z0-9][A-Za-z0-9-]*$/;
const WORD = /^[A-Za-z0-9][A-Za-z0-9._:/+-]*$/;

const HELP: CompletionOption = { long: '--help', short: '-h', description: 'display help for command' };

/**
 * The tree under `program`. `known` adds value lists by long option name (`--only`: the step
 * ids); an option's own `choices` win. Names that a shell script could not carry literally
 * are an error: they would have to be quoted in three languages.
 */
export function completionTree(
  program: Command,
  known: KnownValues = {},
  /** The executable the shell completes (`kubectl-rec` for the plugin); the program's name by default. */
  name: string = program.name(),
): CompletionTree {
  const globalOptions = visibleOptions(program)
    .filter((option) => option.long !== '--version')
    .map((option) => toOption(option, known));
  const version = program.version() ?? '';
  const root = { ...toCommand(program, [], known), name: checkedName(name) };
  const versionOption = visibleOptions(program).find((option) => option.long === '--version');
  const rootWithVersion: CompletionCommand = versionOption
    ? { ...root, options: [toOption(versionOption, known), ...root.options] }
    : root;
  return { name: root.name, version, globalOptions, root: rootWithVersion };
}

function toCommand(command: Command, path: readonly string[], known: KnownValues): CompletionCommand {
  const children = command.commands.filter((child) => !isHidden(child));
  const commands = children.map((child) => {
    const name = checkedName(child.name());
    return toCommand(child, [...path, name], known);
  });
  // Commander adds `help [command]` to every command that has subcommands.
  if (commands.length > 0 && !commands.some((child) => child.name === 'help')) {
    commands.push({
      name: 'help',
      path: [...path, 'help'],
      description: 'display help for command',
      options: [],
      commands: [],
      argumentWords: commands.map((child) => child.name),
    });
  }
  const own = path.length === 0 ? [] : visibleOptions(command).map((option) => toOption(option, known));
  return {
    name: path.length === 0 ? command.name() : (path[path.length - 1] ?? ''),
    path,
    description: command.description(),
    options: [...own, HELP],
    commands,
    argumentWords: command.registeredArguments.flatMap((argument: Argument) =>
      (argument.argChoices ?? []).filter((word) => WORD.test(word)),
    ),
  };
}

function toOption(option: Option, known: KnownValues): CompletionOption {
  if (!option.long || !FLAG.test(option.long)) {
    throw new Error(`completion: option "${option.flags}" needs a plain long name`);
  }
  if (option.short && !FLAG.test(option.short)) {
    throw new Error(`completion: option "${option.flags}" has an unusual short name`);
  }
  const takesValue = option.required || option.optional;
  return {
    long: option.long,
    ...(option.short ? { short: option.short } : {}),
    description: option.description,
    ...(takesValue ? { value: valueHint(option, known) } : {}),
  };
}

function valueHint(option: Option, known: KnownValues): ValueHint {
  const words = option.argChoices ?? known[option.long ?? ''];
  if (words && 'command' in words) return { kind: 'command', command: words.command };
  if (words) return { kind: 'words', words: words.filter((word) => WORD.test(word)) };
  // The placeholder says what the value is: <path>, <file>, <plan.json>, <file|url>, <dir>.
  const placeholder = /[<[]([^>\]]*)[>\]]/.exec(option.flags)?.[1] ?? '';
  if (/\bdir\b/.test(placeholder)) return { kind: 'dirs' };
  if (/\b(path|file)\b|\.json$|\.ya?ml$/.test(placeholder)) return { kind: 'files' };
  return { kind: 'any' };
}

function visibleOptions(command: Command): Option[] {
  return command.options.filter((option) => !option.hidden);
}

function isHidden(command: Command): boolean {
  return (command as unknown as { _hidden?: boolean })._hidden === true;
}

function checkedName(name: string): string {
  if (!NAME.test(name)) throw new Error(`completion: command name "${name}" cannot be completed`);
  return name;
}

/** Every command below the root, depth first (the root itself excluded). */
export function allCommands(tree: CompletionTree): CompletionCommand[] {
  const out: CompletionCommand[] = [];
  const walk = (command: CompletionCommand): void => {
    for (const child of command.commands) {
      out.push(child);
      walk(child);
    }
  };
  walk(tree.root);
  return out;
}
