import { simDialectFields } from '../world/dialect.js';
import { OPERATOR_ENV_CONFIGMAP } from '../artifacts/operator-objects.js';
import type { ControllerManager } from '../kube/controllers/controller.js';
import type { ChangeEvent, KubeStore } from '../kube/store.js';
import type { KubeObject } from '../kube/types.js';
import type { RestModel } from '../rest/model.js';
import type { Scenario } from '../scenario.js';
import { admissionTlsSecret } from './admission.js';
import { type OperatorClock, systemClock, Timers } from './clock.js';
import {
  ACTIVE_ACTIVE_KIND,
  ADMISSION_TLS_SECRET,
  CLUSTER_KIND,
  DATABASE_KIND,
  licenseStatus,
} from './cluster-objects.js';
import { ClusterUpgrade } from './cluster-upgrade.js';
import { worldOf } from '../world/world.js';
import { DatabaseReconciler } from './databases.js';
import { upgradeClusterCrd } from './crd-upgrade.js';
import { isOperatorDeployment, OperatorDeployment } from './deployment.js';
import { EventRecorder, type EventSink } from './events.js';
import { KubeAccess, type KubeHandle, toKubeHandle } from './kube-access.js';
import { CLUSTER_LOGGER, OPERATOR_LOGGER, OperatorLog, type OperatorLogEntry } from './operator-log.js';
import { PodAdmissionGate } from './pod-admission.js';
import { releaseImageTags } from './image-pull.js';
import { ServicesRigger } from './services-rigger.js';
import { completeRestActions } from './rest-actions.js';

export type { OperatorClock } from './clock.js';
export type { EventSink, OperatorEvent } from './events.js';
export type { OperatorLogEntry } from './operator-log.js';
export type { KubeHandle } from './kube-access.js';
export { type SeedOptions, seedCluster } from './seed.js';

export interface StartOperatorOptions {
  /** The kube emulator's store, or its server handle (`startKubeServer`'s result). */
  store: KubeStore | KubeHandle;
  /** The built-in controllers, when `store` is a bare store and they run. */
  controllers?: ControllerManager;
  rest: RestModel;
  scenario: Scenario;
  events?: EventSink;
  clock?: OperatorClock;
  /** Unexpected failures of a reconcile (default: printed to stderr). */
  onError?: (error: unknown) => void;
}

export interface RunningOperator {
  /** Every line the operator has logged (also in its pod's log), oldest first. */
  readonly logEntries: readonly OperatorLogEntry[];
  stop(): Promise<void>;
}

/**
 * Starts the simulated Redis Enterprise operator (SIMULATOR.md "Behaviour to emulate"). It
 * reacts in-process to the store's change events and the management API's events, never on
 * the calling tick: every reaction runs on a later one, so watchers see the user's change
 * before the operator's answer.
 */
export function startOperator(options: StartOperatorOptions): RunningOperator {
  const operator = new SimulatedOperator(options);
  operator.start();
  return { logEntries: operator.logEntries, stop: () => operator.stop() };
}

class SimulatedOperator {
  readonly #scenario: Scenario;
  readonly #rest: RestModel;
  readonly #store: KubeStore;
  readonly #kube: KubeAccess;
  readonly #timers: Timers;
  readonly #events: EventRecorder;
  readonly #log: OperatorLog;
  readonly #deployment: OperatorDeployment;
  readonly #cluster: ClusterUpgrade;
  readonly #rigger: ServicesRigger;
  readonly #admission: PodAdmissionGate;
  readonly #databases: DatabaseReconciler;
  readonly #controllers: ControllerManager | undefined;
  readonly #cleanups: (() => void)[] = [];
  readonly #inFlight = new Set<Promise<unknown>>();
  #passScheduled = false;
  /** Database resources changed since the last pass (`<kind>/<ns>/<name>`), or everything. */
  readonly #dirtyDatabases = new Set<string>();
  #everythingDirty = true;
  /** The pod template whose operator last started (a change = a restart). */
  #startedTemplate: string | undefined;
  /** The operator version the simulation began with, then the last one that started. */
  #version: string | undefined;
  /** After an operator upgrade: databases wait until the cluster upgrade completes. */
  #suspended = false;

