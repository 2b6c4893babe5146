/**
 * The promise as a property: for every generated world, a plan that says Ready is a run that
 * finishes with the cluster at the target. Shared by `npm test` (worlds.test.ts, fixed seeds)
 * and `npm run test:worlds -- --runs N [--seed S]` (scripts/test-worlds.mjs, the same test file
 * with CTL_WORLDS_RUNS and CTL_WORLDS_SEED).
 */

import fc from 'fast-check';
import { worldArbitrary } from './arbitrary.js';
import { tryWorld, type WorldOutcome } from './try-world.js';
import { worldYaml, type World } from './world.js';

export interface WorldsTally {
  runs: number;
  finished: number;
  notReady: number;
  /** Ready plans whose run stopped on a situation no read shows first, caught by the next plan. */
  stoppedThenBlocked: number;
  /** Plans that ended with neither 0 nor 3 (by exit code), for the figures. */
  planExits: Record<string, number>;
  /** Not-Ready worlds by the check ids their plan failed (`none` when it failed none). */
  failedChecks: Record<string, number>;
  hops: Record<string, number>;
  /**
   * Plans that exited neither 0, 3 nor 4 (a usage error, a failure of ctl's own), with the
   * target and the last lines ctl wrote: no world is meant to end there, so the summary shows why.
   */
  oddPlans: string[];
}

export interface WorldsResult {
  seed: number;
  tally: WorldsTally;
  /** The shrunk world whose Ready plan did not finish, with why; undefined when none. */
  failure?: { world: World; why: string; yaml: string; path: string | undefined };
}

export async function checkWorlds(options: { seed: number; runs: number }): Promise<WorldsResult> {
  const tally: WorldsTally = {
    runs: 0,
    finished: 0,
    notReady: 0,
    stoppedThenBlocked: 0,
    planExits: {},
    failedChecks: {},
    hops: {},
    oddPlans: [],
  };
  const count = (outcome: WorldOutcome): void => {
    tally.runs += 1;
    if (outcome.kind === 'finished') {
      tally.finished += 1;
      tally.hops[String(outcome.hops)] = (tally.hops[String(outcome.hops)] ?? 0) + 1;
    } else if (outcome.kind === 'stopped') {
      tally.stoppedThenBlocked += 1;
      for (const id of outcome.replanFailed)
        tally.failedChecks[`${id} (after a stopped run)`] =
          (tally.failedChecks[`${id} (after a stopped run)`] ?? 0) + 1;
    } else if (outcome.kind === 'not-ready') {
      tally.notReady += 1;
      const exit = String(outcome.planExit ?? 'none');
      tally.planExits[exit] = (tally.planExits[exit] ?? 0) + 1;
      if (outcome.planExit !== null && ![0, 3, 4].includes(outcome.planExit))
        tally.oddPlans.push(`exit ${outcome.planExit}, target ${String(outcome.target)}: ${outcome.why}`);
      for (const id of outcome.failed.length > 0 ? outcome.failed : ['none'])
        tally.failedChecks[id] = (tally.failedChecks[id] ?? 0) + 1;
    }
  };
  let lastWhy = '';
  const details = await fc.check(
    fc.asyncProperty(worldArbitrary, async (world) => {
      const outcome = await tryWorld(world);
      count(outcome);
      if (outcome.kind === 'broken') {
        lastWhy = `target ${outcome.target}: ${outcome.why}`;
        return false;
      }
      const missed = missedBlocker(world, outcome) ?? uncaughtStop(world, outcome);
      if (missed) {
        lastWhy = missed;
        return false;
      }
      return true;
    }),
    { seed: options.seed, numRuns: options.runs },
  );
  if (!details.failed) return { seed: options.seed, tally };
  if (!details.counterexample) {
    // An exception, not a false: the runner itself broke (the simulator did not start, ...).
    const error: unknown = details.errorInstance;
    throw error instanceof Error
      ? error
      : new Error(`the world property failed (seed ${options.seed}): ${String(error)}`);
  }
  const world = details.counterexample[0];
  // The shrunk world's own reason: run it once more, as the last shrink step may have passed.
  const again = await tryWorld(world);
  const why =
    again.kind === 'broken'
      ? `target ${again.target}: ${again.why}`
      : (missedBlocker(world, again) ?? uncaughtStop(world, again) ?? lastWhy);
  return {
    seed: options.seed,
    tally,
    failure: { world, why, yaml: worldYaml(world), path: details.counterexamplePath ?? undefined },
  };
}

