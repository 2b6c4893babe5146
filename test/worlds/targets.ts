/**
 * The target a world is planned with: one `ctl upgrade plan` (without --to) would list (the
 * newest build of each newer line), or any newer release of the catalog (a maintenance build,
 * an older build of a line), as a user may name either with --to.
 */

import { candidateTargets } from '../../src/planning/targets.js';
import { gitTagFor, knownOperatorVersions } from '../../src/release/catalog.js';
import { compareOperatorVersions, parseOperatorVersion } from '../../src/release/versions.js';
import type { UserSide } from './world.js';

/** Every catalog release newer than `current` that has its release bundle, oldest first. */
function newerReleases(current: string): string[] {
  const running = parseOperatorVersion(current);
  return knownOperatorVersions().filter((version) => {
    const parsed = parseOperatorVersion(version);
    return (
      running && parsed && compareOperatorVersions(parsed, running) > 0 && gitTagFor(version) !== undefined
    );
  });
}

export function pickTarget(
  current: string,
  user: Pick<UserSide, 'targetFrom' | 'targetPick' | 'target'>,
): string | null {
  if (user.target) return user.target;
  const targets = user.targetFrom === 'catalog' ? newerReleases(current) : candidateTargets(current, false);
  return targets.length === 0 ? null : targets[user.targetPick % targets.length]!;
}
