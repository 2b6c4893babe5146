/**
 * The part of the command tree that a run's arguments name, when declaring only that part gives
 * the same program: commander then finds the same command, parses the same options and reports
 * the same errors. Declaring the whole tree on every run was 3-4 ms of a plan's start-up
 * (docs/performance.md). The whole tree (undefined) whenever anything else could read it:
 * - help anywhere in the arguments (`--help`, `-h`, `help`): help lists commands;
 * - a first word that is an option or no group's name (commander's errors and suggestions for an
 *   unknown command, `ctl` alone, global options before the command);
 * - `completion`: its script is made from the whole tree.
 * A second word that is no subcommand of the group gets the whole group (upgrade.ts).
 */
export interface Branch {
  group: string;
  /** The subcommand's name as given (second word), if it is not an option. */
  subcommand: string | undefined;
}

const GROUPS_ALONE = new Set(['auth', 'sim', 'demo', 'upgrade', 'version']);

export function invokedBranch(argv: readonly string[] | undefined): Branch | undefined {
  if (argv === undefined || asksForHelp(argv)) return undefined;
  const [group, second] = argv;
  if (group === undefined || !GROUPS_ALONE.has(group)) return undefined;
  return { group, subcommand: second === undefined || second.startsWith('-') ? undefined : second };
}

export function asksForHelp(argv: readonly string[] | undefined): boolean {
  return (argv ?? []).some((arg) => arg === '--help' || arg === '-h' || arg === 'help');
}
