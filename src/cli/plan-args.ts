import type { Command } from 'commander';
import type { PlanArgs } from '../commands/next-command.js';

// Which options decide what a plan is, and so must be repeated by the command ctl suggests next
// (src/commands/next-command.ts). An option not declared on a command is simply never given.

/** Where the cluster is and how to reach it: repeated even after `--out` (run --plan reads the cluster again). */
const LOCATION = [
  'kubeconfig',
  'context',
  'namespace',
  'cluster',
  'apiUrl',
  'username',
  'passwordFile',
  'passwordStdin',
  'caFile',
  'insecure',
  'authForm',
  'stateStore',
  // How the bundle and the catalog may be downloaded: the run downloads them again.
  'allowHttp',
  // The helm the run calls (the plan checks it: helm-available).
  'helmBin',
  // The run's changes through the management API (the plan checks them: api-permissions); a
  // saved plan does not fix them, so they are repeated after `--out` too.
  'remediate',
  'moduleFile',
];

/** What to upgrade to and how (`--to` is written by the caller: the target list names its own). */
export const PLAN_OPTIONS = [
  'clusterVersion',
  'dbVersion',
  'method',
  'bundle',
  'helmRelease',
  'helmChart',
  'helmRepo',
  'databases',
  'ignoreCheck',
  'maxHops',
  'catalog',
  'userDefinedModules',
];

/** The plan-deciding options given on the command line, as argv tokens, from this command up to the program. */
export function readPlanArgs(command: Command): PlanArgs {
  return {
    location: tokensOf(command, LOCATION),
    plan: tokensOf(command, PLAN_OPTIONS),
    // Where the run keeps its record: the next run after one that changed nothing (a dry run,
    // a stopped preflight) must write to the same one, which `ctl upgrade status --state` reads.
    run: tokensOf(command, ['state']),
  };
}

function tokensOf(command: Command, keys: readonly string[]): string[] {
  const tokens: string[] = [];
  for (const key of keys) {
    for (let c: Command | null = command; c; c = c.parent) {
      const option = c.options.find((o) => o.attributeName() === key);
      if (!option) continue;
      if (c.getOptionValueSource(key) === 'cli')
        tokens.push(...optionTokens(option.short ?? option.long ?? '', c.opts()[key]));
      break;
    }
  }
  return tokens;
}

function optionTokens(flag: string, value: unknown): string[] {
  if (value === true) return [flag];
  if (value === false || value === undefined) return [];
  return ([] as unknown[]).concat(value).flatMap((v) => [flag, String(v)]);
}
