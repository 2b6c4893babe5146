/**
 * Shared by the sim-*.test.ts files: one simulated cluster (in-process, fast timing) and the
 * real kubectl / helm pointed at it through a private sandbox (own HOME, caches, helm homes).
 */

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Agent, FormData, fetch } from 'undici';
import {
  loadScenario,
  type Scenario,
  simDialectFields,
  type SimulatedCluster,
  startSimulatedCluster,
} from '../helpers/simulator.js';
import {
  helmPath,
  kubectlFor,
  makeToolSandbox,
  runTool,
  type ToolResult,
  type ToolSandbox,
} from '../helpers/tools.js';

export interface SimHarness {
  cluster: SimulatedCluster;
  sandbox: ToolSandbox;
  /** kubectl with the cluster's kubeconfig; fails the test on a non-zero exit unless `allowFailure`. */
  kubectl(args: string[], options?: { allowFailure?: boolean; timeoutMs?: number }): Promise<ToolResult>;
  helm(major: 3 | 4, args: string[], options?: { allowFailure?: boolean }): Promise<ToolResult>;
  /** An artifact (bundle file) fetched over plain HTTP and saved in the sandbox; returns its path. */
  download(urlPath: string): Promise<string>;
  /** A management API call over HTTPS, trusting only the simulator's CA, as the scenario's admin. */
  api(method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

/**
 * Starts the named built-in scenario with every simulated wait at zero, or with `timing` when
 * a test wants to watch a rollout in progress.
 */
export async function startHarness(scenarioName: string, timing?: Scenario['timing']): Promise<SimHarness> {
  const sandbox = makeToolSandbox('ctl-sim-e2e-');
  const scenario = loadScenario(scenarioName);
  const cluster = await startSimulatedCluster({
    scenario: timing ? { ...scenario, timing } : scenario,
    dir: path.join(sandbox.dir, 'sim'),
    fast: timing === undefined,
  });
  const env = { ...sandbox.env, KUBECONFIG: cluster.kubeconfigPath };
  const kubectl = kubectlFor(cluster.scenario.kubernetesVersion);
  const dispatcher = new Agent({ connect: { ca: readFileSync(cluster.caPath, 'utf8') } });
  const basic = `Basic ${Buffer.from(`${cluster.env.CTL_USERNAME}:${cluster.env.CTL_PASSWORD}`).toString('base64')}`;

  const checked = (what: string, result: ToolResult, allowFailure: boolean | undefined): ToolResult => {
    if (!allowFailure && result.code !== 0) {
      assert.fail(`${what} exited ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
    }
    return result;
  };

  return {
    cluster,
    sandbox,
    kubectl: async (args, options = {}) =>
      checked(
        `kubectl ${args.join(' ')}`,
        await runTool(kubectl, args, { env, timeoutMs: options.timeoutMs }),
        options.allowFailure,
      ),
    helm: async (major, args, options = {}) =>
      checked(
        `helm${major} ${args.join(' ')}`,
        await runTool(helmPath(major), args, { env }),
        options.allowFailure,
      ),
    download: async (urlPath) => {
      const response = await fetch(`${cluster.artifactsUrl}${urlPath}`);
      assert.equal(response.status, 200, `GET ${urlPath}`);
      const file = path.join(sandbox.dir, urlPath.replaceAll('/', '_'));
      writeFileSync(file, await response.text());
      return file;
    },
    api: async (method, urlPath, body) => {
      const headers: Record<string, string> = { authorization: basic };
      let payload: string | FormData | undefined;
      if (body instanceof FormData) payload = body;
      else if (body !== undefined) {
        headers['content-type'] = 'application/json';
        payload = JSON.stringify(body);
      }
      const response = await fetch(`${cluster.apiUrl}${urlPath}`, {
        method,
        headers,
        body: payload,
        dispatcher,
      });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
    },
    close: async () => {
      await dispatcher.close();
      await cluster.stop();
      sandbox.cleanup();
    },
  };
}

/** The merge patch that sets the cluster image tag, in the scenario's dialect. */
export function versionTagPatch(sim: SimHarness, versionTag: string): string {
  const path = simDialectFields(sim.cluster.scenario.dialect).imageSpecPath;
  let patch: unknown = { versionTag };
  for (const key of [...path].reverse()) patch = { [key]: patch };
  return JSON.stringify(patch);
}

/** The documented operator upgrade by bundle: apply it server-side, wait for READY 1/1. */
export async function applyOperatorBundle(sim: SimHarness, version: string): Promise<void> {
  const bundle = await sim.download(`/bundles/${version}/bundle.yaml`);
  await sim.kubectl(['apply', '--server-side', '-f', bundle]);
  await sim.kubectl(['rollout', 'status', 'deployment/redis-enterprise-operator', '--timeout=60s']);
}

export interface KubeEvent {
  type: string;
  reason: string;
  message: string;
  involvedObject: { kind: string; name: string };
}

/** `kubectl get events -o json`, the Warning ones. */
export async function warningEvents(sim: SimHarness): Promise<KubeEvent[]> {
  const { stdout } = await sim.kubectl(['get', 'events', '-o', 'json']);
  return (JSON.parse(stdout) as { items: KubeEvent[] }).items.filter((event) => event.type === 'Warning');
}

/** One line of the operator's log (zap JSON), as `kubectl logs` prints it. */
export interface OperatorLogLine {
  level: string;
  ts: number;
  logger: string;
  msg: string;
  error?: string;
  [field: string]: unknown;
}

/** `kubectl logs deploy/redis-enterprise-operator` (plus `args`), parsed line by line. */
export async function operatorLog(sim: SimHarness, args: string[] = []): Promise<OperatorLogLine[]> {
  const { stdout } = await sim.kubectl(['logs', 'deploy/redis-enterprise-operator', ...args]);
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as OperatorLogLine);
}

/** The operator log's error lines whose `error` matches `pattern`. */
export async function operatorLogErrors(sim: SimHarness, pattern: RegExp): Promise<OperatorLogLine[]> {
  return (await operatorLog(sim)).filter((line) => line.level === 'error' && pattern.test(line.error ?? ''));
}

/**
 * `kubectl get rec` columns, in order, of operator 6.0.12-5 up to 7.8.4-9: the REC CRD's
 * additionalPrinterColumns in those releases' bundles (RedisLabs/redis-enterprise-k8s-docs
 * `bundle.yaml` at tags v6.0.12-5 .. v7.8.4-9; certified-operators `rec_crd.yaml` to 7.8.4-9.0).
 */
export const REC_COLUMNS_SHARDS_LIMIT = [
  'NAME',
  'NODES',
  'VERSION',
  'STATE',
  'SPEC STATUS',
  'LICENSE STATE',
  'SHARDS LIMIT',
  'LICENSE EXPIRATION DATE',
  'AGE',
];

/** `kubectl get rec` columns, in order, from operator 7.8.6-1 on (its bundle's REC CRD). */
export const REC_COLUMNS = [
  'NAME',
  'NODES',
  'SHARDS',
  'VERSION',
  'STATE',
  'SPEC STATUS',
  'LICENSE STATE',
  'LICENSE EXPIRATION DATE',
  'AGE',
];

/** The header and rows of a kubectl table, split on its column positions. */
export function parseTable(text: string): { header: string[]; rows: Record<string, string>[] } {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const headerLine = lines[0] ?? '';
  const starts: number[] = [];
  const header: string[] = [];
  for (const match of headerLine.matchAll(/\S+(?: \S+)*/g)) {
    starts.push(match.index ?? 0);
    header.push(match[0]);
  }
  const rows = lines
    .slice(1)
    .map((line) =>
      Object.fromEntries(
        header.map((name, i) => [name, line.slice(starts[i], starts[i + 1] ?? line.length).trim()]),
      ),
    );
  return { header, rows };
}

/** Polls `check` until it returns a value or `timeoutMs` passes (then fails with `what`). */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export { FormData };
