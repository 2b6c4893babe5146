/**
 * Fakes for the step tests: an in-memory object store behind the ObjectClient surface that
 * src/kube/write.ts uses (read, list, patch by strategy, delete), a scripted helm, a wait
 * that evaluates the check after each simulated controller tick, and a step context that
 * records intents, progress and warnings in one ordered log together with every write.
 */

import { TimeoutError } from '../../../src/errors.js';
import type { Helm, HelmResult } from '../../../src/exec/helm.js';
import { createTestIo, type TestIo } from '../../../src/io/test-io.js';
import type { KubeClients } from '../../../src/kube/client.js';
import type { ObjectClient, ObjectRef, PatchOptions } from '../../../src/kube/objects.js';
import type { KubeRest, RequestOptions } from '../../../src/kube/rest.js';
import type { KubeObject } from '../../../src/kube/reads.js';
import type { WaitOptions } from '../../../src/kube/watch.js';
import { KubeWriter } from '../../../src/kube/write.js';
import type { RunSettings, UpgradeDeps } from '../../../src/steps/deps.js';
import type { StepContext, StepResult } from '../../../src/run/step.js';
import type { StepState } from '../../../src/run/state.js';
import { planUpgrade } from '../../../src/steps/index.js';
import { resolveUpgrade } from '../../../src/planning/resolve.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import type { TargetFlags } from '../../../src/planning/target.js';
import type { UserDefinedModule } from '../../../src/planning/user-defined-modules-patch.js';
import { makeSnapshot, makeTarget } from '../planning/snapshot-fixture.js';

type Json = Record<string, unknown>;

const PATCH = {
  JsonPatch: 'application/json-patch+json',
  MergePatch: 'application/merge-patch+json',
  StrategicMergePatch: 'application/strategic-merge-patch+json',
  ServerSideApply: 'application/apply-patch+yaml',
} as const;

function apiError(code: number, reason: string, message: string): Error {
  return Object.assign(new Error(`HTTP ${code}`), {
    code,
    body: JSON.stringify({ kind: 'Status', reason, message }),
  });
}

/** What kubeRequest throws for a request its signal ended (src/kube/request.ts abortedRequest). */
function abortedRequest(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted', { cause: signal.reason }), {
    name: 'AbortError',
    code: 'ABORT_ERR',
  });
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** RFC 7386. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const out: Json = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

/** Enough of strategic merge for the tests: lists of objects with a `name` merge by name. */
function strategicPatch(target: unknown, patch: unknown): unknown {
  if (Array.isArray(patch) && Array.isArray(target) && patch.every((p) => isObject(p) && 'name' in p)) {
    const out = target.map(clone);
    for (const item of patch as Json[]) {
      const at = out.findIndex((o) => isObject(o) && o.name === item.name);
      if (at >= 0) out[at] = strategicPatch(out[at], item);
      else out.push(clone(item));
    }
    return out;
  }
  if (!isObject(patch)) return clone(patch);
  const out: Json = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = strategicPatch(out[key], value);
  }
  return out;
}

export interface LogEntry {
  type: 'intent' | 'write' | 'progress' | 'warn';
  text: string;
  data?: unknown;
}

export class FakeCluster {
  readonly objects = new Map<string, KubeObject>();
  readonly log: LogEntry[];
  /** Keys (FakeCluster.key) whose read the API server refuses with 403 Forbidden. */
  readonly forbiddenReads = new Set<string>();
  /**
   * Requests of the path surface (`GET /apis/...`, `PUT ...`) that fail with the error given, as
   * the request layer throws it (an API Status, a credential plugin that failed), until removed.
   */
  readonly failingRequests = new Map<string, unknown>();
  /** Every request of the path surface, as `METHOD path`, in the order they came. */
  readonly requests: string[] = [];
  /** The requests of the path surface their caller's signal ended before they were answered. */
  readonly aborted: string[] = [];
  /** Requests of the path surface that wait before they are answered (hold). */
  readonly #held = new Map<string, Promise<void>>();
  #rv = 1000;
  /** Called after every write and on every wait tick: stands in for controllers. */
  onTick: (cluster: FakeCluster) => void = () => {};

