import { registerBuiltins } from '../../../src/sim/kube/builtins.js';
import { ControllerManager } from '../../../src/sim/kube/controllers/controller.js';
import { DeploymentController } from '../../../src/sim/kube/controllers/deployment.js';
import { StatefulSetController } from '../../../src/sim/kube/controllers/statefulset.js';
import { syncCrdsWithRegistry } from '../../../src/sim/kube/crds.js';
import { ResourceRegistry } from '../../../src/sim/kube/registry.js';
import { type ChangeEvent, KubeStore } from '../../../src/sim/kube/store.js';
import type { KubeObject } from '../../../src/sim/kube/types.js';
import {
  type OperatorEvent,
  type OperatorLogEntry,
  type RunningOperator,
  seedCluster,
  startOperator,
} from '../../../src/sim/operator/index.js';
import { RestModel } from '../../../src/sim/rest/model.js';
import { loadScenario, type Scenario, withFastTiming } from '../../../src/sim/scenario.js';

/**
 * An in-process simulated cluster for the operator's tests: the kube store with its built-in
 * controllers (no HTTP server), the REST model, a seeded scenario and the running operator.
 */
export interface SimCluster {
  scenario: Scenario;
  store: KubeStore;
  controllers: ControllerManager;
  rest: RestModel;
  operator: RunningOperator;
  /** Everything the operator reported through its sink. */
  events: OperatorEvent[];
  /** Unexpected reconcile failures: a test ends by asserting there were none. */
  errors: unknown[];
  /** Every change the store emitted, in order. */
  changes: ChangeEvent[];
  get(apiVersion: string, kind: string, name: string, namespace?: string): KubeObject | undefined;
  list(apiVersion: string, kind: string, namespace?: string): KubeObject[];
  mergePatch(apiVersion: string, kind: string, name: string, patch: unknown, namespace?: string): KubeObject;
  strategicPatch(
    apiVersion: string,
    kind: string,
    name: string,
    patch: unknown,
    namespace?: string,
  ): KubeObject;
  close(): Promise<void>;
}

export interface SimOptions {
  /** Changes applied to the loaded (fast-timing) scenario before seeding. */
  adjust?: (scenario: Scenario) => void;
  /** Leave out the built-in controllers (the operator then drives its Deployment itself). */
  withoutControllers?: boolean;
}

export async function startSim(name: string, options: SimOptions = {}): Promise<SimCluster> {
  const scenario = withFastTiming(loadScenario(name));
  options.adjust?.(scenario);
  const registry = new ResourceRegistry();
  const store = new KubeStore(registry);
  syncCrdsWithRegistry(store, registry);
  registerBuiltins(registry, scenario.platform);
  for (const namespace of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
    store.create(store.resolve('v1', 'Namespace'), { metadata: { name: namespace } });
  }
  const controllers = new ControllerManager(store, registry);
  if (!options.withoutControllers) {
    controllers.add(new DeploymentController());
    controllers.add(new StatefulSetController());
  }
  controllers.startAll();
  const changes: ChangeEvent[] = [];
  store.on('change', (event: ChangeEvent) => changes.push(event));

  const rest = new RestModel({
    serverVersion: scenario.cluster.apiVersion,
    dialect: scenario.dialect,
    clusterName: scenario.cluster.name,
    nodes: scenario.cluster.nodes,
    // The operator completes actions after its own timing, not the model on the next request.
    actionDelayMs: undefined,
  });
  await seedCluster(store, rest, scenario);
  const events: OperatorEvent[] = [];
  const errors: unknown[] = [];
  const operator = startOperator({
    store: { store, controllers },
    rest,
    scenario,
    events: (event) => events.push(event),
    onError: (error) => errors.push(error),
  });

  const rt = (apiVersion: string, kind: string) => store.resolve(apiVersion, kind);
  return {
    scenario,
    store,
    controllers,
    rest,
    operator,
    events,
    errors,
    changes,
    get: (apiVersion, kind, name, namespace = scenario.namespace) =>
      store.get(rt(apiVersion, kind), namespace, name),
    list: (apiVersion, kind, namespace) => store.all(rt(apiVersion, kind), namespace),
    mergePatch: (apiVersion, kind, name, patch, namespace = scenario.namespace) =>
      store.patch(rt(apiVersion, kind), namespace, name, 'merge', patch, { fieldManager: 'test' }).object,
    strategicPatch: (apiVersion, kind, name, patch, namespace = scenario.namespace) =>
      store.patch(rt(apiVersion, kind), namespace, name, 'strategic', patch, { fieldManager: 'test' }).object,
    close: async () => {
      await operator.stop();
      controllers.stopAll();
    },
  };
}

/** Polls until `check` returns a value other than undefined/false; fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Lets every scheduled tick run (several rounds of setImmediate and zero timers). */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setTimeout(resolve, 1));
}

export const REC = ['app.redislabs.com/v1', 'RedisEnterpriseCluster'] as const;
export const REDB = ['app.redislabs.com/v1alpha1', 'RedisEnterpriseDatabase'] as const;
export const REAADB = ['app.redislabs.com/v1alpha1', 'RedisEnterpriseActiveActiveDatabase'] as const;

export function recState(sim: SimCluster): string | undefined {
  const rec = sim.get(...REC, sim.scenario.cluster.name);
  return (rec?.status as { state?: string } | undefined)?.state;
}

/** Sets the operator image (both containers), as `kubectl apply -f bundle.yaml` or helm upgrade do. */
export function setOperatorImage(sim: SimCluster, version: string): void {
  const image = `redislabs/operator:${version}`;
  sim.strategicPatch('apps/v1', 'Deployment', 'redis-enterprise-operator', {
    spec: {
      template: {
        spec: {
          containers: [
            { name: 'redis-enterprise-operator', image },
            { name: 'admission', image },
          ],
        },
      },
    },
  });
}

/** Sets the REC's image versionTag in the scenario's dialect. */
export function setClusterTag(sim: SimCluster, tag: string): void {
  const key = sim.scenario.dialect === 'redis' ? 'redisEnterpriseImageSpec' : 'engineEnterpriseImageSpec';
  sim.mergePatch(...REC, sim.scenario.cluster.name, { spec: { [key]: { versionTag: tag } } });
}

export function statusOf(object: KubeObject | undefined): Record<string, unknown> {
  return (object?.status ?? {}) as Record<string, unknown>;
}

export function warnings(sim: SimCluster, reason?: string): OperatorEvent[] {
  return sim.events.filter(
    (event) => event.type === 'Warning' && (reason === undefined || event.reason === reason),
  );
}

/** The operator's log lines (what `kubectl logs deploy/redis-enterprise-operator` shows). */
export function logLines(sim: SimCluster): readonly OperatorLogEntry[] {
  return sim.operator.logEntries;
}

/** Error lines of the operator's log whose `error` matches `pattern` (all error lines without one). */
export function logErrors(sim: SimCluster, pattern?: RegExp): OperatorLogEntry[] {
  return logLines(sim).filter(
    (line) => line.level === 'error' && (pattern === undefined || pattern.test(String(line.error))),
  );
}

/** Info lines of the operator's log whose message matches `pattern`. */
export function logInfos(sim: SimCluster, pattern: RegExp): OperatorLogEntry[] {
  return logLines(sim).filter((line) => line.level === 'info' && pattern.test(line.msg));
}
