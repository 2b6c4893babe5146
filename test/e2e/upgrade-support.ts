/**
 * Shared by the upgrade-*.test.ts files: the BUILT `ctl upgrade ...` run as a child process
 * against an in-process simulated cluster, and the end state read back with the real kubectl.
 *
 * Every ctl gets an almost empty environment: the cluster's env file (KUBECONFIG, CTL_API_URL,
 * CTL_USERNAME, CTL_PASSWORD, CTL_CA_FILE, CTL_BUNDLE, CTL_HELM_REPO), a private HOME and
 * XDG_STATE_HOME, helm's homes, and its working directory in the sandbox (the preflight step
 * saves `rec-backup.yaml` there).
 */

import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  type AuditEntry,
  loadScenario,
  type Scenario,
  type SimulatedCluster,
  startSimulatedCluster,
} from '../helpers/simulator.js';
import { runCtlInProcess } from '../helpers/in-process-ctl.js';
import { type CtlProcess, type CtlResult, spawnCtl } from '../helpers/run-ctl.js';
import { helmPath, kubectlFor, makeToolSandbox, runTool, type ToolSandbox } from '../helpers/tools.js';
import { simReader } from './sim-reads.js';

export const TARGET = '7.8.2-6';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    generation?: number;
    labels?: Record<string, string>;
    resourceVersion?: string;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  data?: Record<string, string>;
  [key: string]: unknown;
}

export interface UpgradeSim {
  cluster: SimulatedCluster;
  sandbox: ToolSandbox;
  /** The environment every ctl of this test gets. */
  env: Record<string, string>;
  /** Where `ctl upgrade run` keeps its state file (the default path under XDG_STATE_HOME). */
  statePath: string;
  /** `ctl <args>` to completion. */
  ctl(args: string[], options?: { timeoutMs?: number; env?: Record<string, string> }): Promise<CtlResult>;
  /** `ctl <args>` in the background, its stdout read line by line (for interruptions). */
  spawnCtl(args: string[]): RunningCtl;
  kubectl(args: string[]): Promise<string>;
  /**
   * What `kubectl get <what> -o json` prints (an object, or a List's items with `list`), read
   * through the API server from the test's process (./sim-reads.ts).
   */
  get(args: string[]): Promise<KubeObject>;
  list(args: string[]): Promise<KubeObject[]>;
  close(): Promise<void>;
}

export interface SimOptions {
  /** Every simulated wait at zero (default), or the scenario's own timing with these overrides. */
  timing?: Partial<Scenario['timing']>;
  /** Changes to the built-in scenario. */
  patch?: (scenario: Scenario) => Scenario;
}

/** Runs `body` on a fresh simulated cluster of `scenarioName`, closed afterwards whatever happens. */
export async function withUpgradeSim<T>(
  scenarioName: string,
  body: (sim: UpgradeSim) => Promise<T>,
  options: SimOptions = {},
): Promise<T> {
  const sim = await startUpgradeSim(scenarioName, options);
  try {
    return await body(sim);
  } finally {
    await sim.close();
  }
}

/**
 * One simulated cluster for the tests of a file that only read it (plans, runs refused before
 * any change): started by the first test that uses it, stopped by `close()` in the file's
 * `after` hook. Each use fails when it changed the cluster (assertNoChanges), so a test that
 * comes to change it cannot leak that change into the next test: such a test takes a cluster of
 * its own (withUpgradeSim).
 */
export class SharedUpgradeSim {
  readonly #scenarioName: string;
  readonly #options: SimOptions;
  #sim: Promise<UpgradeSim> | undefined;
  /** The end of the last use asked for: uses take turns. */
  #turns: Promise<unknown> = Promise.resolve();

  constructor(scenarioName: string, options: SimOptions = {}) {
    this.#scenarioName = scenarioName;
    this.#options = options;
  }

  /**
   * Runs `body` on the shared cluster; `what` names it if it changed something. Uses take turns,
   * so a file may run its tests side by side: one use's count of changes must not see another's,
   * and two runs on the one state would meet at its lock.
   */
  use<T>(what: string, body: (sim: UpgradeSim) => Promise<T>): Promise<T> {
    const turn = this.#turns.then(() => this.#use(what, body));
    this.#turns = turn.catch(() => undefined);
    return turn;
  }

