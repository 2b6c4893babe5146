/**
 * The five benchmarks of docs/performance.md. Each runs ctl and the command it is compared
 * with in the same run, alternating, and returns figures; index.ts prints them.
 */

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type SimulatedCluster, startSimulatedCluster } from '../src/sim/cluster.js';
import type { ChangeEvent } from '../src/sim/kube/store.js';
import { loadScenario, parseScenario, type Scenario } from '../src/sim/scenario.js';
import { dialectFields } from '../src/release/dialect.js';
import { kubectlFor } from '../test/helpers/tools.js';
import {
  alternate,
  ctlBin,
  expectExit,
  type Figure,
  median,
  ms,
  readRssMb,
  repoRoot,
  rssProbe,
  run,
  runbookDir,
  scratch,
  which,
} from './lib.js';

const TARGET_VERSION = '7.8.2-6';

/** A small environment: no developer CTL_* or KUBECONFIG leaks into a measured command. */
function baseEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    NO_COLOR: '1',
    ...extra,
  };
}

const ratio = (a: number[], b: number[]): number => median(a) / median(b);

/**
 * What bench/runbook/upgrade.sh needs: the cluster, the bundle, and the field names of the
 * scenario's CRDs (the built-in scenarios speak the real product's since issue 38; a runbook that
 * patched the other spelling waited for a change that never came). MAX_WAIT ends a stuck runbook
 * with a message before run()'s own 300 s timeout kills it.
 */
export function runbookEnv(cluster: SimulatedCluster, home: string): NodeJS.ProcessEnv {
  const fields = dialectFields(cluster.scenario.dialect);
  return baseEnv({
    KUBECONFIG: cluster.kubeconfigPath,
    HOME: home,
    BUNDLE_URL: bundleUrl(cluster),
    IMAGE_SPEC: fields.imageSpecPath.at(-1) ?? '',
    DB_FIELD: fields.databaseVersionField,
    MAX_WAIT: '120',
  });
}

/**
 * The runbook scripts' PATH: the kubectl of the devDependencies (test/helpers/tools.ts) first, so
 * the compared side always runs and its target can be a ratio (issue 39); curl from the system.
 */
export function withKubectl(env: NodeJS.ProcessEnv, kubernetesVersion: string): NodeJS.ProcessEnv {
  return { ...env, PATH: `${path.dirname(kubectlFor(kubernetesVersion))}${path.delimiter}${env.PATH ?? ''}` };
}

/** ctl's plan takes no longer than the runbook's reads (12 kubectl and 3 curl calls) of the same cluster. */
const PLAN_RUNBOOK_TARGET = 1;
/** A whole zero-work run costs at most half of the runbook script's. */
const OVERHEAD_RUNBOOK_TARGET = 0.5;

// ---- 1. start-up -------------------------------------------------------------------------------

/**
 * Every command of ctl's tree (src/cli/), as the words after `ctl`: `--help` of each must load
 * only the command tree (docs/performance.md). A command added to the CLI belongs here.
 */
export const HELP_COMMANDS: string[][] = [
  [],
  ['auth'],
  ['auth', 'token'],
  ['auth', 'trust'],
  ['upgrade'],
  ['upgrade', 'plan'],
  ['upgrade', 'run'],
  ['upgrade', 'status'],
  ['upgrade', 'steps'],
  ['upgrade', 'unlock'],
  ['sim'],
  ['sim', 'up'],
  ['sim', 'scenarios'],
  ['sim', 'capture'],
  ['demo'],
  ['completion'],
  ['version'],
];

const STARTUP_TARGET = 1.5;

export async function startup(runs: number): Promise<Figure[]> {
  const env = baseEnv();
  const node = (args: string[], what: string) => async () =>
    expectExit(await run(process.execPath, args, { env }), what).ms;
  const sides: Record<string, () => Promise<number>> = {
    node: node(['-e', '0'], 'node -e 0'),
    '--version': node([ctlBin, '--version'], 'ctl --version'),
  };
  for (const words of HELP_COMMANDS) {
    const label = ['ctl', ...words, '--help'].join(' ');
    sides[label] = node([ctlBin, ...words, '--help'], label);
  }
  // One run, interleaved: node -e 0, then every command, again and again.
  const t = await alternate(sides, runs);
  const baseline = t.node as number[];
  const figure = (name: string, times: number[]): Figure => {
    const r = ratio(times, baseline);
    return {
      bench: 'start-up',
      figure: name,
      value: ms(median(times)),
      target: `ratio <= ${STARTUP_TARGET}`,
      ok: r <= STARTUP_TARGET,
      compared: `node -e 0 (${ms(median(baseline))})`,
      ratio: r,
    };
  };
  return Object.entries(t)
    .filter(([name]) => name !== 'node')
    .map(([name, times]) => figure(name === '--version' ? 'ctl --version' : name, times));
}