  constructor(log: LogEntry[] = []) {
    this.log = log;
  }

  static key(apiVersion: string, kind: string, namespace: string | undefined, name: string): string {
    return `${apiVersion}|${kind}|${namespace ?? ''}|${name}`;
  }

  put(object: KubeObject): KubeObject {
    const stored = clone(object);
    stored.metadata = {
      ...stored.metadata,
      resourceVersion: String(++this.#rv),
      generation: stored.metadata?.generation ?? 1,
    };
    this.objects.set(
      FakeCluster.key(
        stored.apiVersion ?? '',
        stored.kind ?? '',
        stored.metadata.namespace,
        stored.metadata.name ?? '',
      ),
      stored,
    );
    return stored;
  }

  get(apiVersion: string, kind: string, name: string, namespace?: string): KubeObject | undefined {
    const found = this.objects.get(FakeCluster.key(apiVersion, kind, namespace, name));
    return found && clone(found);
  }

  /** Writes as a status update would: no generation bump. */
  update(
    apiVersion: string,
    kind: string,
    name: string,
    namespace: string | undefined,
    change: (o: KubeObject) => void,
  ): void {
    const key = FakeCluster.key(apiVersion, kind, namespace, name);
    const object = this.objects.get(key);
    if (!object) throw new Error(`no ${key}`);
    change(object);
    object.metadata = { ...object.metadata, resourceVersion: String(++this.#rv) };
  }

  writes(): string[] {
    return this.log.filter((e) => e.type === 'write').map((e) => e.text);
  }

  /** The collection path the watch would use for a stored object. */
  static collectionPath(object: KubeObject): string {
    const apiVersion = object.apiVersion ?? '';
    const plural = `${(object.kind ?? '').toLowerCase()}s`;
    const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const ns = object.metadata?.namespace;
    return ns ? `${base}/namespaces/${ns}/${plural}` : `${base}/${plural}`;
  }

  findByPath(path: string, name: string): KubeObject | undefined {
    for (const object of this.objects.values()) {
      if (object.metadata?.name === name && FakeCluster.collectionPath(object) === path) return clone(object);
    }
    return undefined;
  }

  #api(): ObjectClient {
    const describe = (h: ObjectRef) => `${h.kind}/${h.name}${h.namespace ? ` -n ${h.namespace}` : ''}`;
    return {
      read: async (ref) => {
        if (this.forbiddenReads.has(FakeCluster.key(ref.apiVersion, ref.kind, ref.namespace, ref.name)))
          throw apiError(403, 'Forbidden', `${describe(ref)} is forbidden`);
        const found = this.get(ref.apiVersion, ref.kind, ref.name, ref.namespace);
        if (!found) throw apiError(404, 'NotFound', `${describe(ref)} not found`);
        return found;
      },
      list: async (apiVersion, kind, namespace) =>
        [...this.objects.values()]
          .filter(
            (o) =>
              o.apiVersion === apiVersion &&
              o.kind === kind &&
              (namespace === undefined || o.metadata?.namespace === namespace),
          )
          .map(clone),
      patch: async (h: ObjectRef, text: string, options: PatchOptions) => {
        // The body as the server would parse it: JSON text, exactly what was sent.
        const spec = JSON.parse(text) as KubeObject;
        const { fieldManager, force, contentType: strategy } = options;
        const key = FakeCluster.key(h.apiVersion, h.kind, h.namespace, h.name);
        const live = this.objects.get(key);
        const kindOf =
          strategy === PATCH.ServerSideApply
            ? 'apply'
            : strategy === PATCH.MergePatch
              ? 'merge'
              : 'strategic';
        this.log.push({
          type: 'write',
          text: `${kindOf} ${describe(h)}`,
          data: { body: clone(spec), fieldManager, force },
        });
        if (strategy === PATCH.ServerSideApply) {
          if (fieldManager !== 'ctl' || force !== true)
            throw apiError(400, 'BadRequest', 'apply needs fieldManager and force');
          const next = live ? (mergePatch(live, spec) as KubeObject) : clone(spec);
          // As the API server: a RoleBinding's roleRef is immutable (422 Invalid).
          const roleRef = (o: KubeObject | undefined) =>
            JSON.stringify((o as { roleRef?: unknown })?.roleRef);
          if (h.kind === 'RoleBinding' && live && roleRef(live) !== roleRef(next))
            throw apiError(
              422,
              'Invalid',
              `RoleBinding "${h.name}" is invalid: roleRef: cannot change roleRef`,
            );
          const stored = this.#store(key, next, live);
          this.onTick(this);
          return clone(stored);
        }
        if (!live) throw apiError(404, 'NotFound', `${describe(h)} not found`);
        const wanted = (spec.metadata as { resourceVersion?: string } | undefined)?.resourceVersion;
        if (wanted !== undefined && wanted !== live.metadata?.resourceVersion) {
          throw apiError(
            409,
            'Conflict',
            `the object has been modified; please apply your changes to the latest version`,
          );
        }
        const next = (
          strategy === PATCH.MergePatch ? mergePatch(live, spec) : strategicPatch(live, spec)
        ) as KubeObject;
        const stored = this.#store(key, next, live);
        this.onTick(this);
        return clone(stored);
      },
      delete: async (h) => {
        const key = FakeCluster.key(h.apiVersion, h.kind, h.namespace, h.name);
        this.log.push({ type: 'write', text: `delete ${describe(h)}` });
        if (!this.objects.delete(key)) throw apiError(404, 'NotFound', `${describe(h)} not found`);
        this.onTick(this);
      },
    };
  }

  /**
   * Holds the next request `METHOD path` of the path surface (a credential plugin that hangs)
   * until the function returned is called: then it is answered from the objects as they are
   * then, or fails with `error`. The request's signal ends the wait at once, as it ends
   * kubeRequest's credential wait (src/kube/request.ts): the request fails as an aborted one.
   */
  hold(request: string): (error?: unknown) => void {
    let release: (error?: unknown) => void = () => {};
    this.#held.set(
      request,
      new Promise<void>((resolve, reject) => {
        release = (error) => (error === undefined ? resolve() : reject(error));
      }),
    );
    return (error) => release(error);
  }

  /**
   * The path surface (src/kube/rest.ts) over the same objects, as the API server answers one
   * object's path: get, create in a collection, replace and delete with the resourceVersion they
   * name (409 when it is not the stored one). Lists and text answers are not faked.
   */
  #rest(): KubeRest {
    const fail = async (method: string, path: string, options?: RequestOptions): Promise<void> => {
      const request = `${method} ${path}`;
      this.requests.push(request);
      const held = this.#held.get(request);
      this.#held.delete(request);
      const signal = options?.signal;
      if (held && signal) {
        let onAbort: (() => void) | undefined;
        const ended = new Promise<never>((_, reject) => {
          onAbort = () => {
            this.aborted.push(request);
            reject(abortedRequest(signal));
          };
          if (signal.aborted) onAbort();
          else signal.addEventListener('abort', onAbort, { once: true });
        });
        try {
          await Promise.race([held, ended]);
        } finally {
          if (onAbort) signal.removeEventListener('abort', onAbort);
        }
      } else {
        if (signal?.aborted) {
          this.aborted.push(request);
          throw abortedRequest(signal);
        }
        await held;
      }
      const error = this.failingRequests.get(request);
      if (error !== undefined) throw error;
    };
    const split = (path: string): { collection: string; name: string } => {
      const at = path.lastIndexOf('/');
      return { collection: path.slice(0, at), name: decodeURIComponent(path.slice(at + 1)) };
    };
    const live = (path: string): KubeObject => {
      const { collection, name } = split(path);
      const found = this.findByPath(collection, name);
      if (!found) throw apiError(404, 'NotFound', `${name} not found`);
      return found;
    };
    const conflict = (wanted: string | undefined, object: KubeObject): void => {
      if (wanted !== undefined && wanted !== object.metadata?.resourceVersion)
        throw apiError(
          409,
          'Conflict',
          'the object has been modified; please apply your changes to the latest version',
        );
    };
    const notFaked = (): never => {
      throw new Error('not in the fake');
    };
    return {
      get: async <T>(path: string, _query?: unknown, options?: RequestOptions) => {
        await fail('GET', path, options);
        return live(path) as T;
      },
      create: async <T>(path: string, body: unknown) => {
        await fail('POST', path);
        const object = clone(body as KubeObject);
        this.log.push({ type: 'write', text: `create ${path}/${object.metadata?.name ?? ''}` });
        if (this.findByPath(path, object.metadata?.name ?? ''))
          throw apiError(409, 'AlreadyExists', `${object.metadata?.name ?? ''} already exists`);
        return clone(this.put(object)) as T;
      },
      replace: async <T>(path: string, body: unknown, options?: RequestOptions) => {
        await fail('PUT', path, options);
        const object = clone(body as KubeObject);
        this.log.push({ type: 'write', text: `replace ${path}` });
        conflict(object.metadata?.resourceVersion, live(path));
        return clone(this.put(object)) as T;
      },
      delete: async (path: string, body?: unknown, options?: RequestOptions) => {
        await fail('DELETE', path, options);
        this.log.push({ type: 'write', text: `delete ${path}` });
        const object = live(path);
        conflict(
          (body as { preconditions?: { resourceVersion?: string } } | undefined)?.preconditions
            ?.resourceVersion,
          object,
        );
        this.objects.delete(
          FakeCluster.key(
            object.apiVersion ?? '',
            object.kind ?? '',
            object.metadata?.namespace,
            object.metadata?.name ?? '',
          ),
        );
      },
      list: notFaked,
      text: notFaked,
    };
  }

