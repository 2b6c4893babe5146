import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { type JwtClaims, signJwt, verifyJwt } from './jwt.js';
import { ShardPlacement } from './shards.js';
import type { ClusterLicense } from './license.js';
import { BUILT_IN_ROLES, type RestRole } from './access.js';
import { type ModuleKind, reportsBundled } from '../world/module-kinds.js';

/**
 * The management API's state, as a plain object. The REST server reads and changes it; the
 * simulated operator (a later issue) shares the same instance: it listens to the events below,
 * marks actions done, bumps versions and rotates the JWT secret after an upgrade.
 */

export type Dialect = 'engine' | 'redis';

export interface RestUser {
  uid: string;
  username: string;
  password: string;
  role: string;
  /** An RBAC user's roles by name (served as `role_uids`); absent: `role` alone. */
  roleNames?: string[] | undefined;
  passwordExpired: boolean;
  /** false: no user object GET /v1/users lists (an LDAP user); absent: listed. */
  listed?: false;
}

export interface ModulePlatform {
  dependencies: Record<string, unknown>;
  sha256: string;
}

/**
 * redis-facts.md §4 module object (the fields ctl reads, plus a few for realism). `is_bundled`
 * ("Whether module came bundled with a version of Redis Enterprise", in every reference version
 * of rest-api/objects/module.md) follows the module's kind (../world/module-kinds.ts).
 */
export interface RestModule {
  uid: string;
  module_name: string;
  display_name: string;
  semantic_version: string;
  version: number;
  author: string;
  capabilities: string[];
  min_redis_version: string;
  is_bundled: boolean;
  /** Keyed like `rhel9/x86_64`. */
  platforms: Record<string, ModulePlatform>;
}

export interface BdbModule {
  module_name: string;
  semantic_version: string;
  module_args: string;
  module_id: string;
}

export interface RestBdb {
  uid: number;
  name: string;
  type: 'redis';
  status: 'active' | 'pending' | 'active-change-pending';
  /** Database version "x.y"; served as `redis_version` or `engine_version` per dialect. */
  databaseVersion: string;
  module_list: BdbModule[];
  crdt: boolean;
  port: number;
  shards_count: number;
  replication: boolean;
  /** The shards' uids (bdb object `shard_list`); where they are: RestModel.shards. */
  shard_list: number[];
  /** bdb object `shards_placement`; `sparse` is the cluster's documented default. */
  shards_placement: 'dense' | 'sparse';
  /** Kubernetes namespace of the database resource (not served; the operator links by it). */
  namespace: string;
  action_uid?: string;
}

export interface RestNode {
  uid: number;
  software_version: string;
  status: 'active' | 'decommissioning' | 'down' | 'provisioning';
  os_name: string;
  os_version: string;
  architecture: string;
  supported_database_versions: { db_type: 'redis'; version: string }[];
}

export type ActionStatus = 'pending' | 'active' | 'completed' | 'failed';

export interface RestAction {
  action_uid: string;
  name: string;
  status: ActionStatus;
  progress: number;
  object_name?: string;
  error_message?: string;
  /** Internal: when it started (model clock) and when it completes by itself, if ever. */
  startedAt: number;
  completeAt: number | undefined;
  effect: (() => void) | undefined;
}

export interface UserSpec {
  username: string;
  password: string;
  role?: string;
  /** Roles by name (built-in or `roles`): an RBAC user. */
  roles?: string[] | undefined;
  passwordExpired?: boolean;
  /** false: signs in, but GET /v1/users does not list it (an LDAP user). */
  listed?: boolean | undefined;
}

export interface ModuleSpec {
  name: string;
  version: string;
  platforms?: string[];
  displayName?: string;
  /**
   * Where it came from (../world/module-kinds.ts): decides `is_bundled`. Absent: custom, as a
   * module the model learns of by an upload is.
   */
  kind?: ModuleKind;
}