// ---- 2. token ----------------------------------------------------------------------------------

/** Issue 18: within 4x curl on the same request (Node's own start is ~1.9x curl's whole run). */
/** ctl auth token against a bare node:https POST of the same request (docs/performance.md). */
const TOKEN_TARGET = 1.25;
const tokenFloor = path.join(repoRoot, 'bench', 'token-floor.mjs');

export async function token(runs: number): Promise<Figure[]> {
  const curl = which('curl');
  const cluster = await startSimulatedCluster({ scenario: loadScenario('happy-path'), fast: true });
  try {
    const env = baseEnv(cluster.env);
    const ctl =
      (args: string[], sideEnv = env) =>
      async () =>
        expectExit(
          await run(process.execPath, [ctlBin, 'auth', 'token', ...args], { env: sideEnv }),
          'ctl auth token',
        ).ms;
    const sides: Record<string, () => Promise<number>> = {
      // happy-path's API is 7.4: the body form is the one request it takes, the one curl sends.
      ctl: ctl(['--auth-form', 'body']),
      auto: ctl([]),
      // Without the compiled code bin/ctl.js keeps between runs: every run compiles the bundle.
      uncached: ctl(['--auth-form', 'body'], { ...env, NODE_DISABLE_COMPILE_CACHE: '1' }),
      // A bare node:https POST of the same request on the same runtime: what Node itself costs,
      // whatever the client (bench/token-floor.mjs). ctl's target is measured against it.
      floor: async () =>
        expectExit(await run(process.execPath, [tokenFloor], { env }), 'node token-floor.mjs').ms,
    };
    if (curl) {
      const body = JSON.stringify({
        username: cluster.env.CTL_USERNAME,
        password: cluster.env.CTL_PASSWORD,
        ttl: 300,
      });
      const args = ['-sSf', '--cacert', cluster.caPath, '-X', 'POST', '-H', 'Content-Type: application/json'];
      sides.curl = async () =>
        expectExit(
          await run(curl, [...args, '-d', body, `${cluster.apiUrl}/v1/users/authorize`], { env }),
          'curl',
        ).ms;
    }
    const t = await alternate(sides, runs);
    const ctlTimes = t.ctl as number[];
    const floorTimes = t.floor as number[];
    const floorMedian = ms(median(floorTimes));
    const curlNote = t.curl
      ? `curl, same request: ${ms(median(t.curl))}; ctl / curl ${ratio(ctlTimes, t.curl).toFixed(2)}, floor / curl ${ratio(floorTimes, t.curl).toFixed(2)}`
      : 'curl is not on the PATH';
    return [
      {
        bench: 'token',
        figure: 'ctl auth token --auth-form body',
        value: ms(median(ctlTimes)),
        target: `ratio <= ${TOKEN_TARGET}`,
        ok: ratio(ctlTimes, floorTimes) <= TOKEN_TARGET,
        compared: `one node:https POST of the same request, same runtime (${floorMedian})`,
        ratio: ratio(ctlTimes, floorTimes),
      },
      {
        bench: 'token',
        figure: 'the same request with curl',
        value: t.curl ? ms(median(t.curl)) : '-',
        target: '(information: a native client)',
        ok: undefined,
        compared: `ctl (${ms(median(ctlTimes))})`,
        ...(t.curl ? { ratio: ratio(ctlTimes, t.curl) } : {}),
        note: curlNote,
      },
      {
        bench: 'token',
        figure: 'ctl auth token --auth-form body, no compile cache (NODE_DISABLE_COMPILE_CACHE=1)',
        value: ms(median(t.uncached as number[])),
        target: '(information: a first run)',
        ok: undefined,
        compared: `node:https floor (${floorMedian})`,
        ratio: ratio(t.uncached as number[], floorTimes),
      },
      {
        bench: 'token',
        figure: 'ctl auth token (auto: header, then body on 400)',
        value: ms(median(t.auto as number[])),
        target: '(information: 2 requests on a pre-7.8.2 API)',
        ok: undefined,
        compared: `node:https floor (${floorMedian})`,
        ratio: ratio(t.auto as number[], floorTimes),
      },
    ];
  } finally {
    await cluster.stop();
  }
}

// ---- 3. plan at scale --------------------------------------------------------------------------

