/**
 * `npm run bench -- --only scale` (issue 39): the plan against `kubectl get` and against itself,
 * each a ratio of two sides measured in the same run, alternating (A B C D A B C D ...) after one
 * untimed warm-up of each, so that a busy machine slows every side alike and `--strict` means
 * the same on any machine:
 *
 * - `ctl upgrade plan` on 10 databases against `kubectl get rec,redb -A -o json` on the same
 *   simulator (the kubectl of the devDependencies, test/helpers/tools.ts): at most 2x;
 * - the plan on 10,000 databases (scale-10000: 100 namespaces) against the plan on 10 in the same
 *   namespaces: at most 1.5x (flat), with `kubectl get redb -A -o json` of the same 10,000
 *   objects beside it for information;
 * - the peak RSS of each plan: at most 100 MB and 250 MB;
 * - the requests (the same for 10 and 10,000) and which side does the work (the emulator's CPU
 *   time, this process, against ctl's own).
 */

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type SimulatedCluster, startSimulatedCluster } from '../src/sim/cluster.js';
import { parseScenario, type Scenario } from '../src/sim/scenario.js';
import { kubectlFor } from '../test/helpers/tools.js';
import { ctlBin, expectExit, type Figure, median, ms, repoRoot, run, scratch } from './lib.js';

const TARGET_VERSION = '7.8.2-6';
/** plan(10) / `kubectl get rec,redb -A -o json`, same simulator. */
const KUBECTL_RATIO_TARGET = 2;
/** plan(10,000) / plan(10), same namespaces. */
const FLAT_RATIO_TARGET = 1.5;
const SMALL_RSS_TARGET_MB = 100;
const LARGE_RSS_TARGET_MB = 250;
/** The emulator is not the bottleneck when it works at most half as long as ctl does. */
const EMULATOR_SHARE_TARGET = 0.5;

/** Preloaded into ctl to report its peak RSS and CPU time (`--import`). */
const usageProbe = path.join(repoRoot, 'bench', 'usage-probe.mjs');
/** Node's start-up plus the plan's requests, nothing else (bench/plan-floor.mjs). */
const planFloor = path.join(repoRoot, 'bench', 'plan-floor.mjs');

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

/** `kubectl <args>` against the simulator: its wall time (the same clock as the plan's). */
async function kubectlOnce(cluster: SimulatedCluster, dir: string, args: string[]): Promise<number> {
  const kubectl = kubectlFor(cluster.scenario.kubernetesVersion);
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, KUBECONFIG: cluster.kubeconfigPath };
  const result = await run(kubectl, args, { env, cwd: dir });
  expectExit(result, `kubectl ${args.join(' ')}`);
  return result.ms;
}

interface Side {
  cluster: SimulatedCluster;
  dir: string;
}

/** The requests of the last `count` audit entries (a plan's), as plan-floor.mjs replays them. */
function requestsOf(cluster: SimulatedCluster, count: number): string {
  const entries = cluster.audit.entries.slice(-count);
  return JSON.stringify(entries.map(({ api, method, path }) => ({ api, method, path })));
}

/** plan-floor.mjs against the simulator with the plan's requests: its wall time. */
async function floorOnce(side: Side, requests: string): Promise<number> {
  const { cluster } = side;
  const kubeconfig = readFileSync(cluster.kubeconfigPath, 'utf8');
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: side.dir,
    ...cluster.env,
    FLOOR_REQUESTS: requests,
    FLOOR_KUBE_URL: /server: (\S+)/.exec(kubeconfig)?.[1] ?? '',
    FLOOR_KUBE_TOKEN: /token: (\S+)/.exec(kubeconfig)?.[1] ?? '',
  };
  return expectExit(await run(process.execPath, [planFloor], { env, cwd: side.dir }), 'plan-floor.mjs').ms;
}

async function startSide(databases: number): Promise<Side & { startMs: number; remove(): void }> {
  const started = performance.now();
  const cluster = await startSimulatedCluster({ scenario: scale10000With(databases), fast: true });
  const startMs = performance.now() - started;
  const work = scratch(`ctl-bench-scale-${databases}-`);
  return { cluster, dir: work.dir, startMs, remove: work.remove };
}

const medianOf = (runs: PlanRun[], pick: (r: PlanRun) => number): number => median(runs.map(pick));

