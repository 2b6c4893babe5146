/**
 * A test bed for the monitor and databases steps: the in-process Kubernetes API emulator
 * (real client-node clients, real watches) holding hand-made objects the test moves, plus a fake
 * management API that records every call and completes its actions after a few polls.
 */

import type { ApiClient } from '../../../src/api/client.js';
import { ApiWriter } from '../../../src/api/writer.js';
import type { ApiAction, ApiBdb, ApiModule, ApiNode } from '../../../src/api/types.js';
import { ApiStatusError } from '../../../src/api/api-errors.js';
import { OperationError } from '../../../src/errors.js';
import { createTestIo, type TestIo } from '../../../src/io/test-io.js';
import { KubeWriter } from '../../../src/kube/write.js';
import type { RunSettings, UpgradeDeps } from '../../../src/steps/deps.js';
import type { StepContext } from '../../../src/run/step.js';
import { crdsFor } from '../../../src/sim/crds.js';
import type { KubeObject as SimObject } from '../../../src/sim/kube/types.js';
import type { StepState } from '../../../src/run/state.js';
import { planUpgrade } from '../../../src/steps/index.js';
import { resolveUpgrade } from '../../../src/planning/resolve.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import type { TargetFlags } from '../../../src/planning/target.js';
import { type Emulator, startEmulator } from '../kube/emulator-fixture.js';
import { makeSnapshot, makeTarget } from '../planning/snapshot-fixture.js';

export const REC_API = 'app.redislabs.com/v1';
export const DB_API = 'app.redislabs.com/v1alpha1';

export interface LogEntry {
  type: 'intent' | 'progress' | 'warn';
  text: string;
  data?: unknown;
}

/** The management API, as far as the steps call it; every call is recorded. */
export class FakeApi {
  readonly calls: string[] = [];
  bdbs: ApiBdb[] = [];
  modules: ApiModule[] = [];
  nodes: ApiNode[] = [];
  readonly actions = new Map<string, { action: ApiAction; polls: number; finish: () => void }>();
  /** Polls before an action completes. */
  pollsToComplete = 2;
  /** Makes the next action fail with this message. */
  failNextAction: string | undefined;
  /** Called after any action completes (the simulated operator may react). */
  onActionCompleted: () => void = () => {};
  #sequence = 0;

  asClient(): ApiClient {
    return this as unknown as ApiClient;
  }

  async listBdbs(): Promise<ApiBdb[]> {
    this.calls.push('GET /v1/bdbs');
    return structuredClone(this.bdbs);
  }

  async getBdb(uid: number): Promise<ApiBdb> {
    this.calls.push(`GET /v1/bdbs/${uid}`);
    const bdb = this.bdbs.find((b) => b.uid === uid);
    if (!bdb) throw new OperationError(`GET /v1/bdbs/${uid} failed with HTTP 404: db_not_exist`);
    return structuredClone(bdb);
  }

  async listModules(): Promise<ApiModule[]> {
    this.calls.push('GET /v1/modules');
    return structuredClone(this.modules);
  }

  async listNodes(): Promise<ApiNode[]> {
    this.calls.push('GET /v1/nodes');
    return structuredClone(this.nodes);
  }

