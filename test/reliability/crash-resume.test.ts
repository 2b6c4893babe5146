/**
 * Guarantee 1 (docs/reliability.md): `ctl upgrade run` killed with SIGKILL at any moment, then run
 * again until it finishes, leaves the cluster exactly where one clean run would: Running at the
 * target, every database upgraded, a clean state file, and no change made twice.
 *
 * Random trials kill at a time drawn uniformly from [0, one clean run], up to three times per
 * trial; state-write trials kill inside the Nth write of the state file (crash-preload.ts).
 * Every trial uses a fresh simulated cluster. The seed is printed; CTL_RELIABILITY_SEED replays it.
 */

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import { seededRandom } from '../helpers/simulator.js';
import { stateSchema } from '../../src/run/state.js';
import {
  type Bed,
  checkUpgraded,
  delay,
  figure,
  fixturePath,
  pick,
  pool,
  runOnBed,
  spawnOnBed,
  STACK_TRACE,
  startBed,
  UPGRADE,
} from './support.js';

const RANDOM_TRIALS = pick(10, 100);
const WRITE_TRIALS = pick(4, 40);
/** Runs per trial before it counts as "no progress". */
const MAX_RUNS = 8;
const seed = Number(process.env.CTL_RELIABILITY_SEED ?? Date.now() % 1_000_000);

interface TrialOutcome {
  runs: number;
  kills: number;
  /** Kills that came after the state file existed. */
  landed: number;
  problems: string[];
}

/** Runs ctl until one run exits; any exit other than 0 or our SIGKILL is a problem. */
async function finish(bed: Bed, outcome: TrialOutcome): Promise<void> {
  while (outcome.runs < MAX_RUNS) {
    outcome.runs += 1;
    const result = await runOnBed(bed, UPGRADE, { timeoutMs: 120_000 });
    if (result.code === 0) return;
    outcome.problems.push(
      `resume run ${outcome.runs} exited ${result.code ?? result.signal}: ${result.stderr.slice(-800)}`,
    );
    if (STACK_TRACE.test(result.stderr)) outcome.problems.push('a stack trace was printed');
    return;
  }
  outcome.problems.push(`no success within ${MAX_RUNS} runs`);
}

/** Resolves true once `file` exists, false if `finished` resolves first. */
async function whenExists(file: string, finished: Promise<boolean>): Promise<boolean> {
  let done = false;
  void finished.then(() => {
    done = true;
  });
  while (!done) {
    if (existsSync(file)) return true;
    await delay(5);
  }
  return false;
}

/** Whatever the kill left, the state file (when there is one) is a valid, parseable state. */
function stateAfterKill(bed: Bed): string[] {
  if (!existsSync(bed.statePath)) return [];
  try {
    const parsed = stateSchema.safeParse(JSON.parse(readFileSync(bed.statePath, 'utf8')));
    return parsed.success ? [] : [`state after SIGKILL does not match the schema: ${parsed.error.message}`];
  } catch (error) {
    return [`state after SIGKILL is not JSON: ${(error as Error).message}`];
  }
}