/** scale-1000 with another database count: the same 20 namespaces, 100 modules and 9 nodes. */
export function scaleScenario(databases: number): Scenario {
  const text = readFileSync(path.join(repoRoot, 'scenarios', 'scale-1000.yaml'), 'utf8');
  const changed = text.replace(/(databases:\s*\n\s*count:\s*)1000/, `$1${databases}`);
  if (databases !== 1000 && changed === text)
    throw new Error('scale-1000.yaml: cannot find the database count');
  return parseScenario(changed, `scale-${databases}`);
}

async function planRequests(scenario: Scenario): Promise<number> {
  const cluster = await startSimulatedCluster({ scenario, fast: true });
  const work = scratch('ctl-bench-plan-');
  try {
    const before = cluster.audit.entries.length;
    await planOnce(cluster, work.dir);
    return cluster.audit.entries.length - before;
  } finally {
    work.remove();
    await cluster.stop();
  }
}

function planArgs(): string[] {
  return ['upgrade', 'plan', '--to', TARGET_VERSION, '-o', 'json'];
}

async function planOnce(cluster: SimulatedCluster, cwd: string, execArgv: string[] = [], extraEnv = {}) {
  const env = baseEnv({ ...cluster.env, XDG_STATE_HOME: cwd, ...extraEnv });
  // Exit 3 (blocked) is still a complete plan; anything else is not.
  return expectExit(
    await run(process.execPath, [...execArgv, ctlBin, ...planArgs()], { env, cwd }),
    'ctl upgrade plan',
    [0, 3],
  );
}

export async function plan(runs: number): Promise<Figure[]> {
  const requests10 = await planRequests(scaleScenario(10));
  const cluster = await startSimulatedCluster({ scenario: loadScenario('scale-1000'), fast: true });
  const work = scratch('ctl-bench-plan-');
  const curl = which('curl');
  try {
    const before = cluster.audit.entries.length;
    await planOnce(cluster, work.dir);
    const requests1000 = cluster.audit.entries.length - before;

    const rssFile = path.join(work.dir, 'rss');
    const rss: number[] = [];
    for (let i = 0; i < 3; i++) {
      await planOnce(cluster, work.dir, ['--import', rssProbe], { CTL_BENCH_RSS_FILE: rssFile });
      rss.push(readRssMb(rssFile));
    }

    const sides: Record<string, () => Promise<number>> = {
      ctl: async () => (await planOnce(cluster, work.dir)).ms,
    };
    let runbookRequests: number | undefined;
    if (curl) {
      const env = withKubectl(
        baseEnv({ ...cluster.env, HOME: work.dir }),
        cluster.scenario.kubernetesVersion,
      );
      const script = path.join(runbookDir, 'plan-reads.sh');
      sides.runbook = async () =>
        expectExit(await run('bash', [script], { env, cwd: work.dir }), 'plan-reads.sh').ms;
      await sides.runbook(); // warms kubectl's discovery cache in HOME
      const start = cluster.audit.entries.length;
      await sides.runbook();
      runbookRequests = cluster.audit.entries.length - start;
    }
    const t = await alternate(sides, runs);
    const wall = median(t.ctl as number[]);
    const compared = t.runbook
      ? `runbook reads (${ms(median(t.runbook))}, ${runbookRequests} requests)`
      : undefined;
    return [
      {
        bench: 'plan',
        figure: 'ctl upgrade plan, scale-1000: wall',
        value: ms(wall),
        target: `ratio <= ${PLAN_RUNBOOK_TARGET}`,
        // Without curl there is no compared side: not met, and the note says why.
        ok: t.runbook ? ratio(t.ctl as number[], t.runbook) <= PLAN_RUNBOOK_TARGET : false,
        ...(compared
          ? { compared, ratio: ratio(t.ctl as number[], t.runbook as number[]) }
          : { note: 'curl is not on the PATH: the runbook reads are not compared' }),
      },
      {
        bench: 'plan',
        figure: 'requests, 1,000 databases (both APIs)',
        value: String(requests1000),
        target: '<= 25, same as 10',
        ok: requests1000 <= 25 && requests1000 === requests10,
        compared: `10 databases: ${requests10}`,
      },
      {
        bench: 'plan',
        figure: 'peak RSS, scale-1000',
        value: `${median(rss).toFixed(0)} MB`,
        target: '< 200 MB',
        ok: median(rss) < 200,
      },
    ];
  } finally {
    work.remove();
    await cluster.stop();
  }
}

// ---- 4. reaction -------------------------------------------------------------------------------

interface Change {
  kind: 'pod-ready' | 'cluster-running' | 'database-active';
  name: string;
  at: number;
}