export interface BdbSpec {
  name: string;
  namespace?: string;
  version: string;
  modules?: { name: string; version: string; args?: string }[];
  activeActive?: boolean;
  /** Master shards (bdb `shards_count`); default 1. */
  shards?: number;
  /** bdb `replication`: a replica for each master shard, on another node; default true. */
  replication?: boolean;
  /** The uid to give it when no database has it yet; else (and by default) the next free one. */
  uid?: number;
}

export interface RestModelOptions {
  /** The cluster's `apiVersion` (e.g. 7.4.6-22): decides the authorize form, node versions. */
  serverVersion: string;
  dialect?: Dialect;
  clusterName?: string;
  /**
   * The REC's namespace: GET /v1/cluster then names the cluster by its FQDN,
   * `<REC-name>.<namespace>.svc.cluster.local`, as the operator does (redis/docs
   * content/operate/kubernetes/security/configuration-secrets.md). Without it: the bare name.
   */
  namespace?: string;
  /**
   * GET /v1/cluster `created_time` ("Cluster creation date", read-only; redis/docs
   * content/operate/rs/references/rest-api/objects/cluster/_index.md). Default: a moment in the
   * day before the model was made, in the documented example's form (`2015-04-29T09:09:25Z`), so
   * two simulators started in the same second are still two clusters. null: the field is absent.
   */
  createdTime?: string | null;
  /**
   * The cluster setting `allow_modules_upload` (RS 8.2 and later only: MODULES_UPLOAD_SETTING_SINCE).
   * false: on such a version `POST /v2/modules` answers 403 `modules_upload_disabled`; on an
   * older one the setting does not exist and uploads are taken whatever this says. Default true.
   */
  modulesUpload?: boolean;
  /**
   * What a server before 7.8.2 answers to an authorize with only the Basic header (no body
   * credentials): not documented, 400 or 401 (redis-facts.md §12). Default 400.
   */
  headerFormAnswer?: 400 | 401;
  users?: UserSpec[];
  /** Roles besides the built-in ones (./access.ts), each with its management role. */
  roles?: { name: string; management: string }[];
  modules?: ModuleSpec[];
  bdbs?: BdbSpec[];
  nodes?: number;
  /** How long actions take when nobody marks them; undefined = only when marked. Default 0. */
  actionDelayMs?: number | undefined;
  /** Database versions the nodes accept; default derived from the server version. */
  supportedDatabaseVersions?: string[];
  /** Seconds a replicated database is unavailable when the node of a master shard stops (default 1). */
  failoverSeconds?: number;
  now?: () => number;
}

export interface ModuleUploadedEvent {
  module: RestModule;
  action: RestAction;
}

export interface BdbUpgradeRequestedEvent {
  bdb: RestBdb;
  targetVersion: string;
  action: RestAction;
}

/** First server version that takes credentials from the Basic header (Form A). */
export const BASIC_AUTHORIZE_SINCE = '7.8.2';
/** From this version on an upgrade rotates the JWT signing secret (redis-facts.md §4). */
export const ROTATES_JWT_SECRET_SINCE = '8.0.22';
/**
 * The first RS with the cluster setting `allow_modules_upload` (redis/docs
 * content/operate/rs/release-notes/rs-8-2-releases/rs-8-2-0-25.md, "Breaking changes": "A new
 * cluster setting, `allow_modules_upload`, controls access to the custom module upload APIs",
 * disabled by default, refused uploads answer `403 modules_upload_disabled`;
 * rest-api/objects/cluster/_index.md lists it, the 7.4 to 8.0 references' cluster objects do not).
 */
export const MODULES_UPLOAD_SETTING_SINCE = '8.2.0';

