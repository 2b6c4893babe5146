import { type Command, Option } from 'commander';
import type { OptionSpec } from './option-specs.js';

/** Declares `specs` (option-specs.ts) on `command`, in order, as commander options. */
export function declareOptions(command: Command, specs: readonly OptionSpec[]): Command {
  for (const spec of specs) command.addOption(commanderOption(spec));
  return command;
}

function commanderOption(spec: OptionSpec): Option {
  const option = new Option(spec.flags, spec.description);
  if (spec.choices) option.choices(spec.choices);
  if (spec.repeat === 'collect') option.argParser(collect);
  if (spec.repeat === 'count') option.argParser(count);
  if (spec.default !== undefined) option.default(spec.default);
  return option;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function count(_value: string, previous: number): number {
  return previous + 1;
}