const status = (object: unknown): Record<string, unknown> =>
  ((object as { status?: Record<string, unknown> } | undefined)?.status ?? {}) as Record<string, unknown>;

function isReady(object: unknown): boolean {
  const conditions = status(object).conditions;
  return Array.isArray(conditions) && conditions.some((c) => c?.type === 'Ready' && c?.status === 'True');
}

/** The state changes of an upgrade, timed as the simulator makes them. */
function watchChanges(cluster: SimulatedCluster, changes: Change[]): () => void {
  let upgrading = false;
  const listener = (event: ChangeEvent): void => {
    const at = performance.now();
    const { kind } = event.resource;
    const name = event.object.metadata.name ?? '';
    const now = status(event.object);
    const before = status(event.oldObject);
    if (kind === 'RedisEnterpriseCluster') {
      if (now.state === 'Upgrade') upgrading = true;
      if (upgrading && now.state === 'Running' && before.state !== 'Running') {
        changes.push({ kind: 'cluster-running', name, at });
      }
    } else if (kind === 'Pod' && upgrading && /^rec-\d+$/.test(name)) {
      if (isReady(event.object) && !isReady(event.oldObject)) changes.push({ kind: 'pod-ready', name, at });
    } else if (kind === 'RedisEnterpriseDatabase') {
      if (now.status === 'active' && before.status !== undefined && before.status !== 'active') {
        changes.push({ kind: 'database-active', name: `${event.object.metadata.namespace}/${name}`, at });
      }
    }
  };
  cluster.kube.store.on('change', listener);
  return () => cluster.kube.store.off('change', listener);
}

/** When ctl (or the runbook) told: the first matching line after the change. */
function reactionTimes(changes: Change[], lines: { line: string; at: number }[]): Record<string, number[]> {
  const out: Record<string, number[]> = { 'pod-ready': [], 'cluster-running': [], 'database-active': [] };
  let podsSeen = 0;
  for (const change of changes) {
    let match: (line: string) => boolean;
    if (change.kind === 'pod-ready') {
      podsSeen += 1;
      const count = podsSeen;
      match = (line) => {
        const m = /pods (\d+)\/\d+ upgraded/.exec(line);
        return m !== null && Number(m[1]) >= count;
      };
    } else if (change.kind === 'cluster-running') {
      match = (line) =>
        (line.includes('"step-done"') && line.includes('"monitor"')) || / cluster-running$/.test(line);
    } else {
      match = (line) =>
        line.includes(`${change.name}: runs`) || line.endsWith(`database-active ${change.name}`);
    }
    const seen = lines.find((l) => l.at >= change.at && match(l.line));
    if (seen) out[change.kind]?.push(seen.at - change.at);
  }
  return out;
}

function timedScenario(base: Scenario, timing: Scenario['timing']): Scenario {
  return { ...base, timing };
}