  async upgradeBdb(uid: number, version: string, key: string): Promise<ApiBdb & { action_uid: string }> {
    this.calls.push(`POST /v1/bdbs/${uid}/upgrade ${JSON.stringify({ [key]: version })}`);
    const bdb = this.bdbs.find((b) => b.uid === uid);
    if (!bdb) throw new OperationError(`POST /v1/bdbs/${uid}/upgrade failed with HTTP 404: db_not_exist`);
    const uidOf = this.#action('bdb_upgrade', () => {
      bdb.redis_version = version;
      bdb.status = 'active';
      delete bdb.action_uid;
    });
    bdb.action_uid = uidOf;
    bdb.status = 'active-change-pending';
    return { ...structuredClone(bdb), action_uid: uidOf };
  }

  async uploadModule(fileName: string, content: Uint8Array): Promise<ApiModule & { action_uid: string }> {
    this.calls.push(`POST /v2/modules ${fileName}`);
    // The answers as ApiClient gives them (src/api/api-errors.ts apiError): message, status, code.
    const refused = (message: string, code: string) =>
      new ApiStatusError(`POST /v2/modules failed with HTTP 400: ${message} (${code})`, 400, code, undefined);
    let meta: { module_name: string; semantic_version: string; platforms: string[] };
    try {
      meta = JSON.parse(Buffer.from(content).toString('utf8')) as typeof meta;
    } catch {
      throw refused(`${fileName}: Failed to extract bundle`, 'invalid_module');
    }
    const existing = this.modules.find(
      (m) => m.module_name === meta.module_name && m.semantic_version === meta.semantic_version,
    );
    if (existing && meta.platforms.every((p) => p in (existing.platforms ?? {}))) {
      throw refused(`Module ${meta.module_name} is already installed`, 'module_exists');
    }
    const uidOf = this.#action('module_upload', () => {
      const platforms = Object.fromEntries(meta.platforms.map((p) => [p, {}]));
      if (existing) existing.platforms = { ...existing.platforms, ...platforms };
      else
        this.modules.push({
          uid: `m${this.modules.length + 1}`,
          module_name: meta.module_name,
          semantic_version: meta.semantic_version,
          platforms,
        });
    });
    return {
      uid: 'new',
      module_name: meta.module_name,
      semantic_version: meta.semantic_version,
      action_uid: uidOf,
    };
  }

  async getAction(uid: string): Promise<ApiAction> {
    this.calls.push(`GET /v1/actions/${uid}`);
    const entry = this.actions.get(uid);
    if (!entry) throw new OperationError(`GET /v1/actions/${uid} failed with HTTP 404: action_not_exist`);
    if (entry.action.status !== 'completed' && entry.action.status !== 'failed') {
      entry.polls += 1;
      if (entry.polls >= this.pollsToComplete) {
        if (entry.action.error_message) {
          entry.action.status = 'failed';
        } else {
          entry.action.status = 'completed';
          entry.action.progress = 100;
          entry.finish();
          this.onActionCompleted();
        }
      } else {
        entry.action.status = 'active';
        entry.action.progress = 50;
      }
    }
    return structuredClone(entry.action);
  }

  /** The calls that change something. */
  writes(): string[] {
    return this.calls.filter((c) => c.startsWith('POST'));
  }

  #action(name: string, finish: () => void): string {
    const uid = `action-${++this.#sequence}`;
    const action: ApiAction = { action_uid: uid, name, status: 'pending', progress: 0 };
    if (this.failNextAction) {
      action.error_message = this.failNextAction;
      this.failNextAction = undefined;
    }
    this.actions.set(uid, { action, polls: 0, finish });
    return uid;
  }
}

export interface StepBed {
  emulator: Emulator;
  api: FakeApi;
  deps: UpgradeDeps;
  log: LogEntry[];
  test: TestIo;
  ctx(options?: { previous?: StepState; dryRun?: boolean; signal?: AbortSignal }): StepContext<UpgradeDeps>;
  /** The last intent recorded, as a StepState a resumed run would get. */
  previous(): StepState | undefined;
  progress(): string[];
  warnings(): string[];
  /** Mutating Kubernetes requests so far. */
  kubeWrites(): string[];
  close(): Promise<void>;
}

export const SETTINGS: RunSettings = {
  remediate: false,
  moduleFiles: [],
  maxParallel: 1,
  keepScc: false,
  timeoutMs: 30_000,
  stallTimeoutMs: 15_000,
};

export async function startStepBed(
  options: {
    snapshot?: (s: Snapshot) => void;
    target?: Partial<TargetFlags>;
    settings?: Partial<RunSettings>;
  } = {},
): Promise<StepBed> {
  const emulator = await startEmulator();
  for (const crd of crdsFor('redis')) {
    emulator.server.store.create(
      emulator.server.store.resolve('apiextensions.k8s.io/v1', 'CustomResourceDefinition'),
      crd as SimObject,
    );
  }
  const api = new FakeApi();
  const log: LogEntry[] = [];
  const test = createTestIo();
  const snapshot = makeSnapshot(options.snapshot);
  const target = makeTarget(options.target);
  const plan = planUpgrade(snapshot, target);
  // One options object for the run's writers; ctx() sets its dry-run per call.
  const writes = { dryRun: false, io: test.io };
  const client = api.asClient();
  const deps: UpgradeDeps = {
    kube: emulator.kube,
    kubeWriter: new KubeWriter(emulator.kube, writes),
    api: client,
    apiWriter: new ApiWriter(client, writes),
    helm: {} as UpgradeDeps['helm'],
    settings: { ...SETTINGS, ...options.settings },
    clock: {
      now: () => Date.now(),
      sleep: (ms, signal) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, Math.min(ms, 20));
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(signal.reason);
          });
        }),
    },
    snapshot,
    plan,
    target,
    resolved: resolveUpgrade(snapshot, target),
  };
  let lastIntent: Record<string, unknown> | undefined;
  const ctx = (
    o: { previous?: StepState; dryRun?: boolean; signal?: AbortSignal } = {},
  ): StepContext<UpgradeDeps> => {
    writes.dryRun = o.dryRun ?? false;
    return {
      deps,
      io: test.io,
      dryRun: writes.dryRun,
      signal: o.signal ?? new AbortController().signal,
      previous: o.previous,
      recordIntent: async (intent) => {
        lastIntent = intent;
        log.push({ type: 'intent', text: JSON.stringify(intent), data: intent });
      },
      progress: (message) => log.push({ type: 'progress', text: message }),
      warn: (message, data) => log.push({ type: 'warn', text: message, data }),
    };
  };
  return {
    emulator,
    api,
    deps,
    log,
    test,
    ctx,
    previous: () => (lastIntent ? { status: 'in-progress', intent: lastIntent } : undefined),
    progress: () => log.filter((e) => e.type === 'progress').map((e) => e.text),
    warnings: () => log.filter((e) => e.type === 'warn').map((e) => e.text),
    kubeWrites: () => emulator.writes(),
    close: () => emulator.close(),
  };
}

