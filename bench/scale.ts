/**
 * `npm run bench -- --only scale`: `ctl upgrade plan` on scale-10000 (10,000 databases in 100
 * namespaces), against the same plan on 10 and 1,000 databases in the same 100 namespaces,
 * measured in the same run. It shows how the plan grows with the estate: its requests (flat),
 * its wall time, its peak memory, and which side does the work: the emulator (CPU time of this
 * process, which hosts it, while ctl runs) or ctl (its own CPU time, from getrusage).
 */

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type SimulatedCluster, startSimulatedCluster } from '../src/sim/cluster.js';
import { parseScenario, type Scenario } from '../src/sim/scenario.js';
import { ctlBin, expectExit, type Figure, median, ms, repoRoot, run, scratch } from './lib.js';

const TARGET_VERSION = '7.8.2-6';
const WALL_TARGET_MS = 2000;
const RSS_TARGET_MB = 400;
/** The emulator is not the bottleneck when it works at most half as long as ctl does. */
const EMULATOR_SHARE_TARGET = 0.5;

/** Preloaded into ctl to report its peak RSS and CPU time (`--import`). */
const usageProbe = path.join(repoRoot, 'bench', 'usage-probe.mjs');

/** scale-10000 with another database count: the same 100 namespaces, 100 modules and 9 nodes. */
export function scale10000With(databases: number): Scenario {
  const text = readFileSync(path.join(repoRoot, 'scenarios', 'scale-10000.yaml'), 'utf8');
  const changed = text.replace(/(databases:\s*\n\s*count:\s*)10000/, `$1${databases}`);
  if (changed === text && databases !== 10000)
    throw new Error('scale-10000.yaml: cannot find the database count');
  return parseScenario(changed, `scale-${databases}`);
}

interface PlanRun {
  wallMs: number;
  requests: number;
  /** CPU time of this process (the emulator) while ctl ran. */
  emulatorCpuMs: number;
  ctlCpuMs: number;
  peakRssMb: number;
}

/** One `ctl upgrade plan`, with the probe, against a running simulator. */
async function planOnce(cluster: SimulatedCluster, dir: string): Promise<PlanRun> {
  const usageFile = path.join(dir, 'usage.json');
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    NO_COLOR: '1',
    XDG_STATE_HOME: dir,
    CTL_BENCH_USAGE_FILE: usageFile,
    ...cluster.env,
  };
  const args = ['--import', usageProbe, ctlBin, 'upgrade', 'plan', '--to', TARGET_VERSION, '-o', 'json'];
  const before = cluster.audit.entries.length;
  const cpu = process.cpuUsage();
  const result = await run(process.execPath, args, { env, cwd: dir });
  const used = process.cpuUsage(cpu);
  // Exit 3 (blocked by a check) is still a complete plan; anything else is not.
  expectExit(result, 'ctl upgrade plan', [0, 3]);
  const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as { maxRssKb: number; cpuMs: number };
  return {
    wallMs: result.ms,
    requests: cluster.audit.entries.length - before,
    emulatorCpuMs: (used.user + used.system) / 1000,
    ctlCpuMs: usage.cpuMs,
    peakRssMb: usage.maxRssKb / 1024,
  };
}

interface Sample {
  databases: number;
  runs: PlanRun[];
  startMs: number;
}

/** A fresh simulator with `databases`, one untimed warm-up plan, then `runs` timed plans. */
async function sample(databases: number, runs: number): Promise<Sample> {
  const started = performance.now();
  const cluster = await startSimulatedCluster({ scenario: scale10000With(databases), fast: true });
  const startMs = performance.now() - started;
  const work = scratch('ctl-bench-scale-');
  try {
    await planOnce(cluster, work.dir);
    const timed: PlanRun[] = [];
    for (let i = 0; i < runs; i++) timed.push(await planOnce(cluster, work.dir));
    return { databases, runs: timed, startMs };
  } finally {
    work.remove();
    await cluster.stop();
  }
}

const med = (s: Sample, pick: (r: PlanRun) => number): number => median(s.runs.map(pick));

export async function scale(runs: number): Promise<Figure[]> {
  // Smallest first: a noisy neighbour then slows the large sample, never flatters it.
  const [small, middle, large] = [
    await sample(10, runs),
    await sample(1000, runs),
    await sample(10000, runs),
  ] as [Sample, Sample, Sample];
  const wall = med(large, (r) => r.wallMs);
  const requests = large.runs.map((r) => r.requests);
  const flat = [...small.runs, ...middle.runs, ...large.runs].every(
    (r) => r.requests === small.runs[0]?.requests,
  );
  const rss = med(large, (r) => r.peakRssMb);
  const emulator = med(large, (r) => r.emulatorCpuMs);
  const ctlCpu = med(large, (r) => r.ctlCpuMs);
  const growth = (s: Sample) =>
    `${s.databases}: ${ms(med(s, (r) => r.wallMs))}, ${s.runs[0]?.requests} requests, ${med(s, (r) => r.peakRssMb).toFixed(0)} MB, emulator ${ms(med(s, (r) => r.emulatorCpuMs))} / ctl ${ms(med(s, (r) => r.ctlCpuMs))} CPU`;
  return [
    {
      bench: 'scale',
      figure: 'ctl upgrade plan, scale-10000: wall',
      value: ms(wall),
      target: `<= ${WALL_TARGET_MS} ms`,
      ok: wall <= WALL_TARGET_MS,
      compared: `10 databases, same 100 namespaces (${ms(med(small, (r) => r.wallMs))})`,
      ratio: wall / med(small, (r) => r.wallMs),
      note: `by database count: ${[small, middle, large].map(growth).join('; ')}; simulator start with 10,000 databases ${ms(large.startMs)}`,
    },
    {
      bench: 'scale',
      figure: 'requests, 10,000 databases (both APIs)',
      value: String(requests[0]),
      target: 'same as 10',
      ok: flat,
      compared: `10 databases: ${small.runs[0]?.requests}, 1,000: ${middle.runs[0]?.requests}`,
    },
    {
      bench: 'scale',
      figure: 'peak RSS, scale-10000',
      value: `${rss.toFixed(0)} MB`,
      target: `< ${RSS_TARGET_MB} MB`,
      ok: rss < RSS_TARGET_MB,
      compared: `10 databases: ${med(small, (r) => r.peakRssMb).toFixed(0)} MB`,
      ratio: rss / med(small, (r) => r.peakRssMb),
    },
    {
      bench: 'scale',
      figure: 'emulator CPU while serving the plan, scale-10000',
      value: ms(emulator),
      target: `ratio <= ${EMULATOR_SHARE_TARGET}`,
      ok: emulator / ctlCpu <= EMULATOR_SHARE_TARGET,
      compared: `ctl's own CPU (${ms(ctlCpu)})`,
      ratio: emulator / ctlCpu,
    },
  ];
}
