/**
 * Check `release-advisories` (CLI.md "Check ids"): the known issues of the target release and
 * of the running operator (src/release/advisories.ts), judged against what the cluster holds.
 *
 * - The target is affected and the cluster holds a resource the advisory names (an REAADB for
 *   the Active-Active empty-password bug): fail. The upgrade's databases step changes that
 *   resource, which is exactly what triggers the bug; the fix names the release to go to instead.
 * - The target is affected, nothing here triggers it: warn.
 * - The running operator is affected and the target is not: pass, saying so and naming the
 *   advisory, since the upgrade is the fix (the notes: upgrading the operator repairs affected
 *   databases).
 */

import { advisoriesAffecting, type Advisory, fixedReleaseFor, isAffectedBy } from '../release/advisories.js';
import { ctlPlanTargets, ctlPlanTo, ctlTargetOf } from './equivalent-commands.js';
import type { Snapshot } from './snapshot.js';
import type { Target } from './target.js';

interface Outcome {
  status: 'pass' | 'warn' | 'fail';
  message: string;
  fix: string;
}

/** The resources of the cluster an advisory's triggers name, as `REAADB redis/geo`. */
export function triggeringResources(advisory: Advisory, snapshot: Snapshot): string[] {
  const found: string[] = [];
  for (const trigger of advisory.triggers ?? []) {
    if (trigger.kind === 'REAADB')
      found.push(...snapshot.activeActiveDatabases.map((db) => `REAADB ${db.namespace}/${db.name}`));
    if (trigger.kind === 'REDB')
      found.push(...snapshot.databases.map((db) => `REDB ${db.namespace}/${db.name}`));
    if (trigger.kind === 'REC' && snapshot.cluster)
      found.push(`REC ${snapshot.namespace}/${snapshot.cluster.name}`);
  }
  return found;
}

/** `; a change to the backup Secret or a client certificate Secret triggers it too`, from secret-changed triggers. */
function secretNote(advisory: Advisory): string {
  const secrets = (advisory.triggers ?? []).flatMap((t) =>
    t.kind === 'secret-changed' ? (t.secrets ?? []) : [],
  );
  return secrets.length > 0 ? `; a change to ${secrets.join(' or ')} triggers it too` : '';
}

function list(items: string[], max = 5): string {
  return items.length <= max
    ? items.join(', ')
    : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

export function checkReleaseAdvisories(snapshot: Snapshot, target: Target): Outcome {
  const targetAdvisories = advisoriesAffecting(target.operator);
  const better = fixedReleaseFor(target.operator);
  // On a hop before the last the release is a stop on the way to --to (hops.ts picks one no
  // advisory affects when the path allows it): proposing `--to <fixed release>` would trade the
  // final target for that stop, or name the final target itself. The target list judges each
  // target with its hops.
  const final = target.onTheWayTo;
  const instead = final
    ? `${target.operator} is a stop on the way to ${final}: choose a target whose hops avoid it (${ctlPlanTargets(ctlTargetOf(snapshot))} lists the targets with their hops)`
    : better
      ? `Upgrade to ${better} instead (${ctlPlanTo(ctlTargetOf(snapshot), better)})`
      : 'Choose a fixed release';
  const triggered = targetAdvisories
    .map((advisory) => ({ advisory, resources: triggeringResources(advisory, snapshot) }))
    .filter(({ resources }) => resources.length > 0);
  if (triggered.length > 0) {
    const { advisory, resources } = triggered[0]!;
    return {
      status: 'fail',
      message: `${target.operator} is affected by advisory ${advisory.id} (${advisory.summary}), and this cluster holds ${list(resources)}${secretNote(advisory)}; fixed in ${advisory.fixed.join(', ')}`,
      fix: `${instead}, or pass --ignore-check release-advisories to accept the risk.`,
    };
  }
  if (targetAdvisories.length > 0) {
    return {
      status: 'warn',
      message: `${target.operator} is affected by advisory ${targetAdvisories.map((a) => a.id).join(', ')} (${targetAdvisories[0]!.summary}); nothing in this cluster triggers it now`,
      fix: final
        ? `Create no resource it names before the next hop, which leaves ${target.operator} for ${final}; or ${instead.charAt(0).toLowerCase()}${instead.slice(1)}.`
        : `${instead}: a resource created later would trigger it.`,
    };
  }
  const running = snapshot.operator?.version;
  const runningAdvisories = running ? advisoriesAffecting(running) : [];
  if (running && runningAdvisories.length > 0) {
    const exposed = runningAdvisories.flatMap((advisory) => triggeringResources(advisory, snapshot));
    return {
      status: 'pass',
      message: `the running operator ${running} is affected by advisory ${runningAdvisories.map((a) => a.id).join(', ')} (${runningAdvisories[0]!.summary})${exposed.length > 0 ? `, and this cluster holds ${list(exposed)}${secretNote(runningAdvisories[0]!)}: change nothing of them before the upgrade` : ''}; ${target.operator} has the fix`,
      fix: '',
    };
  }
  return { status: 'pass', message: `no known advisory affects ${target.operator}`, fix: '' };
}

/** The advisories as the plan lists them (the plan's `catalog.advisories`). */
export interface PlanAdvisory {
  id: string;
  summary: string;
  /** The running operator is affected. */
  running: boolean;
  /** The target is affected. */
  target: boolean;
  fixed: string[];
  /** The cluster's resources that trigger it. */
  triggeredBy: string[];
  source: string[];
}

export function planAdvisories(snapshot: Snapshot, target: Target): PlanAdvisory[] {
  const running = snapshot.operator?.version;
  const relevant = [
    ...advisoriesAffecting(target.operator),
    ...(running ? advisoriesAffecting(running) : []),
  ].filter((advisory, index, all) => all.indexOf(advisory) === index);
  return relevant.map((advisory) => ({
    id: advisory.id,
    summary: advisory.summary,
    running: running !== undefined && isAffectedBy(advisory, running),
    target: isAffectedBy(advisory, target.operator),
    fixed: [...advisory.fixed],
    triggeredBy: triggeringResources(advisory, snapshot),
    source: [...advisory.source],
  }));
}