/** A REC in `redis` as the redis dialect spells it. */
export function recObject(tag: string, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: REC_API,
    kind: 'RedisEnterpriseCluster',
    metadata: { name: 'rec' },
    spec: {
      nodes: 3,
      redisEnterpriseImageSpec: {
        repository: 'redislabs/redis',
        versionTag: tag,
        imagePullPolicy: 'IfNotPresent',
      },
      ...spec,
    },
  };
}

/** The cluster's StatefulSet with its node container at `tag`; the test writes its status. */
export function statefulSetObject(tag: string): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'rec' },
    spec: {
      replicas: 3,
      serviceName: 'rec',
      selector: { matchLabels: { app: 'redis-enterprise', 'redis.io/cluster': 'rec' } },
      template: {
        metadata: { labels: { app: 'redis-enterprise', 'redis.io/cluster': 'rec' } },
        spec: { containers: [{ name: 'redis-enterprise-node', image: `redislabs/redis:${tag}` }] },
      },
    },
  };
}

export function rolloutStatus(updated: number, ready: number, done: boolean): Record<string, unknown> {
  return {
    observedGeneration: 1,
    replicas: 3,
    readyReplicas: ready,
    updatedReplicas: updated,
    currentRevision: done ? 'rec-new' : 'rec-old',
    updateRevision: 'rec-new',
  };
}

let eventSequence = 0;

/** An Event about the REC, as the operator writes it. */
export function recEvent(
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
): Record<string, unknown> {
  const now = new Date().toISOString();
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `rec.${Date.now().toString(16)}${++eventSequence}` },
    involvedObject: { apiVersion: REC_API, kind: 'RedisEnterpriseCluster', name: 'rec', namespace: 'redis' },
    type,
    reason,
    message,
    count: 1,
    firstTimestamp: now,
    lastTimestamp: now,
  };
}

/**
 * A line in the operator's log, as the real operator writes it (zap JSON; logger
 * controller_redisenterprisecluster): the operator Deployment and its running pod are created
 * on first use, and the line is appended to the pod's log (what `kubectl logs` and
 * `readNamespacedPodLog` read).
 */
export function operatorLogLine(
  emulator: Emulator,
  entry: { level: 'info' | 'error'; msg: string; error?: string; logger?: string },
): void {
  const name = 'redis-enterprise-operator';
  const labels = { name };
  if (!emulator.get('apps/v1', 'Deployment', name)) {
    emulator.create('apps/v1', 'Deployment', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: {
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [
              { name, image: 'redislabs/operator:7.8.2-6' },
              { name: 'admission', image: 'x' },
            ],
          },
        },
      },
    });
    emulator.create('v1', 'Pod', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `${name}-abc12`, labels },
      spec: {
        containers: [
          { name, image: 'redislabs/operator:7.8.2-6' },
          { name: 'admission', image: 'x' },
        ],
      },
    });
    emulator.patch('v1', 'Pod', `${name}-abc12`, { status: { phase: 'Running' } }, true);
  }
  const line = {
    level: entry.level,
    ts: Date.now() / 1000,
    logger: entry.logger ?? 'controller_redisenterprisecluster',
    msg: entry.msg,
    'Request.Namespace': emulator.namespace,
    'Request.Name': 'rec',
    ...(entry.error === undefined ? {} : { error: entry.error }),
  };
  emulator.server.store.podLogs.append(emulator.namespace, `${name}-abc12`, name, JSON.stringify(line));
}

/** Resolves once `predicate` holds (checked every 10 ms). */
export function until(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = (): void => {
      if (predicate()) resolve();
      else if (Date.now() - started > timeoutMs) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(tick, 10);
    };
    tick();
  });
}