  #store(key: string, next: KubeObject, live: KubeObject | undefined): KubeObject {
    const specChanged = live !== undefined && JSON.stringify(live.spec) !== JSON.stringify(next.spec);
    const generation = (live?.metadata?.generation ?? 0) + (live === undefined || specChanged ? 1 : 0);
    next.metadata = { ...next.metadata, resourceVersion: String(++this.#rv), generation };
    this.objects.set(key, next);
    return next;
  }

  clients(): KubeClients {
    return {
      k8s: { PatchStrategy: PATCH },
      objects: this.#api(),
      rest: this.#rest(),
      config: {},
      contextName: 'fake',
      namespace: 'redis',
    } as unknown as KubeClients;
  }

  /** waitForObject's contract, evaluated after each controller tick (at most `ticks` of them). */
  wait(ticks = 20) {
    return async <T>(options: WaitOptions<T>): Promise<T> => {
      let last: string | undefined;
      for (let i = 0; i <= ticks; i++) {
        if (options.signal.aborted) throw options.signal.reason;
        const object = this.findByPath(options.path, options.name) as T | undefined;
        const verdict = options.check(object);
        if (verdict === true) return object as T;
        if (typeof verdict === 'string' && verdict !== last) {
          last = verdict;
          options.onProgress?.(verdict);
        }
        this.onTick(this);
      }
      throw new TimeoutError(
        `timed out waiting for ${options.description ?? options.name} (last seen: ${last ?? 'nothing'})`,
      );
    };
  }
}

// ---- helm

export interface HelmCall {
  kind: 'read' | 'change';
  args: string[];
}

export class FakeHelm {
  readonly calls: HelmCall[] = [];
  /** Answers for `helm <first arg>` reads; a function may throw. */
  /** `helm get values` defaults to a release installed without user values. */
  readonly answers = new Map<string, (args: string[]) => string>([['get', () => '{}']]);
  onChange: (args: string[]) => void = () => {};
  dryRun = false;
  io: TestIo['io'] | undefined;
  log: LogEntry[] | undefined;

