/**
 * `npm run bench -- --only fanout`: the `databases` step of `ctl upgrade run --max-parallel 50`
 * on scale-1000, where the simulated operator takes a fixed time for each database's upgrade
 * (the scenario's `timing.databaseUpgrade`; every database upgrades independently, as each is
 * its own action in the management API). The ideal is (databases / parallel) x that time; the
 * figure is the step's wall time over the ideal. The same step with a zero upgrade time,
 * measured in the same run, is ctl's own cost of driving 1,000 databases.
 */

import { loadScenario, type Scenario } from '../src/sim/scenario.js';
import { startSimulatedCluster } from '../src/sim/cluster.js';
import { ctlBin, expectExit, type Figure, median, ms, run, scratch } from './lib.js';

const TARGET_VERSION = '7.8.2-6';
const PARALLEL = 50;
/**
 * Seconds the simulated operator takes per database upgrade. A real one takes seconds to minutes;
 * 2 s keeps the bench under a minute while ctl's own latency per database (read, intent record,
 * patch, re-read, list and watch: ~0.1–0.2 s on this machine under load) stays a small part of
 * it. At 0.5 s the same overhead is a third of each round (docs/performance.md).
 */
const UPGRADE_SECONDS = 2;
const RATIO_TARGET = 1.2;

/** scale-1000 where only the database upgrades take time: the other steps cost nothing. */
function fanoutScenario(databaseUpgrade: number): Scenario {
  return { ...loadScenario('scale-1000'), timing: { operatorStart: 0, podRestart: 0, databaseUpgrade } };
}

interface StepRun {
  /** From the step's `step-start` event to its `step-done`, by their timestamps. */
  stepMs: number;
  upgraded: number;
}

interface NdjsonEvent {
  ts?: string;
  type?: string;
  step?: string;
  /** The step's outcome (step-done). */
  data?: { upgraded?: unknown[] } & Record<string, unknown>;
}

/** One whole `ctl upgrade run` on a fresh simulator; the databases step's time from its events. */
async function runOnce(databaseUpgrade: number): Promise<StepRun> {
  const scenario = fanoutScenario(databaseUpgrade);
  const cluster = await startSimulatedCluster({ scenario, fast: false });
  const work = scratch('ctl-bench-fanout-');
  try {
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: work.dir,
      NO_COLOR: '1',
      XDG_STATE_HOME: work.dir,
      ...cluster.env,
    };
    const args = [ctlBin, 'upgrade', 'run', '--to', TARGET_VERSION, '--yes', '-o', 'json'];
    args.push('--max-parallel', String(PARALLEL));
    const result = expectExit(
      await run(process.execPath, args, { env, cwd: work.dir, timeoutMs: 600_000 }),
      'ctl upgrade run',
    );
    const events = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as NdjsonEvent)
      .filter((event) => event.step === 'databases');
    const start = events.find((e) => e.type === 'step-start');
    const done = events.find((e) => e.type === 'step-done');
    if (!start?.ts || !done?.ts) {
      throw new Error(
        `ctl upgrade run: no step-start and step-done of the databases step\n${result.stdout.slice(-2000)}`,
      );
    }
    const upgraded = done.data?.upgraded;
    return {
      stepMs: Date.parse(done.ts) - Date.parse(start.ts),
      upgraded: Array.isArray(upgraded) ? upgraded.length : 0,
    };
  } finally {
    work.remove();
    await cluster.stop();
  }
}

export async function fanout(runs: number): Promise<Figure[]> {
  const databases = loadScenario('scale-1000').databases.length;
  const ideal = (databases / PARALLEL) * UPGRADE_SECONDS * 1000;
  const zero: StepRun[] = [];
  const timed: StepRun[] = [];
  for (let i = 0; i < runs; i++) {
    zero.push(await runOnce(0));
    timed.push(await runOnce(UPGRADE_SECONDS));
  }
  const incomplete = [...zero, ...timed].find((r) => r.upgraded !== databases);
  if (incomplete)
    throw new Error(`the databases step upgraded ${incomplete.upgraded} of ${databases} databases`);
  const wall = median(timed.map((r) => r.stepMs));
  const overhead = median(zero.map((r) => r.stepMs));
  return [
    {
      bench: 'fanout',
      figure: `databases step, scale-1000, --max-parallel ${PARALLEL}, ${UPGRADE_SECONDS * 1000} ms per database`,
      value: ms(wall),
      target: `ratio <= ${RATIO_TARGET}`,
      ok: wall / ideal <= RATIO_TARGET,
      compared: `ideal ${databases}/${PARALLEL} x ${UPGRADE_SECONDS * 1000} ms (${ms(ideal)})`,
      ratio: wall / ideal,
    },
    {
      bench: 'fanout',
      figure: `databases step, scale-1000, --max-parallel ${PARALLEL}, zero upgrade time`,
      value: ms(overhead),
      target: '(information: ctl and the emulator alone)',
      ok: undefined,
      compared: `${ms(overhead / databases)} per database`,
      note: `${runs} run(s) of each, alternating`,
    },
  ];
}