export async function scale(runs: number): Promise<Figure[]> {
  const small = await startSide(10);
  let large: Awaited<ReturnType<typeof startSide>> | undefined;
  try {
    large = await startSide(10000);
    const plans = { small: [] as PlanRun[], large: [] as PlanRun[] };
    const kubectl = { small: [] as number[], large: [] as number[] };
    const floor = { small: [] as number[], large: [] as number[] };
    // The plan's requests, from the audit of a first plan of each.
    const replay = {
      small: requestsOf(small.cluster, (await planOnce(small.cluster, small.dir)).requests),
      large: requestsOf(large.cluster, (await planOnce(large.cluster, large.dir)).requests),
    };
    const smallKubectl = ['get', 'rec,redb', '-A', '-o', 'json'];
    const largeKubectl = ['get', 'redb', '-A', '-o', 'json'];
    const round = async (record: boolean): Promise<void> => {
      const planSmall = await planOnce(small.cluster, small.dir);
      const getSmall = await kubectlOnce(small.cluster, small.dir, smallKubectl);
      const planLarge = await planOnce(large!.cluster, large!.dir);
      const getLarge = await kubectlOnce(large!.cluster, large!.dir, largeKubectl);
      const floorSmall = await floorOnce(small, replay.small);
      const floorLarge = await floorOnce(large!, replay.large);
      if (!record) return;
      floor.small.push(floorSmall);
      floor.large.push(floorLarge);
      plans.small.push(planSmall);
      kubectl.small.push(getSmall);
      plans.large.push(planLarge);
      kubectl.large.push(getLarge);
    };
    await round(false); // warm-up: compile cache, kubectl's discovery cache
    for (let i = 0; i < runs; i++) await round(true);
    return figures(plans, kubectl, floor, large.startMs);
  } finally {
    small.remove();
    await small.cluster.stop();
    large?.remove();
    await large?.cluster.stop();
  }
}

function figures(
  plans: { small: PlanRun[]; large: PlanRun[] },
  kubectl: { small: number[]; large: number[] },
  floor: { small: number[]; large: number[] },
  largeStartMs: number,
): Figure[] {
  const wall = (r: PlanRun) => r.wallMs;
  const smallWall = medianOf(plans.small, wall);
  const largeWall = medianOf(plans.large, wall);
  const smallGet = median(kubectl.small);
  const largeGet = median(kubectl.large);
  const smallRss = medianOf(plans.small, (r) => r.peakRssMb);
  const largeRss = medianOf(plans.large, (r) => r.peakRssMb);
  const requests = [...plans.small, ...plans.large].map((r) => r.requests);
  const flat = requests.every((count) => count === requests[0]);
  const emulator = medianOf(plans.large, (r) => r.emulatorCpuMs);
  const ctlCpu = medianOf(plans.large, (r) => r.ctlCpuMs);
  const cpu = (runs: PlanRun[]) => ms(medianOf(runs, (r) => r.ctlCpuMs));
  return [
    {
      bench: 'scale',
      figure: 'ctl upgrade plan, 10 databases: wall',
      value: ms(smallWall),
      target: `ratio <= ${KUBECTL_RATIO_TARGET}`,
      ok: smallWall / smallGet <= KUBECTL_RATIO_TARGET,
      compared: `kubectl get rec,redb -A -o json, same simulator (${ms(smallGet)})`,
      ratio: smallWall / smallGet,
      note: `ctl CPU ${cpu(plans.small)}`,
    },
    {
      bench: 'scale',
      figure: "the floor: Node start-up + the plan's requests, 10 databases",
      value: ms(median(floor.small)),
      target: '(information)',
      ok: undefined,
      compared: 'ctl upgrade plan of 10 databases',
      ratio: smallWall / median(floor.small),
      note: `bench/plan-floor.mjs, all requests at once; 10,000 databases: ${ms(median(floor.large))} (plan / floor ${(largeWall / median(floor.large)).toFixed(2)})`,
    },
    {
      bench: 'scale',
      figure: 'peak RSS, plan of 10 databases',
      value: `${smallRss.toFixed(0)} MB`,
      target: `<= ${SMALL_RSS_TARGET_MB} MB`,
      ok: smallRss <= SMALL_RSS_TARGET_MB,
    },
    {
      bench: 'scale',
      figure: 'ctl upgrade plan, 10,000 databases (scale-10000): wall',
      value: ms(largeWall),
      target: `ratio <= ${FLAT_RATIO_TARGET}`,
      ok: largeWall / smallWall <= FLAT_RATIO_TARGET,
      compared: `the plan of 10 databases in the same 100 namespaces (${ms(smallWall)})`,
      ratio: largeWall / smallWall,
      note: `ctl CPU ${cpu(plans.large)} (10 databases: ${cpu(plans.small)}); simulator start with 10,000 databases ${ms(largeStartMs)}`,
    },
    {
      bench: 'scale',
      figure: 'kubectl get redb -A -o json, the same 10,000 objects',
      value: ms(largeGet),
      target: '(information)',
      ok: undefined,
      compared: 'ctl upgrade plan of 10,000 databases',
      ratio: largeWall / largeGet,
      note: 'ratio: the plan (both APIs, every check) over the list of the database resources alone',
    },
    {
      bench: 'scale',
      figure: 'peak RSS, plan of 10,000 databases',
      value: `${largeRss.toFixed(0)} MB`,
      target: `<= ${LARGE_RSS_TARGET_MB} MB`,
      ok: largeRss <= LARGE_RSS_TARGET_MB,
      compared: `10 databases: ${smallRss.toFixed(0)} MB`,
      ratio: largeRss / smallRss,
    },
    {
      bench: 'scale',
      figure: 'requests, 10,000 databases (both APIs)',
      value: String(plans.large[0]?.requests),
      target: 'same as 10',
      ok: flat,
      compared: `10 databases: ${plans.small[0]?.requests}`,
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
