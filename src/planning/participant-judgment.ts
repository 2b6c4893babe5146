/**
 * Each remote Active-Active participant judged by the operator release it runs. A participant
 * reports only its Redis Software build; the catalog's cluster tags name the operator release
 * that shipped it (src/release/shipped-by.ts). Then:
 *
 * - an advisory that an REAADB sets off (the empty-password bug of 8.0.20-27's notes) affects the
 *   participant's operator: raising the REAADB's global configuration, which syncs to every
 *   participant (redis/docs content/operate/kubernetes/active-active/global-config.md), is the
 *   configuration change that triggers it there. The REAADB is held back until that participant
 *   runs a fixed operator (src/planning/active-active.ts);
 * - no catalogued release ships the participant's build: its operator, and so its known issues,
 *   cannot be told, and ctl does not guess: held back too, with the way out;
 * - a participant on another operator release than the target: the upgrade docs recommend that
 *   all participating clusters run the same operator version (redis/docs
 *   content/operate/kubernetes/upgrade/upgrade-redis-cluster.md): a warning of check
 *   release-rules, not a hold.
 *
 * Pure: from the snapshot's participants (src/planning/participants.ts read their RS builds).
 */

import { advisoriesAffecting, type Advisory, fixedReleaseFor } from '../release/advisories.js';
import { operatorsShipping } from '../release/shipped-by.js';

/** The advisories an Active-Active database sets off on a participant. */
function activeActiveAdvisories(operator: string): Advisory[] {
  return advisoriesAffecting(operator).filter((advisory) =>
    (advisory.triggers ?? []).some((trigger) => trigger.kind === 'REAADB'),
  );
}

export interface ParticipantOperator {
  /** The operator releases that shipped its build, oldest first; empty: none known. */
  operators: string[];
  /** The Active-Active advisories any of them is affected by. */
  advisories: Advisory[];
}

/** What the catalog says about the operator a participant on `rsVersion` runs. */
export function participantOperator(rsVersion: string): ParticipantOperator {
  const operators = operatorsShipping(rsVersion);
  const advisories = operators
    .flatMap(activeActiveAdvisories)
    .filter((advisory, index, all) => all.findIndex((a) => a.id === advisory.id) === index);
  return { operators, advisories };
}

/**
 * Why a participant on `rsVersion` holds an REAADB back, judged by its operator; undefined when
 * it does not. One sentence naming the participant and the fix.
 */
export function participantOperatorHold(name: string, rsVersion: string): string | undefined {
  const { operators, advisories } = participantOperator(rsVersion);
  if (operators.length === 0) {
    return `participant ${name} runs Redis Software ${rsVersion}, which no operator release in ctl's catalog ships, so whether its operator has a known issue cannot be told; upgrade it to a catalogued release (ctl upgrade plan on that cluster lists them), or name its release with --catalog`;
  }
  if (advisories.length === 0) return undefined;
  const shipped = operators.join(' or ');
  const fixes = operators
    .map((operator) => fixedReleaseFor(operator))
    .filter((v): v is string => v !== undefined);
  const fix = fixes.at(-1);
  const names = advisories.map((a) => a.id).join(', ');
  return `participant ${name} runs Redis Software ${rsVersion}, shipped with operator ${shipped}, which is affected by advisory ${names} (${advisories[0]!.summary}); raising the REAADB changes its global configuration on every participant, which triggers it there: upgrade the operator of ${name} to ${fix ?? 'a fixed release'} (fixed in ${advisories[0]!.fixed.join(', ')}) first`;
}
