import type { SimWorld } from '../world/world.js';
import type { SimDialectFields } from '../world/dialect.js';
import { upgradesActiveActiveThroughReaadb } from '../world/releases.js';
import { OPERATOR_ENV_CONFIGMAP } from '../artifacts/operator-objects.js';
import type { KubeObject } from '../kube/types.js';
import type { RestBdb, RestModel } from '../rest/model.js';
import { ACTIVE_ACTIVE_KIND, DATABASE_API_VERSION, DATABASE_KIND } from './cluster-objects.js';
import { databaseTarget } from './database-versions.js';
import { ACTIVE_ACTIVE_LOGGER, DATABASE_LOGGER, type OperatorLog } from './operator-log.js';
import { asString, getPath, type KubeAccess, statusOf } from './kube-access.js';

export interface DatabasesOptions {
  kube: KubeAccess;
  rest: RestModel;
  fields: SimDialectFields;
  log: OperatorLog;
  /** The operator's own namespace, always watched. */
  namespace: string;
  /** The scenario's releases: which database versions each RS bundles. */
  world?: SimWorld;
}

export interface ClusterFacts {
  /** The image tag the cluster runs: decides the database versions it offers. */
  versionTag: string;
  upgradePolicy: string | undefined;
  operatorVersion: string | undefined;
}

/**
 * Database reconciliation: a new version in a database resource upgrades the database in the
 * management API, and the resource's status mirrors the API's database (status, version).
 * Runs only while the cluster is Running and the operator manages it (the caller decides).
 */
export class DatabaseReconciler {
  readonly #o: DatabasesOptions;
  /** `<kind>/<ns>/<name>` -> `<generation>/<reason>` of the last refusal reported. */
  readonly #refusals = new Map<string, string>();
  #index: (BdbIndex & { of: readonly RestBdb[]; size: number }) | undefined;

  constructor(options: DatabasesOptions) {
    this.#o = options;
  }