  async read(args: string[]): Promise<HelmResult> {
    this.calls.push({ kind: 'read', args });
    const answer = this.answers.get(args[0] ?? '');
    if (!answer) throw new Error(`unexpected helm ${args.join(' ')}`);
    return { stdout: answer(args), stderr: '' };
  }

  async change(args: string[]): Promise<HelmResult | undefined> {
    this.calls.push({ kind: 'change', args });
    if (this.dryRun) {
      this.io?.info(`would run: ${this.describe(args)}`);
      return undefined;
    }
    this.log?.push({ type: 'write', text: `helm ${args.join(' ')}` });
    this.onChange(args);
    return { stdout: '', stderr: '' };
  }

  describe(args: string[]): string {
    return ['helm', ...args].join(' ');
  }

  /** A helm command for a hint, as Helm.command prints it (no kubeconfig or context here). */
  command(...words: string[]): string {
    return ['helm', ...words].join(' ');
  }

  asHelm(): Helm {
    return this as unknown as Helm;
  }
}

// ---- deps and context

export const SETTINGS: RunSettings = {
  remediate: false,
  moduleFiles: [],
  maxParallel: 1,
  keepScc: false,
  timeoutMs: 60_000,
  stallTimeoutMs: 30_000,
};

export interface Harness {
  cluster: FakeCluster;
  helm: FakeHelm;
  deps: UpgradeDeps;
  test: TestIo;
  log: LogEntry[];
  ctx(options?: { dryRun?: boolean; previous?: StepState }): StepContext<UpgradeDeps>;
  run(
    step: { run(ctx: StepContext<UpgradeDeps>): Promise<StepResult> },
    options?: { dryRun?: boolean },
  ): Promise<StepResult>;
}

export function harness(options: {
  snapshot?: (s: Snapshot) => void;
  target?: Partial<TargetFlags>;
  /** `--user-defined-modules`, as read from its file. */
  userDefinedModules?: UserDefinedModule[];
  settings?: Partial<RunSettings>;
  dryRun?: boolean;
}): Harness {
  const log: LogEntry[] = [];
  const cluster = new FakeCluster(log);
  const helm = new FakeHelm();
  const test = createTestIo();
  helm.io = test.io;
  helm.log = log;
  const snapshot = makeSnapshot(options.snapshot);
  const target = {
    ...makeTarget(options.target),
    ...(options.userDefinedModules ? { userDefinedModules: options.userDefinedModules } : {}),
  };
  const plan = planUpgrade(snapshot, target);
  // One options object for the run's writers; ctx() sets its dry-run per call, like helm's.
  const writes = { dryRun: options.dryRun ?? false, io: test.io };
  const kube = cluster.clients();
  const deps: UpgradeDeps = {
    kube,
    kubeWriter: new KubeWriter(kube, writes),
    api: {} as UpgradeDeps['api'],
    apiWriter: {} as UpgradeDeps['apiWriter'],
    helm: helm.asHelm(),
    settings: { ...SETTINGS, ...options.settings },
    clock: { now: () => Date.parse('2025-01-02T03:04:05Z'), sleep: async () => {} },
    snapshot,
    plan,
    target,
    resolved: resolveUpgrade(snapshot, target),
  };
  const ctx = (o: { dryRun?: boolean; previous?: StepState } = {}): StepContext<UpgradeDeps> => {
    const dryRun = o.dryRun ?? options.dryRun ?? false;
    helm.dryRun = dryRun;
    writes.dryRun = dryRun;
    return {
      deps,
      io: test.io,
      dryRun,
      signal: new AbortController().signal,
      previous: o.previous,
      recordIntent: async (intent) => {
        log.push({ type: 'intent', text: JSON.stringify(intent), data: intent });
      },
      progress: (message) => log.push({ type: 'progress', text: message }),
      warn: (message, data) => log.push({ type: 'warn', text: message, data }),
    };
  };
  return { cluster, helm, deps, test, log, ctx, run: (step, o) => step.run(ctx(o)) };
}

/** Lines written to stderr, without blank ones. */
export function stderrLines(test: TestIo): string[] {
  return test
    .stderr()
    .split('\n')
    .filter((line) => line.trim() !== '');
}

export function deployment(image: string, ready: boolean, namespace = 'redis'): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'redis-enterprise-operator', namespace, generation: 1 },
    spec: { replicas: 1, template: { spec: { containers: [{ name: 'redis-enterprise-operator', image }] } } },
    status: ready
      ? { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 }
      : { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 0 },
  };
}

/** Stands in for the Deployment controller: the current template becomes ready. */
export function makeDeploymentsReady(cluster: FakeCluster): void {
  for (const object of cluster.objects.values()) {
    if (object.kind !== 'Deployment') continue;
    const generation = object.metadata?.generation ?? 1;
    object.status = {
      observedGeneration: generation,
      replicas: 1,
      updatedReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
    };
  }
}
