/**
 * Shared by the reliability suite (docs/reliability.md): the BUILT ctl run as a child process
 * against an in-process simulated cluster, the checks every finished upgrade must pass, and the
 * figures each file prints. `CTL_RELIABILITY=long` (npm run test:reliability) selects the long
 * form; `npm test` runs the short one.
 */

import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dialectFields } from '../../src/release/dialect.js';
import {
  type KubeObject,
  loadScenario,
  type Scenario,
  type SimulatedCluster,
  startSimulatedCluster,
} from '../helpers/simulator.js';
import { clusterTagFor } from '../../src/release/catalog.js';
import { stateSchema } from '../../src/run/state.js';
import { runCtlInProcess } from '../helpers/in-process-ctl.js';
import {
  type CtlProcess,
  type CtlResult,
  repoRoot,
  type SpawnCtlOptions as SpawnOptions,
  spawnCtl,
} from '../helpers/run-ctl.js';
import { helmPath } from '../helpers/tools.js';

export const LONG = process.env.CTL_RELIABILITY === 'long';
export const FORM = LONG ? 'long' : 'short';

/** The short-form value under `npm test`, the long-form one under `npm run test:reliability`. */
export function pick<T>(short: T, long: T): T {
  return LONG ? long : short;
}

export const TARGET = '7.8.2-6';
export const TARGET_TAG = clusterTagFor(TARGET) ?? '';
export const TARGET_DB_VERSION = '7.4';
export const UPGRADE = ['upgrade', 'run', '--to', TARGET, '--yes'];

/**
 * One figure line on stdout (CI shows it), e.g. `reliability: crash trials 10, failures 0`.
 * With CTL_RELIABILITY_FIGURES=<file> the line is also appended there, for docs/reliability.md.
 */
export function figure(text: string): void {
  const line = `reliability (${FORM}): ${text}`;
  console.log(line);
  const file = process.env.CTL_RELIABILITY_FIGURES;
  if (file) appendFileSync(file, `${line}\n`);
}

/** How many effective changes the cluster saw, counted from the emulator's store events. */
export interface ChangeCounts {
  /** The cluster resource's image versionTag took a new value. */
  versionTag: number;
  /** The operator Deployment's image took a new value. */
  operatorImage: number;
  /** Per database resource: its version field took a new value. */
  databaseVersion: Map<string, number>;
}

export interface Bed {
  cluster: SimulatedCluster;
  /** A private folder: HOME, XDG_STATE_HOME and the cwd of every ctl run (preflight writes a backup there). */
  dir: string;
  stateDir: string;
  /** The default state file of this cluster (XDG_STATE_HOME/ctl/<context>/<namespace>/<cluster>.json). */
  statePath: string;
  /** What ctl gets: the simulator's env (KUBECONFIG, CTL_API_URL, CTL_PASSWORD ...) plus HOME etc. */
  env: Record<string, string>;
  changes: ChangeCounts;
  close(): Promise<void>;
}

export interface BedOptions {
  /** Every simulated wait at zero (default true unless `timing` is given). */
  fast?: boolean;
  timing?: Scenario['timing'];
  edit?: (scenario: Scenario) => Scenario;
}