describe(`crash and resume: SIGKILL at a random moment (seed ${seed})`, () => {
  let cleanRunMs = 0;
  /** When the first state write happened in the clean run. */
  let firstWriteMs = 0;

  before(async () => {
    const bed = await startBed('happy-path');
    try {
      const run = spawnOnBed(bed, UPGRADE);
      const started = Date.now();
      const poll = setInterval(() => {
        if (firstWriteMs === 0 && existsSync(bed.statePath)) firstWriteMs = Date.now() - started;
      }, 5);
      const result = await run.result;
      clearInterval(poll);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(checkUpgraded(bed), []);
      cleanRunMs = result.durationMs;
      if (firstWriteMs === 0 || firstWriteMs >= cleanRunMs) firstWriteMs = Math.floor(cleanRunMs / 2);
    } finally {
      await bed.close();
    }
  });

  test(`${RANDOM_TRIALS} random-kill trials end upgraded, each change made once`, async () => {
    const outcomes = await pool(RANDOM_TRIALS, async (trial) => {
      // Each trial draws from its own generator: the same seed replays the same kill times.
      const random = seededRandom(seed * 1000 + trial);
      const bed = await startBed('happy-path');
      const outcome: TrialOutcome = { runs: 0, kills: 0, problems: [], landed: 0 };
      try {
        // Up to three kills; after the first, each further one with probability 1/2.
        while (outcome.kills < 3 && (outcome.kills === 0 || random() < 0.5)) {
          outcome.runs += 1;
          const run = spawnOnBed(bed, UPGRADE);
          // Half the kills anywhere in a clean run's time; half once the state file exists
          // (measured from its appearance, so a loaded machine does not shift them all late).
          const afterWrite = random() < 0.5;
          const span = afterWrite ? cleanRunMs - firstWriteMs : cleanRunMs;
          const at = Math.floor(random() * span);
          const finished = run.result.then(() => false);
          const killed = await Promise.race([
            (afterWrite ? whenExists(bed.statePath, finished) : Promise.resolve(true)).then((go) =>
              go ? delay(at).then(() => true) : false,
            ),
            finished,
          ]);
          if (killed) run.child.kill('SIGKILL');
          const result = await run.result;
          if (result.signal === 'SIGKILL') {
            outcome.kills += 1;
            outcome.problems.push(...stateAfterKill(bed));
            if (existsSync(bed.statePath)) outcome.landed += 1;
            continue;
          }
          if (result.code !== 0)
            outcome.problems.push(`run exited ${result.code}: ${result.stderr.slice(-800)}`);
          break;
        }
        if (outcome.problems.length === 0 && outcome.kills > 0) await finish(bed, outcome);
        outcome.problems.push(...checkUpgraded(bed));
      } finally {
        await bed.close();
      }
      return outcome;
    });
    const failures = outcomes.flatMap((o, i) =>
      o.problems.length > 0 ? [`trial ${i + 1}: ${o.problems.join('; ')}`] : [],
    );
    const sum = (f: (o: TrialOutcome) => number): number => outcomes.reduce((n, o) => n + f(o), 0);
    figure(
      `crash trials ${RANDOM_TRIALS} (seed ${seed}), SIGKILLs ${sum((o) => o.kills)} (${sum((o) => o.landed)} after the state file existed), runs ${sum((o) => o.runs)}, failures ${failures.length}`,
    );
    assert.deepEqual(failures, []);
  });

  test(`${WRITE_TRIALS} trials killed inside a state-file write resume cleanly`, async () => {
    const phases = ['open', 'write', 'rename', 'renamed'] as const;
    const outcomes = await pool(WRITE_TRIALS, async (trial) => {
      const random = seededRandom(seed * 1000 + 500 + trial);
      const phase = phases[(trial - 1) % phases.length]!;
      // A clean run writes the state about 20 times; later writes land in later steps.
      const nth = 1 + Math.floor(random() * 18);
      const bed = await startBed('happy-path');
      const outcome: TrialOutcome = { runs: 1, kills: 0, problems: [], landed: 0 };
      try {
        const first = await runOnBed(bed, UPGRADE, {
          preload: fixturePath('crash-preload.js'),
          env: { CTL_TEST_CRASH: `${phase}:${nth}`, CTL_TEST_CRASH_DIR: bed.stateDir },
        });
        if (first.signal === 'SIGKILL') {
          outcome.kills = 1;
          outcome.problems.push(...stateAfterKill(bed));
          await finish(bed, outcome);
        } else if (first.code !== 0) {
          outcome.problems.push(`first run exited ${first.code}: ${first.stderr.slice(-800)}`);
        }
        outcome.problems.push(...checkUpgraded(bed));
      } finally {
        await bed.close();
      }
      if (outcome.problems.length > 0) outcome.problems.unshift(`${phase}:${nth}`);
      return outcome;
    });
    const failures = outcomes.flatMap((o, i) =>
      o.problems.length > 0 ? [`trial ${i + 1}: ${o.problems.join('; ')}`] : [],
    );
    const crashed = outcomes.filter((o) => o.kills > 0).length;
    figure(
      `state-write kill trials ${WRITE_TRIALS} (${crashed} killed inside a write: temp created, torn temp, before and after the rename), failures ${failures.length}`,
    );
    assert.ok(crashed >= Math.ceil(WRITE_TRIALS / 2), `only ${crashed} trials crashed inside a write`);
    assert.deepEqual(failures, []);
  });
});
