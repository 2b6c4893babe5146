/**
 * Which database each of the plan's `databases` actions changes, and to which version: the run
 * acts on the plan it was given (a saved plan too), never on a fresh choice. Actions carry a
 * `database` field; plans saved before it existed name the database only in their command (the
 * kubectl line a person would run), which is parsed instead, as a shell would split it.
 */

import { shellWords } from '../io/shell-words.js';
import { OperationError } from '../errors.js';
import type { DialectFields } from '../release/dialect.js';
import type { PlanAction } from '../planning/plan.js';
import { type CtlTarget, ctlPlanTo } from '../planning/equivalent-commands.js';
import { getPath, str } from '../json-read.js';

/** One planned database change. */
export interface DatabaseWork {
  kind: 'database' | 'active-active' | 'manual' | 'held-back';
  name: string;
  namespace: string;
  /** The version to write (`7.4`). */
  version: string;
  /** held-back: why, and the command that upgrades it later (the action's command). */
  heldBack?: { reason: string; command: string };
}

/** The cluster and target of the run: a malformed plan's hint plans them again. */
export interface Replan {
  kube: CtlTarget;
  /** The plan's `--to`. */
  operator: string;
}

/**
 * The database an action of the plan changes: its `database` field; plans saved before that
 * field existed name it only in their command, which is parsed instead.
 */
export function workOf(
  action: PlanAction,
  fields: DialectFields,
  planVersion: string | null,
  replan: Replan,
): DatabaseWork | undefined {
  const database = action.database;
  if (database === undefined) return parseAction(action, fields, planVersion);
  if (
    !isRecord(database) ||
    (database.kind !== 'redb' && database.kind !== 'reaadb') ||
    typeof database.name !== 'string' ||
    database.name === '' ||
    typeof database.namespace !== 'string' ||
    database.namespace === '' ||
    typeof database.version !== 'string' ||
    database.version === ''
  ) {
    throw new OperationError(`the plan's database action "${action.description}" is malformed`, {
      hint: `Make a new plan (${ctlPlanTo(replan.kube, replan.operator, '--out', 'FILE')}), or run without --plan.`,
    });
  }
  if (database.kind === 'reaadb' && typeof database.heldBack === 'string') {
    return {
      kind: 'held-back',
      name: database.name,
      namespace: database.namespace,
      version: database.version,
      heldBack: { reason: database.heldBack, command: action.command },
    };
  }
  const kind: DatabaseWork['kind'] =
    database.manual === true ? 'manual' : database.kind === 'reaadb' ? 'active-active' : 'database';
  return { kind, name: database.name, namespace: database.namespace, version: database.version };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export { shellWords } from '../io/shell-words.js';

/**
 * The command without the kubeconfig and context it names (`KUBECONFIG=<files> kubectl
 * --kubeconfig <file> --context <name> patch ...`, src/planning/equivalent-commands.ts): plans
 * saved before actions carried `database` had none, but a command with them reads the same.
 */
function withoutTarget(words: string[]): string[] {
  const rest = words[0]?.startsWith('KUBECONFIG=') ? words.slice(1) : [...words];
  const [binary, ...args] = rest;
  while (args[0] === '--kubeconfig' || args[0] === '--context') args.splice(0, 2);
  return binary === undefined ? [] : [binary, ...args];
}

/**
 * For plans saved before actions carried `database`: the planner wrote each database action
 * only as the kubectl command a person would run,
 * `kubectl patch redb|reaadb <name> -n <ns> --type merge -p '<json>'`, or for Active-Active
 * databases that need the manual procedure `kubectl exec -it <rec>-0 -n <ns> -- rladmin upgrade db <name>`.
 */
export function parseAction(
  action: PlanAction,
  fields: DialectFields,
  planVersion: string | null,
): DatabaseWork | undefined {
  const words = withoutTarget(shellWords(action.command));
  if (words[0] !== 'kubectl') return undefined;
  const namespace = words[words.indexOf('-n') + 1];
  if (words[1] === 'patch' && (words[2] === 'redb' || words[2] === 'reaadb')) {
    const name = words[3];
    const body = words[words.indexOf('-p') + 1];
    if (!name || !namespace || !body) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return undefined;
    }
    const activeActive = words[2] === 'reaadb';
    const version = str(
      getPath(parsed, activeActive ? fields.activeActiveVersionPath : fields.databaseVersionPath),
    );
    if (!version) return undefined;
    return { kind: activeActive ? 'active-active' : 'database', name, namespace, version };
  }
  if (words[1] === 'exec' && words.includes('rladmin')) {
    const db = words.indexOf('db', words.indexOf('rladmin'));
    const name = db >= 0 ? words[db + 1] : undefined;
    const given = words.indexOf('redis_version', db);
    const version =
      (given >= 0 ? words[given + 1] : undefined) ??
      planVersion ??
      /\bto (\d+\.\d+)\b/.exec(action.description)?.[1] ??
      'the target version';
    if (!name || !namespace) return undefined;
    return { kind: 'manual', name, namespace, version };
  }
  return undefined;
}
