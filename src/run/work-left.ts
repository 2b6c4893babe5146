import { oneLine } from '../io/safe-text.js';
import type { Plan } from '../planning/plan.js';
import { type KubeTarget, retargeted } from '../kube/kube-target.js';

/**
 * What a run that succeeded still leaves to do, as commands, in the order to run them: the
 * Active-Active feature-set update ctl printed but cannot make (crdb-cli), the Active-Active
 * databases a participating cluster held back, and the databases `--databases` left at their
 * version. The first is the run's "Next:" line (text, JSON and the CI summary), so a run that
 * ends `succeeded` never hides work in a warning somewhere above it.
 */
export interface WorkLeft {
  /** What is left, in a few words (`the feature set of Active-Active database redis/aa`). */
  what: string;
  command: string;
}

export interface WorkLeftInput {
  plan: Plan;
  /** The databases step's recorded outcome (src/steps/databases.ts DatabasesOutcome), if it ran. */
  databasesOutcome: Record<string, unknown> | undefined;
  /** The run's own command line (argv after `ctl`), for the run that upgrades the databases left. */
  argv: readonly string[];
  /**
   * The run's command line as a person pastes it later (src/commands/next-command.ts
   * pastedRunCommand: the kubeconfig the run read named, files absolute).
   */
  pasted: (argv: readonly string[]) => string;
  /**
   * The kubeconfig and context of this run: the commands an earlier run recorded (the databases
   * step's outcome) are printed for them (retargeted, src/kube/kube-target.ts). Unset: as recorded.
   */
  target?: KubeTarget | undefined;
  /**
   * A recorded `ctl upgrade run` (a held-back database's) with this run's record named, `--state`
   * or `--state-store` as the run was given them (src/commands/next-command.ts withRunState), so
   * that, pasted, it goes on with the same record. Unset: as recorded.
   */
  sameRecord?: ((command: string) => string) | undefined;
}

export function workLeft(input: WorkLeftInput): WorkLeft[] {
  const recorded = (item: WorkLeft): WorkLeft => {
    const command = input.target ? retargeted(item.command, input.target) : item.command;
    return { ...item, command: input.sameRecord ? input.sameRecord(command) : command };
  };
  return [
    ...[...featureSets(input.databasesOutcome), ...heldBack(input.databasesOutcome)].map(recorded),
    ...databasesLeft(input),
  ];
}

/** `Next: <command>`, then one `then:` line for each further piece of work. */
export function renderWorkLeft(items: readonly WorkLeft[]): string {
  return items
    .map((item, index) => {
      // Commands of one piece of work (crdb-cli list, then update) say what it is once.
      const what = index > 0 && items[index - 1]?.what === item.what ? '' : `  (${oneLine(item.what)})`;
      return `${index === 0 ? 'Next:' : '  then:'} ${oneLine(item.command)}${what}`;
    })
    .join('\n');
}

function records(outcome: Record<string, unknown> | undefined, key: string): Record<string, unknown>[] {
  const list = outcome?.[key];
  return Array.isArray(list) ? list.filter((item): item is Record<string, unknown> => isRecord(item)) : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function featureSets(outcome: Record<string, unknown> | undefined): WorkLeft[] {
  return records(outcome, 'featureSet').flatMap((record) => {
    const commands = Array.isArray(record.commands)
      ? record.commands.filter((c) => typeof c === 'string')
      : [];
    return commands.map((command) => ({
      what: `the feature set of Active-Active database ${String(record.database)}, once, after every instance runs the new version`,
      command,
    }));
  });
}

function heldBack(outcome: Record<string, unknown> | undefined): WorkLeft[] {
  return records(outcome, 'heldBack').flatMap((record) =>
    typeof record.command === 'string'
      ? [
          {
            what: `Active-Active database ${String(record.database)} held back: ${String(record.reason)}`,
            command: record.command,
          },
        ]
      : [],
  );
}

/**
 * Databases `--databases` (none, or a list) kept at a version the target would change: the same
 * run again without `--databases` (all), which finds the operator and cluster done and upgrades
 * only them.
 */
function databasesLeft(input: WorkLeftInput): WorkLeft[] {
  const selection = input.plan.target.selection?.databases;
  if (!selection || selection.kind === 'all') return [];
  const to = input.plan.target.databaseVersion;
  if (!to) return [];
  const moved = new Set(
    (input.plan.steps.find((step) => step.id === 'databases')?.actions ?? []).flatMap((action) =>
      action.database ? [`${action.database.namespace}/${action.database.name}`] : [],
    ),
  );
  const left = input.plan.current.databases.filter(
    (db) => db.version !== null && db.version !== to && !moved.has(`${db.namespace}/${db.name}`),
  );
  if (left.length === 0) return [];
  return [
    {
      what: `${left.length} database(s) left at ${[...new Set(left.map((db) => db.version))].join(', ')} by --databases; the target runs ${to}`,
      command: input.pasted(withoutDatabaseSelection(input.argv)),
    },
  ];
}

/** argv without `--databases X` / `--databases=X` (the default is all) and without --dry-run. */
export function withoutDatabaseSelection(argv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--databases') {
      i += 1;
      continue;
    }
    if (arg.startsWith('--databases=') || arg === '--dry-run' || arg.startsWith('--dry-run=')) continue;
    kept.push(arg);
  }
  return kept;
}
