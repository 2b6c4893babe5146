import type { Io } from '../io/io.js';
import { oneLine } from '../io/safe-text.js';
import type { Plan } from '../planning/plan.js';
import type { RunRecord } from '../run/report.js';
import type { MemberOutcome } from './fleet.js';

/**
 * A fleet's last pass: the shared Active-Active databases, once every cluster is upgraded.
 *
 * Redis's procedure upgrades Redis Software on every participating cluster first and the
 * database instances after (DOCS `operate/rs/installing-upgrading/upgrading/upgrade-active-active.md`),
 * and an REAADB's global configuration reaches every participant
 * (DOCS `operate/kubernetes/active-active/global-config.md`). So the first pass holds every
 * REAADB back (FLEET_DEFERS_ACTIVE_ACTIVE), and this pass, after every cluster succeeded, runs
 * the databases step once more on the clusters that held one back, in fleet order, with only
 * those databases: the first cluster that raises `<ns>/<name>` raises it for all, and the later
 * clusters that hold a database of that name and namespace leave it (it is the same database;
 * the operator names an REAADB alike on every participant). A cluster whose own participants
 * are still behind (a participant outside the fleet) holds it back again, with its reason.
 */
export async function raiseActiveActiveOnce(input: {
  io: Io;
  outcomes: MemberOutcome[];
  /** The fleet was interrupted: no last pass. */
  interrupted: boolean;
  run: (outcome: MemberOutcome, databases: string[]) => Promise<{ record: RunRecord; error: unknown }>;
}): Promise<void> {
  const { io, outcomes } = input;
  const heldBy = outcomes.map((outcome) => heldBackDatabases(outcome.record.plan));
  if (heldBy.every((names) => names.length === 0)) return;
  const failed = outcomes.filter((outcome) => outcome.error !== undefined).map((outcome) => outcome.label);
  if (input.interrupted || failed.length > 0) {
    io.warn(
      `the Active-Active databases were left as they are: ${input.interrupted ? 'the fleet was interrupted' : `not every cluster was upgraded (${failed.map(oneLine).join(', ')})`}; run the fleet again once every cluster is`,
    );
    return;
  }
  io.info('every cluster of the fleet is upgraded: raising the shared Active-Active databases, once each');
  /** `<ns>/<name>` -> the cluster that raised it. */
  const raised = new Map<string, string>();
  for (const [index, outcome] of outcomes.entries()) {
    const names = heldBy[index] ?? [];
    const already = names.filter((name) => raised.has(name));
    for (const name of already)
      io.info(
        `[${oneLine(outcome.label)}] ${oneLine(name)}: raised through ${oneLine(raised.get(name) ?? '')}; its global configuration reaches this participant`,
      );
    const todo = names.filter((name) => !raised.has(name));
    if (todo.length === 0) continue;
    const { record, error } = await input.run(outcome, todo);
    outcome.activeActive = record;
    if (error !== undefined) {
      // The cluster is upgraded; its databases step is what failed now.
      outcome.record = record;
      outcome.error = error;
      continue;
    }
    for (const name of raisedDatabases(record.plan)) raised.set(name, outcome.label);
  }
}

/** `<ns>/<name>` of every Active-Active database the plan holds back. */
export function heldBackDatabases(plan: Plan | undefined): string[] {
  return databaseActions(plan)
    .filter((database) => database.kind === 'reaadb' && database.heldBack !== undefined)
    .map((database) => `${database.namespace}/${database.name}`);
}

/** `<ns>/<name>` of every Active-Active database the plan raises. */
function raisedDatabases(plan: Plan | undefined): string[] {
  return databaseActions(plan)
    .filter((database) => database.kind === 'reaadb' && database.heldBack === undefined && !database.manual)
    .map((database) => `${database.namespace}/${database.name}`);
}

function databaseActions(plan: Plan | undefined) {
  return (plan?.steps.find((step) => step.id === 'databases')?.actions ?? []).flatMap((action) =>
    action.database ? [action.database] : [],
  );
}