export class RestModel {
  serverVersion: string;
  readonly dialect: Dialect;
  clusterName: string;
  /** GET /v1/cluster `name`: the FQDN when the namespace is known. */
  readonly clusterFqdn: string;
  /** The cluster's licence (GET /v1/license, ./license.ts); set when the cluster is seeded. */
  license: ClusterLicense | undefined;
  readonly createdTime: string | undefined;
  readonly modulesUpload: boolean;
  readonly headerFormAnswer: 400 | 401;
  readonly users: RestUser[];
  /** GET /v1/roles: the built-in roles and the scenario's own (./access.ts). */
  readonly roles: RestRole[] = BUILT_IN_ROLES.map((role) => ({ ...role }));
  readonly modules: RestModule[] = [];
  readonly bdbs: RestBdb[] = [];
  // The databases by uid, and the largest uid: seeding scale-10000 searched the whole list for
  // both at each of its 10,000 databases (issue 39). Only addBdb adds to the list.
  readonly #bdbByUid = new Map<number, RestBdb>();
  #largestBdbUid = 0;
  readonly nodes: RestNode[] = [];
  readonly actions = new Map<string, RestAction>();
  /** Where every database's shards are, and which nodes are restarting (./shards.ts). */
  readonly shards: ShardPlacement;
  actionDelayMs: number | undefined;
  readonly events = new EventEmitter();
  readonly now: () => number;
  #jwtSecret = randomBytes(32).toString('hex');
  #supportedOverride: string[] | undefined;

  constructor(options: RestModelOptions) {
    this.serverVersion = options.serverVersion;
    this.dialect = options.dialect ?? 'engine';
    this.clusterName = options.clusterName ?? 'rec';
    this.clusterFqdn = options.namespace
      ? `${this.clusterName}.${options.namespace}.svc.cluster.local`
      : this.clusterName;
    this.modulesUpload = options.modulesUpload ?? true;
    this.headerFormAnswer = options.headerFormAnswer ?? 400;
    this.actionDelayMs = 'actionDelayMs' in options ? options.actionDelayMs : 0;
    this.now = options.now ?? Date.now;
    this.createdTime =
      options.createdTime === null ? undefined : (options.createdTime ?? createdTimeBefore(this.now()));
    this.#supportedOverride = options.supportedDatabaseVersions;
    this.users = (options.users ?? []).map((user, index) => ({
      uid: String(index + 1),
      username: user.username,
      password: user.password,
      role: user.role ?? 'admin',
      ...(user.roles ? { roleNames: [...user.roles] } : {}),
      passwordExpired: user.passwordExpired ?? false,
      ...(user.listed === false ? { listed: false as const } : {}),
    }));
    for (const role of options.roles ?? []) this.addRole(role.name, role.management);
    this.shards = new ShardPlacement((options.failoverSeconds ?? 1) * 1000);
    for (const spec of options.modules ?? []) this.addModule(spec);
    const nodeCount = options.nodes ?? 3;
    for (let uid = 1; uid <= nodeCount; uid += 1) {
      this.nodes.push({
        uid,
        software_version: this.serverVersion,
        status: 'active',
        os_name: 'rhel',
        os_version: '9.4',
        architecture: 'x86_64',
        supported_database_versions: [],
      });
    }
    // After the nodes: a database's shards are placed on them.
    for (const spec of options.bdbs ?? []) this.addBdb(spec);
    this.#refreshNodeVersions();
  }

  /**
   * GET /v1/cluster's `allow_modules_upload`: undefined on an RS without the setting (before
   * 8.2), where every upload is taken. A cluster upgraded into 8.2 keeps the scenario's value:
   * the release notes do not say what an upgrade sets it to.
   */
  get allowModulesUpload(): boolean | undefined {
    return compareVersions(this.serverVersion, MODULES_UPLOAD_SETTING_SINCE) >= 0
      ? this.modulesUpload
      : undefined;
  }

  /** Form A (Basic header) from 7.8.2; before, the body carries username and password. */
  get acceptsHeaderAuthorize(): boolean {
    return compareVersions(this.serverVersion, BASIC_AUTHORIZE_SINCE) >= 0;
  }

  /** The key of the database version in bdb objects and upgrade bodies. */
  get versionKey(): 'engine_version' | 'redis_version' {
    return this.dialect === 'redis' ? 'redis_version' : 'engine_version';
  }

  get supportedDatabaseVersions(): string[] {
    return this.#supportedOverride ?? supportedDatabaseVersionsFor(this.serverVersion);
  }

