import { oneLine } from '../io/safe-text.js';
import type { Plan } from './plan.js';

/**
 * Every change a plan makes, in words a confirmation can carry: the operator, the cluster and
 * the databases (how many move, from which versions to which). A database upgrade is the one
 * change people most often want to make later, on their own schedule (a new major version of
 * Redis can change behaviour an application sees), so whenever the plan moves databases it
 * also says how to leave them for later: `--databases none` (the run's flag; a later run with
 * the default `--databases all` upgrades them).
 */
export interface PlanChanges {
  /** `operator 7.4.6-2 -> 8.2.0-18, cluster 7.4.6-22 -> 8.2.0-78.18, 3 database(s) 7.2 -> 8.6`. */
  summary: string;
  /** The databases the run moves and how to keep them as they are; undefined when none move. */
  databases: string | undefined;
}

export function describePlanChanges(plan: Plan): PlanChanges {
  const s = oneLine;
  const { current, target } = plan;
  const parts = [`operator ${s(current.operator ?? '?')} -> ${s(target.operator)}`];
  if (target.clusterVersion && target.clusterVersion !== current.clusterVersion)
    parts.push(`cluster ${s(current.clusterVersion ?? '?')} -> ${s(target.clusterVersion)}`);
  const moves = databaseMoves(plan);
  if (moves.length === 0) return { summary: parts.join(', '), databases: undefined };
  const from = [...new Set(moves.map((move) => move.from))].map(s).join(', ');
  const to = [...new Set(moves.map((move) => move.to))].map(s).join(', ');
  parts.push(`${moves.length} database(s) ${from} -> ${to}`);
  const major = moves.some((move) => majorOf(move.from) !== majorOf(move.to));
  const databases =
    `this run moves ${moves.length} database(s) from ${from} to ${to}` +
    (major ? ' (a new major version of Redis)' : '') +
    '; to leave them for later, add --databases none';
  return { summary: parts.join(', '), databases };
}

interface DatabaseMove {
  from: string;
  to: string;
}

/** The databases the (last hop's) databases step writes a new version into. */
function databaseMoves(plan: Plan): DatabaseMove[] {
  const steps = plan.hops?.at(-1)?.steps ?? plan.steps;
  const step = steps.find((candidate) => candidate.id === 'databases');
  if (!step || step.skip !== null) return [];
  const running = new Map(
    plan.current.databases.map((db) => [`${db.namespace}/${db.name}`, db.version ?? '?']),
  );
  return step.actions.flatMap((action) => {
    const database = action.database;
    if (!database || database.heldBack !== undefined) return [];
    const from = running.get(`${database.namespace}/${database.name}`) ?? '?';
    return from === database.version ? [] : [{ from, to: database.version }];
  });
}

function majorOf(version: string): string {
  return version.split('.')[0] ?? version;
}