export async function startBed(scenarioName: string, options: BedOptions = {}): Promise<Bed> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctl-rel-'));
  let scenario = loadScenario(scenarioName);
  if (options.timing) scenario = { ...scenario, timing: options.timing };
  if (options.edit) scenario = options.edit(scenario);
  const cluster = await startSimulatedCluster({
    scenario,
    dir: path.join(dir, 'sim'),
    fast: options.fast ?? options.timing === undefined,
  });
  const stateDir = path.join(dir, 'state');
  const home = path.join(dir, 'home');
  mkdirSync(home, { recursive: true });
  const statePath = path.join(
    stateDir,
    'ctl',
    `ctl-sim-${scenario.name}`,
    scenario.namespace,
    `${scenario.cluster.name}.json`,
  );
  const changes = countChanges(cluster);
  return {
    cluster,
    dir,
    stateDir,
    statePath,
    env: { ...cluster.env, HOME: home, XDG_STATE_HOME: stateDir },
    changes,
    close: async () => {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function countChanges(cluster: SimulatedCluster): ChangeCounts {
  const fields = dialectFields(cluster.scenario.dialect);
  const counts: ChangeCounts = { versionTag: 0, operatorImage: 0, databaseVersion: new Map() };
  cluster.kube.store.on(
    'change',
    (event: { type: string; resource: { kind: string }; object: KubeObject; oldObject?: KubeObject }) => {
      if (event.type !== 'MODIFIED' || !event.oldObject) return;
      const kind = event.resource.kind;
      const changed = (at: readonly string[]): boolean =>
        JSON.stringify(valueAt(event.object, at)) !== JSON.stringify(valueAt(event.oldObject, at));
      if (kind === 'RedisEnterpriseCluster' && changed([...fields.imageSpecPath, 'versionTag'])) {
        counts.versionTag += 1;
      } else if (
        kind === 'Deployment' &&
        event.object.metadata.name === 'redis-enterprise-operator' &&
        changed(['spec', 'template', 'spec', 'containers', '0', 'image'])
      ) {
        counts.operatorImage += 1;
      } else if (kind === 'RedisEnterpriseDatabase' && changed(fields.databaseVersionPath)) {
        const key = `${event.object.metadata.namespace}/${event.object.metadata.name}`;
        counts.databaseVersion.set(key, (counts.databaseVersion.get(key) ?? 0) + 1);
      }
    },
  );
  return counts;
}

function valueAt(object: unknown, at: readonly string[]): unknown {
  let value = object;
  for (const key of at) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export type { CtlProcess, CtlResult, SpawnOptions };
export { spawnCtl };

/** The highest resident memory of `pid` so far (VmHWM), in bytes; 0 once it is gone. */
function peakMemory(pid: number): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * A ctl's result and the highest resident memory it reached (read from /proc every `everyMs`
 * while it runs): for the tests of what an answer with no end costs ctl.
 */
export async function resultAndPeakMemory(
  run: CtlProcess,
  everyMs = 20,
): Promise<{ result: CtlResult; peak: number }> {
  let peak = 0;
  let running = true;
  void run.result.then(() => {
    running = false;
  });
  while (running) {
    peak = Math.max(peak, peakMemory(run.pid));
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return { result: await run.result, peak };
}

/** ctl against a bed, a process of its own: its env and folder, plus `options.env`. */
export function spawnOnBed(bed: Bed, args: string[], options: Omit<SpawnOptions, 'cwd'> = {}): CtlProcess {
  return spawnCtl(args, { ...options, cwd: bed.dir, env: { ...bed.env, ...options.env } });
}

/**
 * ctl against a bed to its end, inside the test's process (test/helpers/in-process-ctl.ts), or
 * as a process of its own with `ownProcess`: where what is tested is the process (what it
 * prints when something fails unawaited, a lock whose owner is a process).
 */
export function runOnBed(
  bed: Bed,
  args: string[],
  options: Omit<SpawnOptions, 'cwd'> & { ownProcess?: boolean } = {},
): Promise<CtlResult> {
  const { ownProcess, ...rest } = options;
  if (ownProcess) return spawnOnBed(bed, args, rest).result;
  return runCtlInProcess(args, { ...rest, cwd: bed.dir, env: { ...bed.env, ...rest.env } });
}

/** A stack trace as Node prints one ("    at fn (file:line:col)"). */
export const STACK_TRACE = /^\s+at .+[:(].*\d+:\d+\)?$/m;

/** Where a compiled fixture lives (dist/test/reliability/<name>.js). */
export function fixturePath(name: string): string {
  return path.join(repoRoot, 'dist', 'test', 'reliability', name);
}

/**
 * Everything a finished upgrade must satisfy (the crash trials' invariants): the cluster
 * Running at the target, every database at the target version, a clean state file, and from
 * the audit log and the store events at most one effective change of each kind. Returns the
 * violations (empty: all good).
 */
export function checkUpgraded(bed: Bed): string[] {
  const problems: string[] = [];
  const { cluster } = bed;
  const store = cluster.kube.store;
  const fields = dialectFields(cluster.scenario.dialect);
  const rec = store.get(
    store.resolve('app.redislabs.com/v1', 'RedisEnterpriseCluster'),
    cluster.scenario.namespace,
    cluster.scenario.cluster.name,
  );
  const tag = valueAt(rec, [...fields.imageSpecPath, 'versionTag']);
  const state = valueAt(rec, ['status', 'state']);
  if (tag !== TARGET_TAG) problems.push(`cluster versionTag is ${String(tag)}, not ${TARGET_TAG}`);
  if (state !== 'Running') problems.push(`cluster state is ${String(state)}, not Running`);
  const operator = store.get(
    store.resolve('apps/v1', 'Deployment'),
    cluster.scenario.namespace,
    'redis-enterprise-operator',
  );
  const image = valueAt(operator, ['spec', 'template', 'spec', 'containers', '0', 'image']);
  if (typeof image !== 'string' || !image.endsWith(`:${TARGET}`))
    problems.push(`operator image is ${String(image)}`);
  for (const bdb of cluster.rest.model.bdbs) {
    if (bdb.databaseVersion !== TARGET_DB_VERSION)
      problems.push(`database ${bdb.name} runs ${bdb.databaseVersion}, not ${TARGET_DB_VERSION}`);
  }
  for (const node of cluster.rest.model.nodes) {
    const version = (node as { software_version?: string }).software_version ?? '';
    if (!TARGET_TAG.startsWith(version.split('-')[0] ?? '?'))
      problems.push(`node ${String((node as { uid?: unknown }).uid)} reports ${version}`);
  }
  problems.push(...checkStateClean(bed.statePath, 'succeeded'));
  problems.push(...checkSideEffects(bed));
  return problems;
}

/** At most one effective change of each kind; at most one upgrade POST per database and module POST per module. */
export function checkSideEffects(bed: Bed): string[] {
  const problems: string[] = [];
  const { changes, cluster } = bed;
  if (changes.versionTag > 1) problems.push(`the cluster versionTag changed ${changes.versionTag} times`);
  if (changes.operatorImage > 1) problems.push(`the operator image changed ${changes.operatorImage} times`);
  for (const [db, n] of changes.databaseVersion) {
    if (n > 1) problems.push(`the version of database ${db} changed ${n} times`);
  }
  const upgrades = new Map<string, number>();
  for (const entry of cluster.audit.filter('POST', '/v1/bdbs/*/upgrade')) {
    if (entry.status < 200 || entry.status >= 300) continue;
    upgrades.set(entry.path, (upgrades.get(entry.path) ?? 0) + 1);
  }
  for (const [p, n] of upgrades) if (n > 1) problems.push(`${n} effective POST ${p}`);
  const modulePosts = cluster.audit
    .filter('POST', '/v2/modules')
    .filter((e) => e.status >= 200 && e.status < 300);
  if (modulePosts.length > cluster.rest.model.modules.length)
    problems.push(
      `${modulePosts.length} effective POST /v2/modules for ${cluster.rest.model.modules.length} modules`,
    );
  return problems;
}

/**
 * The state file parses against the schema, has the expected result, every step finished, is
 * 0600, and no temp file, lock or corrupt-file backup is left beside it.
 */
export function checkStateClean(statePath: string, result: 'succeeded' | 'failed' | 'interrupted'): string[] {
  const problems: string[] = [];
  if (!existsSync(statePath)) return [`no state file at ${statePath}`];
  const mode = statSync(statePath).mode & 0o777;
  if (mode !== 0o600) problems.push(`state file mode ${mode.toString(8)}`);
  const parsed = stateSchema.safeParse(JSON.parse(readFileSync(statePath, 'utf8')));
  if (!parsed.success) return [...problems, `state file does not match the schema: ${parsed.error.message}`];
  if (parsed.data.result !== result) problems.push(`state result ${parsed.data.result}, expected ${result}`);
  if (result === 'succeeded') {
    for (const [id, step] of Object.entries(parsed.data.steps)) {
      if (step.status !== 'done' && step.status !== 'skipped') problems.push(`step ${id} is ${step.status}`);
    }
  }
  const base = path.basename(statePath);
  const strays = readdirSync(path.dirname(statePath)).filter(
    (name) => name !== base && name.startsWith(base),
  );
  if (result === 'succeeded' && strays.length > 0)
    problems.push(`left beside the state file: ${strays.join(', ')}`);
  return problems;
}

/** Waits (at most 60 s) until the state file at `statePath` records `step` done. */
export function untilStepDone(statePath: string, step: string): Promise<true> {
  return until(
    `the ${step} step done in the state file`,
    () => (existsSync(statePath) && readState(statePath).steps[step]?.status === 'done' ? true : undefined),
    60_000,
  );
}

/** The parsed state file (the caller knows it exists). */
export function readState(statePath: string): import('../../src/run/state.js').UpgradeState {
  return stateSchema.parse(JSON.parse(readFileSync(statePath, 'utf8')));
}

/** Runs `trial(1..count)`, at most `parallel` at once (each trial has its own cluster). */
export async function pool<T>(
  count: number,
  trial: (index: number) => Promise<T>,
  parallel = Number(process.env.CTL_RELIABILITY_PARALLEL ?? 2),
): Promise<T[]> {
  const results: T[] = [];
  let next = 1;
  const worker = async (): Promise<void> => {
    while (next <= count) {
      const index = next;
      next += 1;
      results[index - 1] = await trial(index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, parallel) }, worker));
  return results;
}

export interface HelmWrapper {
  /** For --helm-bin. */
  bin: string;
  env: Record<string, string>;
  events(): { event: string; pid: number; argv?: string[] }[];
}

/**
 * helm-wrapper.ts behind a shell script in the bed: logs helm's argv and the signals it gets,
 * can hold an `upgrade` (`holdMs`) and take `stopMs` to stop after SIGTERM.
 */
export function installHelmWrapper(
  bed: Bed,
  options: { holdMs?: number; stopMs?: number } = {},
): HelmWrapper {
  const bin = path.join(bed.dir, 'helm');
  const log = path.join(bed.dir, 'helm-events.jsonl');
  writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${fixturePath('helm-wrapper.js')}" "$@"\n`, {
    mode: 0o755,
  });
  writeFileSync(log, '');
  return {
    bin,
    env: {
      HELM_WRAPPER_LOG: log,
      HELM_WRAPPER_REAL: helmPath(3),
      HELM_WRAPPER_DELAY_MS: String(options.holdMs ?? 0),
      HELM_WRAPPER_STOP_MS: String(options.stopMs ?? 0),
    },
    events: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { event: string; pid: number; argv?: string[] }),
  };
}

/** Resolves after `ms`. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until `check` returns a value, or fails after `timeoutMs`. */
export async function until<T>(what: string, check: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(10);
  }
}
