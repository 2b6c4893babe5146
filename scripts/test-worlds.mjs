#!/usr/bin/env node
// `npm run test:worlds -- --runs N [--seed S]`: the generated-world test of the promise (a plan
// that says Ready is a run that finishes; test/worlds/) with N worlds from seed S (default: a
// new random seed, printed first). The same test file as `npm test`'s fixed seeds, run through
// scripts/run-tests.mjs (Node 22+, its own TMPDIR, nothing left behind), with a time limit that
// grows with N. A failure prints the seed, the replay command and the shrunk world's YAML.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const usage = 'usage: npm run test:worlds -- --runs <N> [--seed <S>]';
let values;
try {
  ({ values } = parseArgs({
    options: {
      runs: { type: 'string', default: '100' },
      seed: { type: 'string' },
      help: { type: 'boolean' },
    },
  }));
} catch (error) {
  console.error(`${error.message}\n${usage}`);
  process.exit(2);
}
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`--runs: expected a whole number of worlds, got "${values.runs}"\n${usage}`);
  process.exit(2);
}
const seed = values.seed ?? String(Math.floor(Math.random() * 2 ** 31));
if (!/^-?\d+$/.test(seed)) {
  console.error(`--seed: expected a whole number, got "${seed}"\n${usage}`);
  process.exit(2);
}
console.log(
  `test:worlds: ${runs} world(s), seed ${seed} (replay: npm run test:worlds -- --runs ${runs} --seed ${seed})`,
);

const repo = join(import.meta.dirname, '..');
// A world takes a few seconds, a failing one's shrinking a few dozen more: a generous bound.
const timeoutMs = String(Math.max(300_000, runs * 20_000 + 600_000));
const result = spawnSync(
  process.execPath,
  [join(repo, 'scripts', 'run-tests.mjs'), 'worlds/worlds.test.js'],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      CTL_WORLDS_RUNS: String(runs),
      CTL_WORLDS_SEED: seed,
      CTL_TEST_TIMEOUT_MS: timeoutMs,
    },
  },
);
process.exit(result.status ?? 1);