  constructor(options: StartOperatorOptions) {
    this.#scenario = options.scenario;
    this.#rest = options.rest;
    const handle = toKubeHandle(options.store);
    this.#store = handle.store;
    this.#controllers = options.controllers ?? handle.controllers;
    this.#kube = new KubeAccess(this.#store);
    const clock = options.clock ?? systemClock;
    const onError =
      options.onError ??
      ((error: unknown) =>
        process.stderr.write(
          `simulated operator: ${error instanceof Error ? error.stack : String(error)}\n`,
        ));
    this.#timers = new Timers(clock, onError);
    this.#events = new EventRecorder(this.#kube, clock, options.events);
    this.#log = new OperatorLog(this.#kube, options.scenario.namespace, clock);
    this.#admission = new PodAdmissionGate({
      kube: this.#kube,
      timers: this.#timers,
      clock,
      kick: () => this.kick(),
    });
    this.#version = options.scenario.operator.version;
    const fields = simDialectFields(options.scenario.dialect);
    // The operator versions whose images the registry holds: one list for every image it pulls.
    const releases = releaseImageTags(options.scenario);
    this.#deployment = new OperatorDeployment({
      kube: this.#kube,
      namespace: options.scenario.namespace,
      timers: this.#timers,
      startSeconds: options.scenario.timing.operatorStart,
      controllers: this.#controllers,
      releases,
    });
    this.#rigger = new ServicesRigger({
      kube: this.#kube,
      scenario: options.scenario,
      controllers: this.#controllers,
      releases,
    });
    this.#cluster = new ClusterUpgrade({
      kube: this.#kube,
      rest: this.#rest,
      scenario: this.#scenario,
      fields,
      events: this.#events,
      log: this.#log,
      timers: this.#timers,
      kick: () => this.kick(),
      admission: this.#admission,
      onUpgradeCompleted: () => {
        this.#suspended = false;
        this.kick();
      },
      rigger: this.#rigger,
      releases,
    });
    this.#databases = new DatabaseReconciler({
      kube: this.#kube,
      rest: this.#rest,
      fields,
      log: this.#log,
      namespace: options.scenario.namespace,
      world: worldOf(options.scenario),
    });
  }

  get logEntries(): readonly OperatorLogEntry[] {
    return this.#log.entries;
  }

  start(): void {
    const { namespace, cluster } = this.#scenario;
    // The cluster's StatefulSet rolls one pod at a time under the operator, not all at once.
    if (this.#controllers) {
      this.#cleanups.push(
        this.#controllers.claim(
          (object) =>
            object.kind === 'StatefulSet' &&
            object.metadata.namespace === namespace &&
            object.metadata.name === cluster.name,
        ),
      );
    }
    const onChange = (event: ChangeEvent) => {
      const { object } = event;
      if (object.kind === DATABASE_KIND || object.kind === ACTIVE_ACTIVE_KIND) {
        this.kick(databaseKey(object.kind, object.metadata.namespace, object.metadata.name));
      } else if (this.#relevant(object)) {
        this.kick();
      }
    };
    this.#store.on('change', onChange);
    this.#cleanups.push(this.#admission.watch(this.#store));
    this.#cleanups.push(() => this.#store.off('change', onChange));
    this.#cleanups.push(
      completeRestActions(this.#rest, this.#timers, this.#scenario.timing.databaseUpgrade, (bdb) =>
        this.kick(
          bdb
            ? databaseKey(bdb.crdt ? ACTIVE_ACTIVE_KIND : DATABASE_KIND, bdb.namespace, bdb.name)
            : undefined,
        ),
      ),
    );
    this.kick();
  }

  async stop(): Promise<void> {
    this.#timers.stop();
    for (const cleanup of this.#cleanups.splice(0)) cleanup();
    // Last installed, first removed: each restores the hooks it found.
    this.#rigger.detach();
    this.#deployment.detach();
    await Promise.allSettled([...this.#inFlight]);
  }

  /**
   * Schedules one reconcile pass on a later tick; many changes in a row make one pass. With a
   * database key only that database is looked at again (a pass over 1,000 costs ~50 ms).
   */
  kick(databaseKey?: string): void {
    if (databaseKey === undefined) this.#everythingDirty = true;
    else this.#dirtyDatabases.add(databaseKey);
    if (this.#passScheduled || this.#timers.stopped) return;
    this.#passScheduled = true;
    this.#timers.after(0, () => {
      this.#passScheduled = false;
      this.#pass();
    });
  }

  #relevant(object: KubeObject): boolean {
    const { namespace } = this.#scenario;
    switch (object.kind) {
      case 'Deployment':
        return isOperatorDeployment(object, namespace);
      case CLUSTER_KIND:
        return true;
      case 'ConfigMap':
        return object.metadata.name === OPERATOR_ENV_CONFIGMAP && object.metadata.namespace === namespace;
      default:
        return false;
    }
  }

  #pass(): void {
    const operatorProcess = this.#deployment.observe();
    if (!operatorProcess?.ready) {
      // Everything is looked at again once the operator runs.
      this.#everythingDirty = true;
      return;
    }
    if (operatorProcess.template !== this.#startedTemplate)
      this.#started(operatorProcess.template, operatorProcess.version);
    const everything = this.#everythingDirty;
    const databases = everything ? undefined : new Set(this.#dirtyDatabases);
    this.#everythingDirty = false;
    this.#dirtyDatabases.clear();
    const cluster = this.#cluster.reconcile(this.#version);
    // Gated: a REC change (back to Running) or the operator becoming ready makes a full pass later.
    if (cluster.state !== 'Running' || this.#suspended || !cluster.versionTag) return;
    this.#databases.reconcile(
      {
        versionTag: cluster.versionTag,
        upgradePolicy: cluster.upgradePolicy,
        operatorVersion: this.#version,
      },
      databases,
    );
  }

  /** The operator (re)started: first with the seeded version, later after every restart. */
  #started(template: string, version: string | undefined): void {
    this.#startedTemplate = template;
    this.#ensureAdmissionTls();
    // Every start of the real operator logs its version first (logger `cmd`).
    this.#log.info(OPERATOR_LOGGER, undefined, 'Operator Version', { version: version ?? 'unknown' });
    if (version === undefined || version === this.#version) return;
    const previous = this.#version;
    this.#version = version;
    if (this.#scenario.operator.installedBy !== 'bundle')
      upgradeClusterCrd(this.#kube, this.#scenario.dialect, version);
    // The real operator suspends the cluster's databases until the cluster upgrade completes
    // (redis-facts.md §3); with autoUpgrade it starts that upgrade itself.
    this.#suspended = true;
    this.#cluster.newOperatorReady();
    const rec = this.#kube.get(
      'app.redislabs.com/v1',
      CLUSTER_KIND,
      this.#scenario.namespace,
      this.#scenario.cluster.name,
    );
    if (rec && this.#rest.license) {
      // The new operator writes the licence status its release knows (from 7.8.6-1 on with the
      // shards in use: cluster-objects.ts licenseStatus).
      const shardsInUse = this.#rest.shards.all().length;
      this.#kube.patchStatus(rec, { licenseStatus: licenseStatus(this.#rest.license, shardsInUse, version) });
    }
    if (rec) {
      this.#log.info(
        CLUSTER_LOGGER,
        rec,
        'Operator upgraded: cluster and databases wait for the cluster upgrade',
        {
          operatorVersion: version,
          previousOperatorVersion: previous ?? 'unknown',
        },
      );
    }
  }

  /** Secret admission-tls is created by the operator at start when it is missing. */
  #ensureAdmissionTls(): void {
    const { namespace } = this.#scenario;
    if (this.#kube.get('v1', 'Secret', namespace, ADMISSION_TLS_SECRET)) return;
    const work = admissionTlsSecret(namespace).then((secret) => {
      if (this.#timers.stopped || this.#kube.get('v1', 'Secret', namespace, ADMISSION_TLS_SECRET)) return;
      try {
        this.#kube.create(secret);
      } catch {
        // Created meanwhile by someone else: theirs stays.
      }
    });
    this.#inFlight.add(work);
    void work.finally(() => this.#inFlight.delete(work));
  }
}

function databaseKey(
  kind: string | undefined,
  namespace: string | undefined,
  name: string | undefined,
): string {
  return `${kind}/${namespace}/${name}`;
}