  async #use<T>(what: string, body: (sim: UpgradeSim) => Promise<T>): Promise<T> {
    this.#sim ??= startUpgradeSim(this.#scenarioName, this.#options);
    const sim = await this.#sim;
    const from = sim.cluster.audit.entries.length;
    const result = await body(sim);
    assertNoChanges(sim, from, what);
    return result;
  }

  async close(): Promise<void> {
    const started = this.#sim;
    this.#sim = undefined;
    // One that failed to start has nothing to stop; its error failed the test that used it.
    await started?.then(
      (sim) => sim.close(),
      () => undefined,
    );
  }
}

export async function startUpgradeSim(scenarioName: string, options: SimOptions = {}): Promise<UpgradeSim> {
  // A scenario file by path names its sandbox by the file name.
  const sandbox = makeToolSandbox(`ctl-upgrade-${path.basename(scenarioName, '.yaml')}-`);
  let scenario = loadScenario(scenarioName);
  if (options.timing) scenario = { ...scenario, timing: { ...scenario.timing, ...options.timing } };
  if (options.patch) scenario = options.patch(scenario);
  // A simulator that does not start leaves no sandbox behind (a generated world may not start).
  const cluster = await startSimulatedCluster({
    scenario,
    dir: path.join(sandbox.dir, 'sim'),
    fast: options.timing === undefined,
  }).catch((error: unknown) => {
    sandbox.cleanup();
    throw error;
  });
  const home = path.join(sandbox.dir, 'home');
  const env: Record<string, string> = {
    ...cluster.env,
    HOME: home,
    XDG_STATE_HOME: path.join(home, 'state'),
    XDG_CACHE_HOME: path.join(home, 'cache'),
    XDG_CONFIG_HOME: path.join(home, 'config'),
    HELM_CACHE_HOME: sandbox.env.HELM_CACHE_HOME ?? '',
    HELM_CONFIG_HOME: sandbox.env.HELM_CONFIG_HOME ?? '',
    HELM_DATA_HOME: sandbox.env.HELM_DATA_HOME ?? '',
    NO_PROXY: '127.0.0.1,localhost',
  };
  if (scenario.operator.installedBy === 'helm') env.CTL_HELM = helmPath(3);
  const kubectlEnv = { ...sandbox.env, KUBECONFIG: cluster.kubeconfigPath };
  const kubectlBin = kubectlFor(cluster.scenario.kubernetesVersion);
  const statePath = path.join(
    env.XDG_STATE_HOME ?? '',
    'ctl',
    `ctl-sim-${scenario.name}`,
    scenario.namespace,
    `${scenario.cluster.name}.json`,
  );

  const kubectl = async (args: string[]): Promise<string> => {
    const result = await runTool(kubectlBin, args, { env: kubectlEnv });
    if (result.code !== 0) assert.fail(`kubectl ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return result.stdout;
  };

  let reader: ReturnType<typeof simReader>;
  try {
    reader = simReader(cluster);
  } catch (error) {
    await cluster.stop();
    sandbox.cleanup();
    throw error;
  }

  return {
    cluster,
    sandbox,
    env,
    statePath,
    ctl: (args, opts = {}) =>
      runCtlInProcess(args, {
        env: { ...env, ...opts.env },
        cwd: sandbox.dir,
        timeoutMs: opts.timeoutMs ?? 90_000,
      }),
    spawnCtl: (args) => new RunningCtl(args, env, sandbox.dir),
    kubectl,
    get: async (args) => (await reader.get(args)) as KubeObject,
    list: async (args) => ((await reader.get(args)) as { items?: KubeObject[] }).items ?? [],
    close: async () => {
      await reader.close();
      await cluster.stop();
      sandbox.cleanup();
    },
  };
}

/** Fails with everything ctl printed when the exit code is not the expected one. */
export function assertExit(result: CtlResult, code: number, what = 'ctl'): void {
  assert.equal(
    result.code,
    code,
    `${what}: exit ${result.code} (signal ${result.signal}), expected ${code}\n--- stdout:\n${result.stdout}\n--- stderr:\n${result.stderr}`,
  );
}

// ---- the audit log -----------------------------------------------------------------------------

/**
 * POSTs that create nothing that lasts: access reviews (the permissions check) and tokens from
 * the management API. The simulator's audit marks every non-GET as mutating; these are not
 * changes to the cluster.
 */
const NOT_A_CHANGE = [
  /^\/apis\/authorization\.k8s\.io\/v1\/(selfsubjectaccessreviews|selfsubjectrulesreviews)$/,
  /^\/apis\/authentication\.k8s\.io\/v1\/selfsubjectreviews$/,
  /^\/v1\/users\/(authorize|refresh_jwt)$/,
];

/** The requests that changed something, in order (`from` = an index into the audit log). */
export function changes(sim: Pick<UpgradeSim, 'cluster'>, from = 0): AuditEntry[] {
  return sim.cluster.audit.entries
    .slice(from)
    .filter(
      (entry) =>
        entry.mutating &&
        !(entry.method === 'POST' && NOT_A_CHANGE.some((re) => re.test(entry.path.split('?')[0] ?? ''))) &&
        !UPGRADE_LOCK.test(entry.path.split('?')[0] ?? ''),
    );
}

/**
 * ctl's own upgrade lock, the Lease every run takes and releases whatever its state store
 * (docs/state-and-resume.md "The lock"): bookkeeping like the lock file, not a change to the cluster.
 */
const UPGRADE_LOCK =
  /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/[^/]+\/leases(\/ctl-upgrade-lock-[^/]+)?$/;

export function describeEntries(entries: AuditEntry[]): string {
  return entries.map((e) => `${e.api} ${e.method} ${e.path} ${e.status}`).join('\n');
}

export function assertNoChanges(sim: UpgradeSim, from: number, what: string): void {
  const made = changes(sim, from);
  assert.equal(made.length, 0, `${what} changed something:\n${describeEntries(made)}`);
}

/** PATCH/PUT requests on one object (not its status), by path suffix. */
export function writesTo(sim: UpgradeSim, pathSuffix: string, from = 0): AuditEntry[] {
  return changes(sim, from).filter(
    (e) => (e.method === 'PATCH' || e.method === 'PUT') && (e.path.split('?')[0] ?? '').endsWith(pathSuffix),
  );
}

// ---- NDJSON ------------------------------------------------------------------------------------

export const EVENT_TYPES = ['step-start', 'step-done', 'step-skip', 'progress', 'warning', 'error', 'done'];
// CLI.md's step order, written out here rather than imported from src/steps: the end-to-end
// tests check ctl's output against the contract, not against ctl's own list.
export const STEP_IDS = [
  'preflight',
  'operator',
  'admission',
  'security-context',
  'cluster',
  'monitor',
  'databases',
];

export interface RunEvent {
  ts: string;
  type: string;
  step?: string;
  message: string;
  data?: Record<string, unknown>;
}

/** Every stdout line as an event of CLI.md, checked field by field. */
export function parseEvents(stdout: string): RunEvent[] {
  const lines = stdout.split('\n').filter((line) => line !== '');
  return lines.map((line) => {
    let event: RunEvent;
    try {
      event = JSON.parse(line) as RunEvent;
    } catch {
      assert.fail(`stdout line is not JSON: ${line}`);
    }
    assert.ok(EVENT_TYPES.includes(event.type), `unknown event type in ${line}`);
    assert.equal(typeof event.ts, 'string', line);
    assert.ok(!Number.isNaN(Date.parse(event.ts)), `ts is not a date: ${line}`);
    assert.equal(typeof event.message, 'string', line);
    if (event.step !== undefined) assert.ok(STEP_IDS.includes(event.step), `unknown step in ${line}`);
    if (event.type.startsWith('step-')) assert.ok(event.step, `no step in ${line}`);
    if (event.data !== undefined)
      assert.ok(event.data !== null && typeof event.data === 'object', `data is not an object: ${line}`);
    const extra = Object.keys(event).filter((k) => !['ts', 'type', 'step', 'message', 'data'].includes(k));
    assert.deepEqual(extra, [], `unexpected fields in ${line}`);
    return event;
  });
}

// ---- the state file ----------------------------------------------------------------------------

export interface StateDoc {
  result: string;
  resumeCommand?: string;
  /** The run's own Next line, where it stopped in preflight having changed nothing. */
  nextCommand?: string;
  steps: Record<string, { status: string; skipReason?: string; intent?: Record<string, unknown> }>;
}

export function readState(sim: UpgradeSim): StateDoc {
  assert.ok(existsSync(sim.statePath), `no state file at ${sim.statePath}`);
  return JSON.parse(readFileSync(sim.statePath, 'utf8')) as StateDoc;
}

// ---- the end state -----------------------------------------------------------------------------

export function getPath(root: unknown, keys: string[]): unknown {
  let value = root;
  for (const key of keys) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * The upgrade is complete, as kubectl sees it: REC Running at `tag`, every REDB in `namespaces`
 * active at `dbVersion`, the operator Deployment 1/1 on the `operator` image.
 */
export async function assertUpgraded(
  sim: UpgradeSim,
  expected: { operator: string; tag: string; dbVersion: string; namespaces?: string[] },
): Promise<void> {
  const { scenario } = sim.cluster;
  const imageSpec = scenario.dialect === 'redis' ? 'redisEnterpriseImageSpec' : 'engineEnterpriseImageSpec';
  const rec = await sim.get(['rec', scenario.cluster.name, '-n', scenario.namespace]);
  assert.equal(getPath(rec, ['spec', imageSpec, 'versionTag']), expected.tag, 'REC versionTag');
  assert.equal(getPath(rec, ['status', 'state']), 'Running', 'REC state');

  const deployment = await sim.get(['deployment', 'redis-enterprise-operator', '-n', scenario.namespace]);
  const containers = getPath(deployment, ['spec', 'template', 'spec', 'containers']) as { image: string }[];
  assert.ok(
    containers.every((c) => c.image.endsWith(`:${expected.operator}`)),
    `operator images: ${containers.map((c) => c.image).join(', ')}`,
  );
  assert.equal(getPath(deployment, ['status', 'readyReplicas']), 1, 'operator READY 1/1');
  assert.equal(getPath(deployment, ['status', 'updatedReplicas']), 1, 'operator UP-TO-DATE 1');

  const namespaces = expected.namespaces ?? [scenario.namespace];
  const wanted = scenario.databases.filter((db) => !db.activeActive && namespaces.includes(db.namespace));
  let seen = 0;
  for (const namespace of namespaces) {
    for (const redb of await sim.list(['redb', '-n', namespace])) {
      seen += 1;
      const label = `${namespace}/${redb.metadata.name}`;
      assert.equal(getPath(redb, ['status', 'version']), expected.dbVersion, `${label} status.version`);
      assert.equal(getPath(redb, ['status', 'status']), 'active', `${label} status`);
    }
  }
  assert.equal(seen, wanted.length, 'every database resource was found');
}

// ---- ctl in the background ---------------------------------------------------------------------

/** A ctl child whose stdout (NDJSON with `-o json`) is followed line by line. */
export class RunningCtl {
  readonly child: ChildProcessWithoutNullStreams;
  readonly result: Promise<CtlResult>;
  readonly #ctl: CtlProcess;
  readonly #watchers: { test: (event: RunEvent) => boolean; resolve: (event: RunEvent) => void }[] = [];
  readonly events: RunEvent[] = [];

  constructor(args: string[], env: Record<string, string>, cwd: string) {
    const ctl = spawnCtl(args, { env, cwd, timeoutMs: 120_000 });
    this.child = ctl.child;
    this.#ctl = ctl;
    ctl.onLine((line) => this.#onLine(line));
    this.result = ctl.result;
  }

  get stdout(): string {
    return this.#ctl.stdout();
  }

  get stderr(): string {
    return this.#ctl.stderr();
  }

  #onLine(line: string): void {
    let event: RunEvent;
    try {
      event = JSON.parse(line) as RunEvent;
    } catch {
      return;
    }
    this.events.push(event);
    for (const watcher of [...this.#watchers]) {
      if (watcher.test(event)) {
        this.#watchers.splice(this.#watchers.indexOf(watcher), 1);
        watcher.resolve(event);
      }
    }
  }

  /** The first event (already seen or to come) that passes `test`; fails if ctl exits first. */
  waitFor(what: string, test: (event: RunEvent) => boolean): Promise<RunEvent> {
    const seen = this.events.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      this.#watchers.push({ test, resolve });
      void this.result.then((result) =>
        reject(
          new Error(
            `ctl exited ${result.code} before ${what}\n--- stdout:\n${result.stdout}\n--- stderr:\n${result.stderr}`,
          ),
        ),
      );
    });
  }
}