  // ---- users and tokens -------------------------------------------------------------------

  /**
   * A role of the scenario's own, after the built-in ones (uids from 100). Role names are unique
   * (the scenario schema refuses a built-in role's name or a name twice): a known name is kept as it is.
   */
  addRole(name: string, management: string, databaseUids?: number[]): void {
    if (this.roles.some((role) => role.name === name)) return;
    const uid = Math.max(99, ...this.roles.map((role) => role.uid)) + 1;
    this.roles.push({
      uid,
      name,
      management,
      ...(databaseUids ? { resources: [{ type: 'db' as const, uids: databaseUids.map(String) }] } : {}),
    });
  }

  findUser(username: string): RestUser | undefined {
    return this.users.find((user) => user.username === username);
  }

  issueToken(user: RestUser, ttlSeconds: number): string {
    const iat = Math.floor(this.now() / 1000);
    const claims: JwtClaims = { iat, exp: iat + ttlSeconds, uid: user.uid };
    return signJwt(claims, this.#jwtSecret);
  }

  /** The user a token belongs to, or why it is refused. */
  checkToken(token: string): { user: RestUser } | { error: 'invalid' | 'expired' } {
    const result = verifyJwt(token, this.#jwtSecret, Math.floor(this.now() / 1000));
    if (!result.ok) return { error: result.reason === 'expired' ? 'expired' : 'invalid' };
    const user = this.users.find((candidate) => candidate.uid === result.claims.uid);
    return user ? { user } : { error: 'invalid' };
  }

  /** Invalidates every issued token, as an upgrade to 8.0.22+ does. */
  rotateJwtSecret(): void {
    this.#jwtSecret = randomBytes(32).toString('hex');
    this.events.emit('jwtSecretRotated');
  }

  // ---- software versions ------------------------------------------------------------------

  /** Called when a cluster upgrade finishes: nodes report the new version. */
  setServerVersion(version: string): void {
    const before = this.serverVersion;
    this.serverVersion = version;
    for (const node of this.nodes) node.software_version = version;
    this.#refreshNodeVersions();
    if (
      compareVersions(version, ROTATES_JWT_SECRET_SINCE) >= 0 &&
      compareVersions(before, version) < 0 &&
      before !== version
    ) {
      this.rotateJwtSecret();
    }
  }

  #refreshNodeVersions(): void {
    const supported = this.supportedDatabaseVersions.map((version) => ({
      db_type: 'redis' as const,
      version,
    }));
    for (const node of this.nodes) node.supported_database_versions = supported;
  }

  // ---- modules ----------------------------------------------------------------------------

  addModule(spec: ModuleSpec): RestModule {
    const existing = this.findModule(spec.name, spec.version);
    const platforms = Object.fromEntries(
      (spec.platforms ?? ['rhel9/x86_64']).map((key) => [
        key,
        { dependencies: {}, sha256: fakeSha(spec, key) },
      ]),
    );
    if (existing) {
      Object.assign(existing.platforms, platforms);
      return existing;
    }
    const module: RestModule = {
      uid: randomUUID().replace(/-/g, ''),
      module_name: spec.name,
      display_name: spec.displayName ?? displayNameOf(spec.name),
      semantic_version: spec.version,
      version: semanticToInt(spec.version),
      author: 'RedisLabs',
      capabilities: [],
      min_redis_version: '6.0',
      is_bundled: reportsBundled(spec.kind ?? 'custom'),
      platforms,
    };
    this.modules.push(module);
    return module;
  }

  findModuleByUid(uid: string): RestModule | undefined {
    return this.modules.find((m) => m.uid === uid);
  }

  findModule(name: string, version: string): RestModule | undefined {
    return this.modules.find((m) => m.module_name === name && m.semantic_version === version);
  }

  /**
   * POST /v2/modules: the module is installed when its action completes. The operator may
   * listen to `moduleUploaded` to lift a frozen upgrade.
   */
  uploadModule(spec: ModuleSpec & { platforms: string[] }): ModuleUploadedEvent {
    const existing = this.findModule(spec.name, spec.version);
    const preview: RestModule = existing
      ? { ...existing, platforms: { ...existing.platforms } }
      : {
          uid: randomUUID().replace(/-/g, ''),
          module_name: spec.name,
          display_name: displayNameOf(spec.name),
          semantic_version: spec.version,
          version: semanticToInt(spec.version),
          author: 'RedisLabs',
          capabilities: [],
          min_redis_version: '6.0',
          is_bundled: false,
          platforms: {},
        };
    for (const key of spec.platforms)
      preview.platforms[key] = { dependencies: {}, sha256: fakeSha(spec, key) };
    const action = this.startAction('module_upload', `module:${preview.uid}`, () => {
      const installed = this.addModule(spec);
      if (!existing) installed.uid = preview.uid;
    });
    const event: ModuleUploadedEvent = { module: preview, action };
    this.events.emit('moduleUploaded', event);
    return event;
  }

  onModuleUploaded(listener: (event: ModuleUploadedEvent) => void): () => void {
    this.events.on('moduleUploaded', listener);
    return () => this.events.off('moduleUploaded', listener);
  }

  // ---- databases --------------------------------------------------------------------------

  addBdb(spec: BdbSpec): RestBdb {
    const uid = spec.uid !== undefined && !this.#bdbByUid.has(spec.uid) ? spec.uid : this.#largestBdbUid + 1;
    const bdb: RestBdb = {
      uid,
      name: spec.name,
      type: 'redis',
      status: 'active',
      databaseVersion: spec.version,
      module_list: (spec.modules ?? []).map((m) => ({
        module_name: m.name,
        semantic_version: m.version,
        module_args: m.args ?? '',
        module_id:
          this.modules.find((x) => x.module_name === m.name && x.semantic_version === m.version)?.uid ?? '',
      })),
      crdt: spec.activeActive ?? false,
      port: 12000 + uid,
      shards_count: spec.shards ?? 1,
      replication: spec.replication ?? true,
      shard_list: [],
      shards_placement: 'sparse',
      namespace: spec.namespace ?? 'default',
    };
    bdb.shard_list = this.shards.place(
      bdb,
      this.nodes.map((node) => node.uid),
    );
    this.bdbs.push(bdb);
    this.#bdbByUid.set(uid, bdb);
    this.#largestBdbUid = Math.max(this.#largestBdbUid, uid);
    return bdb;
  }

  // ---- node restarts (the cluster's rolling upgrade) ---------------------------------------

  /** The node's pod stopped: its shards are unreachable until it is back. */
  nodeStopped(nodeUid: number): void {
    this.shards.nodeDown(nodeUid, this.now());
  }

  /** The node's new pod is ready: its shards are reachable again. */
  nodeStarted(nodeUid: number): void {
    this.shards.nodeUp(nodeUid, this.now());
  }

  /**
   * The version of the node answering the API. The sim serves the API from node 1 (ordinal 0,
   * the roll's last pod), so a request sees the old version until the roll's end.
   */
  get servingVersion(): string {
    return this.nodes[0]?.software_version ?? this.serverVersion;
  }

  findBdb(uid: number): RestBdb | undefined {
    return this.#bdbByUid.get(uid);
  }

  /** POST /v1/bdbs/<uid>/upgrade: the version changes when the action completes. */
  requestBdbUpgrade(bdb: RestBdb, targetVersion: string): BdbUpgradeRequestedEvent {
    bdb.status = 'active-change-pending';
    const action = this.startAction('bdb_upgrade', `bdb:${bdb.uid}`, () => {
      bdb.databaseVersion = targetVersion;
      bdb.status = 'active';
      delete bdb.action_uid;
    });
    bdb.action_uid = action.action_uid;
    const event: BdbUpgradeRequestedEvent = { bdb, targetVersion, action };
    this.events.emit('bdbUpgradeRequested', event);
    return event;
  }

  onBdbUpgradeRequested(listener: (event: BdbUpgradeRequestedEvent) => void): () => void {
    this.events.on('bdbUpgradeRequested', listener);
    return () => this.events.off('bdbUpgradeRequested', listener);
  }

  /** The bdb as the API serves it: the version under the dialect's key. */
  renderBdb(bdb: RestBdb): Record<string, unknown> {
    const { databaseVersion, namespace: _namespace, ...rest } = bdb;
    return { ...rest, [this.versionKey]: databaseVersion };
  }

  // ---- actions ----------------------------------------------------------------------------

  startAction(name: string, objectName: string, effect?: () => void): RestAction {
    const now = this.now();
    const action: RestAction = {
      action_uid: randomUUID(),
      name,
      status: 'pending',
      progress: 0,
      object_name: objectName,
      startedAt: now,
      completeAt: this.actionDelayMs === undefined ? undefined : now + this.actionDelayMs,
      effect,
    };
    this.actions.set(action.action_uid, action);
    return action;
  }

  completeAction(uid: string): RestAction | undefined {
    const action = this.actions.get(uid);
    if (!action || action.status === 'completed' || action.status === 'failed') return action;
    action.effect?.();
    action.status = 'completed';
    action.progress = 100;
    this.events.emit('actionCompleted', action);
    return action;
  }

  failAction(uid: string, message: string): RestAction | undefined {
    const action = this.actions.get(uid);
    if (!action || action.status === 'completed' || action.status === 'failed') return action;
    action.status = 'failed';
    action.error_message = message;
    this.events.emit('actionFailed', action);
    return action;
  }

  /**
   * Moves timed actions forward to "now". Called before every request, so nothing depends on
   * timers and a test clock drives everything.
   */
  settle(): void {
    const now = this.now();
    this.shards.settle(now);
    for (const action of this.actions.values()) {
      if (action.status === 'completed' || action.status === 'failed') continue;
      if (action.completeAt !== undefined && now >= action.completeAt) {
        this.completeAction(action.action_uid);
        continue;
      }
      action.status = 'active';
      if (action.completeAt !== undefined) {
        const span = Math.max(1, action.completeAt - action.startedAt);
        action.progress = Math.min(99, Math.round(((now - action.startedAt) / span) * 100));
      }
    }
  }

  renderAction(action: RestAction): Record<string, unknown> {
    const { startedAt: _s, completeAt: _c, effect: _e, ...served } = action;
    return served;
  }
}

/** Compares "7.8.2-6" style versions numerically, part by part; missing parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((part) => Number.parseInt(part, 10) || 0);
  const pb = b.split(/[.-]/).map((part) => Number.parseInt(part, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i += 1) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** Database versions a Redis Enterprise release can run (from the release notes' tables). */
export function supportedDatabaseVersionsFor(serverVersion: string): string[] {
  if (compareVersions(serverVersion, '8.0') >= 0) return ['7.2', '7.4', '8.0'];
  if (compareVersions(serverVersion, '7.22') >= 0) return ['6.2', '7.2', '7.4'];
  if (compareVersions(serverVersion, '7.8') >= 0) return ['6.2', '7.2', '7.4'];
  if (compareVersions(serverVersion, '7.4') >= 0) return ['6.0', '6.2', '7.2'];
  return ['6.0', '6.2'];
}

function semanticToInt(version: string): number {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  return major * 10000 + minor * 100 + patch;
}

function displayNameOf(name: string): string {
  const names: Record<string, string> = {
    search: 'RediSearch 2',
    ReJSON: 'RedisJSON',
    timeseries: 'RedisTimeSeries',
    bf: 'RedisBloom',
  };
  return names[name] ?? name;
}

function fakeSha(spec: ModuleSpec, platform: string): string {
  // Stable per module build, so repeated reads agree; not a real digest of anything.
  return Buffer.from(`${spec.name}-${spec.version}-${platform}`).toString('hex').padEnd(64, '0').slice(0, 64);
}

/** A creation date in the day before `now`, to the second, as the API writes it. */
function createdTimeBefore(now: number): string {
  const secondsBefore = 3600 + randomInt(86_400 - 3600);
  return new Date(now - secondsBefore * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
