import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkWorlds, describeFailure } from './property.js';

/**
 * Issue 36 item 3: generated worlds prove the promise, "a plan that says Ready is a run that
 * finishes". `npm test` tries a fixed set of seeds, a few worlds each (bounded: each world is a
 * simulator started in this process, a plan and, for the half that is Ready, a run of the built
 * ctl; about half a minute in all on a shared two-core machine). `npm run test:worlds -- --runs N
 * [--seed S]` tries more (CTL_WORLDS_RUNS, CTL_WORLDS_SEED). A failure prints the seed and the
 * shrunk world's YAML.
 */

const FIXED_SEEDS = [36, 3601, 20261129];
// Half the worlds are Ready, and a Ready world is also run: 6 a seed keep the file near 30 s.
const RUNS_PER_SEED = 6;

function fromEnv(): { seeds: number[]; runs: number } | undefined {
  const runs = process.env.CTL_WORLDS_RUNS;
  if (!runs) return undefined;
  const seed = process.env.CTL_WORLDS_SEED;
  return {
    runs: Number(runs),
    seeds: [seed ? Number(seed) : Math.floor(Math.random() * 2 ** 31)],
  };
}

const chosen = fromEnv() ?? { seeds: FIXED_SEEDS, runs: RUNS_PER_SEED };

// The seeds' worlds are independent (each world its own simulator, sandbox and ctl runs), and a
// world waits for its ctl processes most of its time: the seeds run side by side.
describe('generated worlds: a Ready plan is a run that finishes', { concurrency: true }, () => {
  for (const seed of chosen.seeds) {
    test(`seed ${seed}: ${chosen.runs} world(s)`, async () => {
      // The seed first, so a run cut short by its timeout still says how to replay it.
      console.log(`worlds: seed ${seed}, ${chosen.runs} run(s)`);
      const started = Date.now();
      const result = await checkWorlds({ seed, runs: chosen.runs });
      const { tally } = result;
      console.log(
        `worlds: seed ${seed}: ${tally.runs} tried, ${tally.finished} Ready and finished ` +
          `(hops ${JSON.stringify(tally.hops)}), ${tally.stoppedThenBlocked} stopped in the run and then ` +
          `blocked, ${tally.notReady} not Ready ` +
          `(plan exits ${JSON.stringify(tally.planExits)}; failed checks ` +
          `${JSON.stringify(tally.failedChecks)}), ${Math.round((Date.now() - started) / 1000)} s`,
      );
      for (const odd of tally.oddPlans) console.log(`worlds: seed ${seed}: a plan ended with ${odd}`);
      if (result.failure) {
        // Also in the file's output, which the failure summary shows beside the assertion.
        console.log(describeFailure(result, chosen.runs));
        assert.fail(describeFailure(result, chosen.runs));
      }
      assert.equal(tally.runs, chosen.runs);
    });
  }
});