  /** The namespaces whose databases the operator manages (REDB_NAMESPACES of its ConfigMap). */
  watchedNamespaces(): string[] {
    const { kube, namespace } = this.#o;
    const config = kube.peek('v1', 'ConfigMap', namespace, OPERATOR_ENV_CONFIGMAP);
    const listed = asString(getPath(config, ['data', 'REDB_NAMESPACES'])) ?? '';
    const extra = listed
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name.length > 0 && name !== namespace);
    return [namespace, ...new Set(extra)];
  }

  /** All watched databases, or only those in `only` (keys `<kind>/<namespace>/<name>`). */
  reconcile(cluster: ClusterFacts, only?: ReadonlySet<string>): void {
    const { kube, fields, rest } = this.#o;
    if (only?.size === 0) return;
    const bdbs = this.#bdbIndex(rest);
    const one = (database: KubeObject) => {
      const activeActive = database.kind === ACTIVE_ACTIVE_KIND;
      const versionPath = activeActive ? fields.activeActiveVersionPath : fields.databaseVersionPath;
      const bdb = bdbOf(bdbs, database, activeActive);
      if (bdb)
        this.#reconcileOne(database, asString(getPath(database, versionPath)), cluster, bdb, activeActive);
    };
    const watched = this.watchedNamespaces();
    if (only) {
      for (const key of only) {
        const [kind = '', namespace = '', name = ''] = key.split('/');
        if (!watched.includes(namespace)) continue;
        const database = kube.get(DATABASE_API_VERSION, kind, namespace, name);
        if (database) one(database);
      }
      return;
    }
    for (const namespace of watched) {
      for (const database of kube.list(DATABASE_API_VERSION, DATABASE_KIND, namespace)) one(database);
      for (const database of kube.list(DATABASE_API_VERSION, ACTIVE_ACTIVE_KIND, namespace)) one(database);
    }
  }

  #reconcileOne(
    database: KubeObject,
    spec: string | undefined,
    cluster: ClusterFacts,
    bdb: RestBdb,
    activeActive: boolean,
  ): void {
    const key = `${database.kind}/${database.metadata.namespace}/${database.metadata.name}`;
    const generation = database.metadata.generation ?? 0;
    const mirror: Record<string, unknown> = {
      status: bdb.status,
      specStatus: 'Valid',
      observedGeneration: generation,
    };
    if (!activeActive) {
      mirror.version = bdb.databaseVersion;
      mirror.databaseUID = String(bdb.uid);
    }
    const lastAction = asString(statusOf(database).lastActionUid);
    const lastActionStatus = lastAction ? this.#o.rest.actions.get(lastAction)?.status : undefined;
    if (lastActionStatus) mirror.lastActionStatus = lastActionStatus;
    if (bdb.status === 'active-change-pending') {
      this.#writeStatus(database, {
        ...mirror,
        specStatus: asString(statusOf(database).specStatus) ?? 'Valid',
      });
      return;
    }
    let target = databaseTarget({
      spec,
      current: bdb.databaseVersion,
      clusterTag: cluster.versionTag,
      clusterPolicy: cluster.upgradePolicy,
      ...(this.#o.world ? { world: this.#o.world } : {}),
    });
    if (
      target.kind === 'upgrade' &&
      activeActive &&
      !this.#activeActiveUpgradeSupported(cluster.operatorVersion)
    ) {
      target = {
        kind: 'refused',
        reason: 'ActiveActiveUpgradeNotSupported',
        message:
          `operator ${cluster.operatorVersion ?? 'unknown'} cannot upgrade Active-Active databases through the resource ` +
          '(needs 8.0.2-2 or later on every participating cluster): upgrade each instance with rladmin or crdb-cli',
      };
    }
    if (target.kind === 'refused') {
      this.#writeStatus(database, { ...mirror, specStatus: 'Invalid' });
      const mark = `${generation}/${target.reason}`;
      if (this.#refusals.get(key) !== mark) {
        this.#refusals.set(key, mark);
        this.#o.log.error(loggerOf(database), database, 'Reconcile Error', target.message);
      }
      return;
    }
    this.#refusals.delete(key);
    if (target.kind === 'none') {
      this.#writeStatus(database, mirror);
      return;
    }
    const { action } = this.#o.rest.requestBdbUpgrade(bdb, target.version);
    this.#writeStatus(database, {
      ...mirror,
      status: 'active-change-pending',
      lastActionUid: action.action_uid,
      lastActionStatus: 'pending',
    });
    this.#o.log.info(loggerOf(database), database, 'Upgrading database', {
      uid: bdb.uid,
      from: bdb.databaseVersion,
      to: target.version,
    });
  }

  /**
   * The API's databases by uid and by name, built again only when one was added: a pass for one
   * database must not index 1,000 bdbs (the model only ever appends to its list).
   */
  #bdbIndex(rest: RestModel): BdbIndex {
    if (this.#index?.of === rest.bdbs && this.#index.size === rest.bdbs.length) return this.#index;
    const index: BdbIndex & { of: RestBdb[]; size: number } = {
      byUid: new Map(),
      byName: new Map(),
      of: rest.bdbs,
      size: rest.bdbs.length,
    };
    for (const bdb of rest.bdbs) {
      index.byUid.set(bdb.uid, bdb);
      index.byName.set(`${bdb.crdt}/${bdb.namespace}/${bdb.name}`, bdb);
    }
    this.#index = index;
    return index;
  }

  #activeActiveUpgradeSupported(operatorVersion: string | undefined): boolean {
    return operatorVersion !== undefined && upgradesActiveActiveThroughReaadb(operatorVersion);
  }

  /** Writes only what differs, so a pass over 1,000 quiet databases writes nothing. */
  #writeStatus(database: KubeObject, wanted: Record<string, unknown>): void {
    const current = statusOf(database);
    const changed = Object.entries(wanted).some(([field, value]) => current[field] !== value);
    if (changed) this.#o.kube.patchStatus(database, wanted);
  }
}

interface BdbIndex {
  byUid: Map<number, RestBdb>;
  byName: Map<string, RestBdb>;
}

/** The API database behind a resource: by `status.databaseUID`, else by namespace and name. */
function bdbOf(index: BdbIndex, database: KubeObject, activeActive: boolean): RestBdb | undefined {
  const uid = Number(statusOf(database).databaseUID);
  const byUid = Number.isInteger(uid) && uid > 0 ? index.byUid.get(uid) : undefined;
  return (
    byUid ?? index.byName.get(`${activeActive}/${database.metadata.namespace}/${database.metadata.name}`)
  );
}

/** The controller whose logger reports on this resource (REDB or REAADB). */
function loggerOf(database: KubeObject): string {
  return database.kind === ACTIVE_ACTIVE_KIND ? ACTIVE_ACTIVE_LOGGER : DATABASE_LOGGER;
}