export async function reaction(samplesWanted: number): Promise<Figure[]> {
  const scenario = timedScenario(loadScenario('happy-path'), {
    operatorStart: 0.3,
    podRestart: 0.6,
    databaseUpgrade: 0.4,
  });
  const all: Record<string, number[]> = { 'pod-ready': [], 'cluster-running': [], 'database-active': [] };
  const count = () => Object.values(all).reduce((n, v) => n + v.length, 0);
  let runs = 0;
  while (count() < samplesWanted && runs < 10) {
    runs += 1;
    const cluster = await startSimulatedCluster({ scenario, fast: false });
    const work = scratch('ctl-bench-reaction-');
    const changes: Change[] = [];
    const lines: { line: string; at: number }[] = [];
    const stop = watchChanges(cluster, changes);
    try {
      const env = baseEnv({ ...cluster.env, XDG_STATE_HOME: work.dir });
      expectExit(
        await run(
          process.execPath,
          [ctlBin, 'upgrade', 'run', '--to', TARGET_VERSION, '--yes', '-o', 'json'],
          {
            env,
            cwd: work.dir,
            onLine: (line, at) => lines.push({ line, at }),
          },
        ),
        'ctl upgrade run',
      );
    } finally {
      stop();
      work.remove();
      await cluster.stop();
    }
    for (const [kind, times] of Object.entries(reactionTimes(changes, lines))) all[kind]?.push(...times);
  }
  const every = Object.values(all).flat();
  const figures: Figure[] = [
    {
      bench: 'reaction',
      figure: `state change -> ctl event, ${every.length} changes in ${runs} runs: median`,
      value: ms(median(every)),
      target: '< 100 ms',
      ok: median(every) < 100,
    },
    {
      bench: 'reaction',
      figure: 'state change -> ctl event: worst',
      value: ms(Math.max(...every)),
      target: '< 500 ms',
      ok: Math.max(...every) < 500,
      note: Object.entries(all)
        .map(([kind, times]) => `${kind} ${times.length}x median ${ms(median(times))}`)
        .join(', '),
    },
  ];
  const kubectl = which('kubectl');
  if (kubectl) {
    const cluster = await startSimulatedCluster({ scenario, fast: false });
    const work = scratch('ctl-bench-reaction-');
    const changes: Change[] = [];
    const lines: { line: string; at: number }[] = [];
    const stop = watchChanges(cluster, changes);
    try {
      const env = withKubectl(runbookEnv(cluster, work.dir), scenario.kubernetesVersion);
      expectExit(
        await run('bash', [path.join(runbookDir, 'upgrade.sh')], {
          env,
          cwd: work.dir,
          onLine: (line, at) => lines.push({ line, at }),
        }),
        'runbook upgrade.sh',
      );
    } finally {
      stop();
      work.remove();
      await cluster.stop();
    }
    const times = Object.values(
      reactionTimes(
        changes.filter((c) => c.kind !== 'pod-ready'),
        lines,
      ),
    ).flat();
    const ctlComparable = [...(all['cluster-running'] ?? []), ...(all['database-active'] ?? [])];
    figures.push({
      bench: 'reaction',
      figure: 'cluster running / database active -> ctl event: median',
      value: ms(median(ctlComparable)),
      target: '(vs. the runbook)',
      ok: undefined,
      compared: `runbook, sleep 5 polling: median ${ms(median(times))}, worst ${ms(Math.max(...times))} (${times.length} changes)`,
      ratio: median(ctlComparable) / median(times),
    });
  }
  return figures;
}

function bundleUrl(cluster: SimulatedCluster): string {
  return (cluster.env.CTL_BUNDLE ?? '').replace('{version}', TARGET_VERSION);
}

// ---- 5. overhead -------------------------------------------------------------------------------

/** happy-path with 10 databases instead of 3 (a variant made here, not a built-in scenario). */
export function tenDatabaseScenario(): Scenario {
  const text = readFileSync(path.join(repoRoot, 'scenarios', 'happy-path.yaml'), 'utf8');
  const start = text.indexOf('\ndatabases:');
  const end = text.indexOf('\nfaults:');
  if (start < 0 || end < start) throw new Error('happy-path.yaml: cannot find the databases');
  const databases = Array.from(
    { length: 10 },
    (_, i) => `  - { name: db${String(i + 1).padStart(2, '0')}, namespace: redis, version: "7.2" }`,
  ).join('\n');
  return parseScenario(
    `${text.slice(0, start)}\ndatabases:\n${databases}${text.slice(end)}`,
    'happy-path-10db',
  );
}

export async function overhead(runs: number): Promise<Figure[]> {
  const scenario = tenDatabaseScenario();
  const once = async (side: 'ctl' | 'runbook'): Promise<number> => {
    const cluster = await startSimulatedCluster({ scenario, fast: true });
    const work = scratch('ctl-bench-overhead-');
    try {
      if (side === 'ctl') {
        const env = baseEnv({ ...cluster.env, XDG_STATE_HOME: work.dir });
        const args = [ctlBin, 'upgrade', 'run', '--to', TARGET_VERSION, '--yes', '-o', 'json'];
        return expectExit(await run(process.execPath, args, { env, cwd: work.dir }), 'ctl upgrade run').ms;
      }
      const env = withKubectl(runbookEnv(cluster, work.dir), scenario.kubernetesVersion);
      return expectExit(
        await run('bash', [path.join(runbookDir, 'upgrade.sh')], { env, cwd: work.dir }),
        'upgrade.sh',
      ).ms;
    } finally {
      work.remove();
      await cluster.stop();
    }
  };
  const t = await alternate({ ctl: () => once('ctl'), runbook: () => once('runbook') }, runs);
  const wall = median(t.ctl as number[]);
  const runbook = t.runbook as number[];
  return [
    {
      bench: 'overhead',
      figure: 'ctl upgrade run, 3 nodes, 10 databases, zero work time',
      value: ms(wall),
      target: `ratio <= ${OVERHEAD_RUNBOOK_TARGET}`,
      ok: ratio(t.ctl as number[], runbook) <= OVERHEAD_RUNBOOK_TARGET,
      compared: `runbook script (${ms(median(runbook))})`,
      ratio: ratio(t.ctl as number[], runbook),
    },
  ];
}