/**
 * A world blocked on purpose whose plan did not stop it with one of the checks it is blocked by
 * (exit 3): a missing plan check. Undefined when the plan caught it (or the world is not one).
 */
export function missedBlocker(world: World, outcome: WorldOutcome): string | undefined {
  const expected = world.blockedBy;
  if (!expected || expected.length === 0) return undefined;
  if (outcome.kind === 'not-ready' && outcome.target === null) return undefined;
  if (
    outcome.kind === 'not-ready' &&
    outcome.planExit === 3 &&
    outcome.failed.some((id) => expected.includes(id))
  )
    return undefined;
  // A management API that refuses the user (403) is exit 4, "authentication or authorization
  // failed" (CLI.md "Exit codes"), with api-reachable failed: blocked as well.
  if (
    outcome.kind === 'not-ready' &&
    outcome.planExit === 4 &&
    expected.includes('api-reachable') &&
    outcome.failed.includes('api-reachable')
  )
    return undefined;
  // A plan of several hops upgrades a database too old for the target on the way, in a hop whose
  // RS still takes it; the run then finished with every database at the target (try-world.ts).
  if (outcome.kind === 'finished' && outcome.hops > 1 && expected.includes('database-min-version'))
    return undefined;
  // The same plan of several hops may be blocked by another check (an advisory of a hop's
  // target): blocked it is, and the old database was not what stopped it.
  if (
    outcome.kind === 'not-ready' &&
    outcome.planExit === 3 &&
    (outcome.hops ?? 1) > 1 &&
    expected.includes('database-min-version')
  )
    return undefined;
  const said =
    outcome.kind === 'not-ready'
      ? `the plan exited ${String(outcome.planExit)} failing ${outcome.why || 'nothing'}`
      : 'the plan said Ready';
  return `target ${String(outcome.target)}: the world is blocked on purpose (one of ${expected.join(', ')} must fail), but ${said}`;
}

/**
 * A world whose run stopped on a situation no read shows first (`stopsThenBlocks`): the plan
 * made after the stop must fail one of the world's checks (exit 3), or the same Ready plan would
 * stop the same way again. Undefined when it did (or the run did not stop).
 */
export function uncaughtStop(world: World, outcome: WorldOutcome): string | undefined {
  if (outcome.kind !== 'stopped') return undefined;
  const expected = world.stopsThenBlocks ?? [];
  if (outcome.replanExit === 3 && outcome.replanFailed.some((id) => expected.includes(id))) return undefined;
  return `target ${outcome.target}: the run stopped (exit ${outcome.runExit}), and the plan made next exited ${String(outcome.replanExit)} failing ${outcome.replanFailed.join(',') || 'nothing'}, not one of ${expected.join(', ')}:\n${outcome.why}`;
}

/** What a failure prints: the seed, the command that replays it, why, and the world's YAML. */
export function describeFailure(result: WorldsResult, runs: number): string {
  const failure = result.failure!;
  return [
    `a Ready plan did not finish (seed ${result.seed}, path ${failure.path ?? '-'})`,
    `replay: npm run test:worlds -- --runs ${runs} --seed ${result.seed}`,
    failure.why,
    '--- the shrunk world (keep it as test/worlds/found/<name>.yaml):',
    failure.yaml,
  ].join('\n');
}
