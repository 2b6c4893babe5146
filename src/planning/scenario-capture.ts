/**
 * `ctl sim capture`: a live cluster, as read once into a Snapshot (plus the few facts of
 * src/planning/capture-reads.ts), turned into a scenario file of the simulator
 * (docs/simulator.md "Rehearse your own upgrade"), so `ctl sim up --scenario <file>` rehearses an upgrade on
 * a copy of it.
 *
 * Pure: no reads, no writes. The scenario format is written out here field by field rather than
 * imported from src/sim/ (the simulator is a world of its own, docs/architecture.md); the
 * end-to-end tests validate every capture against the simulator's own schema.
 *
 * What is never captured: passwords, tokens, the licence key, certificates and keys. The
 * scenario gets one admin user without a password, for which the simulator makes a new random
 * one (it writes it to its env file), and the licence only as its state (`Valid`, `Invalid`, `Expired`), which
 * is what the checks read; the simulator puts its own placeholder key where the licence was
 * (a Secret, or inline in the spec).
 */

import { allRules } from '../release/rules.js';
import { type Bdb, type Snapshot } from './snapshot.js';
import { MANAGEMENT_ROLES } from './api-roles.js';
import { compareText } from '../io/text-order.js';

/** Facts a live cluster shows that the planner's snapshot does not keep (capture-reads.ts). */
export interface CaptureExtras {
  /** The cluster StatefulSet's `spec.updateStrategy.type`. */
  statefulSetStrategy?: string | undefined;
  /** What the `redb-role` RoleBindings of the watched namespaces point at. */
  roleRefKind?: 'Role' | 'ClusterRole' | undefined;
  /** OpenShift: how `redis-enterprise-scc-v2` is bound to the cluster's service account. */
  sccBinding?: 'users' | 'rbac' | undefined;
  /** OpenShift: other namespaces whose cluster service account the same SCC admits. */
  sccSharedWith: string[];
}

export interface CaptureOptions {
  /** Replace the names of namespaces, the cluster, databases and the helm release. */
  anonymize: boolean;
  /** When the capture was made, for the description. */
  now: Date;
}

export interface Capture {
  /** The scenario, in the key order of the scenario file. */
  scenario: Record<string, unknown>;
  /** What could not be captured and was left at the simulator's default: for stderr. */
  notes: string[];
}

/** The scenario format's version patterns (the simulator's schema.ts says the same). */
const OPERATOR_VERSION = /^\d+\.\d+\.\d+-\d+$/;
const VERSION_TAG = /^\d+\.\d+\.\d+-\d+(\.\d+)?(\.[a-z0-9]+(-[a-z0-9]+)*)?$/;
const SERVER_VERSION = /^\d+\.\d+\.\d+-\d+$/;
const MODULE_VERSION = /^\d+\.\d+\.\d+$/;
const PLATFORM = /^[a-z][a-z0-9.]*\/[a-z0-9_]+$/;
const KUBE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const POLICY_WORDS = new Set(['major', 'latest']);
const LICENSE_STATES = new Set(['Valid', 'Invalid', 'Expired']);
/**
 * The role of a captured user whom GET /v1/users refused: of the reading roles that may not list
 * the users (cluster_member, cluster_viewer, db_member, db_viewer), the one that may do the most.
 */
const NOT_LISTING_ROLE = 'cluster_member';
/** The username of the captured scenario's one user: the original's is not copied. */
export const CAPTURED_USERNAME = 'admin@example.com';

/** Names of the cluster's own world, replaced consistently under --anonymize. */
class Names {
  readonly #map = new Map<string, string>();
  readonly #counters = new Map<string, number>();

  constructor(private readonly anonymize: boolean) {}

  /** The same real name of one kind always gives the same replacement. */
  of(kind: 'ns' | 'cluster' | 'db' | 'release', real: string): string {
    if (!this.anonymize) return real;
    const key = `${kind}/${real}`;
    const known = this.#map.get(key);
    if (known) return known;
    const next = (this.#counters.get(kind) ?? 0) + 1;
    this.#counters.set(kind, next);
    const replacement = `${kind === 'ns' ? 'namespace' : kind === 'db' ? 'database' : kind}-${next}`;
    this.#map.set(key, replacement);
    return replacement;
  }
}

export class CaptureError extends Error {}

export function captureScenario(snapshot: Snapshot, extras: CaptureExtras, options: CaptureOptions): Capture {
  const notes: string[] = [];
  const names = new Names(options.anonymize);
  const { cluster, operator } = snapshot;
  if (!cluster) throw new CaptureError('no cluster resource to capture');
  if (!operator?.version || !OPERATOR_VERSION.test(operator.version)) {
    throw new CaptureError(
      operator
        ? `the operator image ${operator.image} carries no operator version as its tag`
        : `no operator Deployment found in namespace ${snapshot.namespace}`,
    );
  }
  const namespace = names.of('ns', snapshot.namespace);
  // Under OLM the cluster's name decides whether OLM's SCC grant (service account `rec` only)
  // covers it (check olm-cluster-name): --anonymize keeps it, so the plan stays the same.
  const clusterName = snapshot.olm ? cluster.name : names.of('cluster', cluster.name);
  const api = snapshot.api;
  if (!api.reachable) {
    notes.push(
      `the management API could not be read (${api.error ?? 'no answer'}): database versions come from the database resources, module platforms are assumed to be rhel8/x86_64 and rhel9/x86_64, and the API version from the cluster's image tag`,
    );
  }

  const installedBy = snapshot.olm ? 'olm' : operator.helmRelease ? 'helm' : 'bundle';
  const otherNamespaces = snapshot.watchedNamespaces.filter((ns) => ns !== snapshot.namespace);
  const operatorPart: Record<string, unknown> = { version: operator.version, installedBy };
  if (installedBy === 'olm') {
    const subscription = snapshot.olm?.subscription;
    const olm: Record<string, unknown> = {};
    if (subscription?.channel) olm.channel = subscription.channel;
    if (subscription?.approval === 'Manual' || subscription?.approval === 'Automatic')
      olm.approval = subscription.approval;
    // The installed CSV as OLM names it (a certified bundle's carries a rebuild suffix, `.v7.4.6-2.0`).
    if (snapshot.olm?.csv) olm.startingCSV = snapshot.olm.csv;
    if (snapshot.olm && noEdgeFromInstalled(snapshot.olm)) olm.skips = 'none';
    if (!subscription)
      notes.push('the OLM Subscription could not be read: channel and approval are defaults');
    // The Deployment names the operator image by digest only (no tag before the @).
    if (/^[^@]*\/[^/:@]+@sha256:/.test(operator.image)) olm.operatorImageByDigest = true;
    operatorPart.olm = olm;
  }
  if (installedBy === 'helm' && operator.helmRelease) {
    operatorPart.helmRelease = names.of('release', operator.helmRelease.name);
    // Only the operator image the user pinned: other values may hold secrets and change no plan.
    const pinned = snapshot.helmRelease?.pinnedOperatorImage;
    if (pinned?.tag !== undefined || pinned?.repository !== undefined) {
      const image: Record<string, string> = {};
      if (pinned.repository !== undefined) image.repository = pinned.repository;
      if (pinned.tag !== undefined) image.tag = pinned.tag;
      operatorPart.helmValues = { operator: { image } };
    }
  }
  if (otherNamespaces.length > 0)
    operatorPart.watchNamespaces = otherNamespaces.map((ns) => names.of('ns', ns));
  if (extras.roleRefKind === 'ClusterRole') operatorPart.roleRefKind = 'ClusterRole';

  const webhook =
    snapshot.webhooks.find((w) => w.webhooks.some((h) => h.serviceNamespace === snapshot.namespace)) ??
    snapshot.webhooks[0];
  const admission: Record<string, unknown> = { enabled: webhook !== undefined };
  // OLM names its webhook itself (generateName), so an OLM-made one's name is not the scenario's.
  if (webhook && webhook.olmOwner === undefined)
    admission.webhookName = anonymizedWebhookName(webhook.name, snapshot.namespace, namespace);

  const scenario: Record<string, unknown> = {
    name: options.anonymize ? 'captured' : scenarioNameOf(snapshot.context),
    description: options.anonymize
      ? `Captured from a live cluster on ${day(options.now)} (names anonymized)`
      : `Captured from context ${snapshot.context}, cluster ${snapshot.namespace}/${cluster.name} on ${day(options.now)}`,
    dialect: snapshot.dialect,
    platform: snapshot.platform,
    namespace,
  };
  const kubernetesVersion = /^v?(\d+)\.(\d+)/.exec(snapshot.kubernetesVersion ?? '');
  if (kubernetesVersion && kubernetesVersion[1] === '1')
    scenario.kubernetesVersion = `1.${kubernetesVersion[2]}`;
  scenario.operator = operatorPart;
  scenario.admission = admission;
  scenario.cluster = clusterPart(snapshot, extras, clusterName, notes);
  if (snapshot.platform === 'openshift')
    scenario.openshift = openshiftPart(snapshot, extras, names, installedBy);
  const databases = databasesOf(snapshot, names, notes);
  limitRoleDatabases(scenario.cluster as Record<string, unknown>, databases, notes);
  scenario.modules = modulesOf(snapshot, databases, notes);
  scenario.databases = databases;
  // RS 8.2 and later report the setting in GET /v1/cluster (ApiSnapshot.modulesUploadAllowed);
  // the scenario's default is `enabled`, and an older RS has no such setting.
  if (api.modulesUploadAllowed === false) scenario.api = { modulesUpload: 'disabled' };
  return { scenario, notes };
}

function clusterPart(
  snapshot: Snapshot,
  extras: CaptureExtras,
  name: string,
  notes: string[],
): Record<string, unknown> {
  const cluster = snapshot.cluster!;
  const versionTag = cluster.image.versionTag ?? imageTag(snapshot.pods[0]?.image);
  if (!versionTag || !VERSION_TAG.test(versionTag))
    throw new CaptureError(
      `the cluster's image tag ${versionTag ?? '(none)'} is not a Redis Enterprise version such as 7.4.6-22`,
    );
  const part: Record<string, unknown> = {
    name,
    nodes: cluster.nodes ?? (snapshot.api.nodes.length || snapshot.pods.length || 3),
    versionTag,
  };
  if (cluster.image.repository) part.repository = cluster.image.repository;
  part.autoUpgrade = cluster.autoUpgrade;
  part.upgradePolicy =
    cluster.upgradePolicy && POLICY_WORDS.has(cluster.upgradePolicy) ? cluster.upgradePolicy : null;
  part.digestHash = cluster.image.digestHash ?? null;
  const imageSpecs: Record<string, unknown> = {};
  const keys: Record<string, string> = {
    redisEnterpriseServicesRiggerImageSpec: 'rigger',
    bootstrapperImageSpec: 'bootstrapper',
    'usageMeter.callHomeClient.imageSpec': 'callHomeClient',
  };
  for (const [field, spec] of Object.entries(cluster.otherImages)) {
    const key = keys[field];
    if (!key) continue;
    const entry: Record<string, string> = {};
    if (spec.repository) entry.repository = spec.repository;
    if (spec.versionTag) entry.versionTag = spec.versionTag;
    if (spec.digestHash) entry.digestHash = spec.digestHash;
    imageSpecs[key] = entry;
  }
  if (Object.keys(imageSpecs).length > 0) part.imageSpecs = imageSpecs;
  // Where the licence is, and its state: never the key itself.
  part.licenseIn = cluster.licenseInline ? 'spec' : 'secret';
  const licenseState = cluster.license?.state;
  if (licenseState && LICENSE_STATES.has(licenseState)) part.license = licenseState;
  else {
    part.license = 'Valid';
    notes.push(
      `licence state ${licenseState ?? '(not shown)'} has no scenario equivalent: the capture says Valid`,
    );
  }
  if (extras.statefulSetStrategy === 'OnDelete') part.statefulSetStrategy = 'OnDelete';
  if (cluster.allowAutoAdjustment) part.allowAutoAdjustment = true;
  const serverVersion = snapshot.api.nodes.map((node) => node.software_version).find(Boolean);
  if (serverVersion && SERVER_VERSION.test(serverVersion)) part.apiVersion = serverVersion;
  // No password: the simulator makes a random one and writes it to its env file.
  Object.assign(part, capturedUser(snapshot.api.user, notes));
  return part;
}

/**
 * The user ctl signed in as, never its name, such that the rehearsal's management API answers
 * the plan's reads of it (src/api/own-role.ts) as the real one did, and its api-permissions
 * check judges the same:
 * - a role read: `role`, or the roles by name with `cluster.roles`: a built-in role (BUILT_IN_ROLES)
 *   only by its name, since role names are unique and the simulator refuses a second role of a
 *   built-in role's name; a role limited to some databases (objects/role.md `resources`, RS 8.2
 *   and later) with those databases, named once the databases are captured (limitRoleDatabases);
 * - GET /v1/users refused (403, `not-admin`): the user lacks view_all_users_info, which only
 *   admin and user_manager have, and it could read the cluster, so it is no `none`
 *   (rest-api/permissions.md). Which of the four others it is, the API does not tell: the
 *   capture gives it NOT_LISTING_ROLE, so the rehearsal's GET /v1/users answers 403 too;
 * - listed users without it (`unlisted`: an LDAP user, a member of a mapped group): it may view
 *   every user, so it is admin or user_manager: `listed: false` (the simulator's user who is
 *   no user object) with role admin, so the rehearsal's list leaves it out too;
 * - anything else (an API that answered oddly): admin, with a note.
 */
function capturedUser(user: Snapshot['api']['user'], notes: string[]): Record<string, unknown> {
  const admin = { users: [{ username: CAPTURED_USERNAME, role: 'admin' }] };
  const know = 'set cluster.users[0].role to its real role if you know it';
  if (user?.kind === 'not-admin') {
    notes.push(
      `the API user is no admin (GET /v1/users answered 403) and the API does not tell its role: the capture gives it ${NOT_LISTING_ROLE}, which may not list the users either, so the rehearsal's plan judges it the same; ${know}`,
    );
    return { users: [{ username: CAPTURED_USERNAME, role: NOT_LISTING_ROLE }] };
  }
  if (user?.kind === 'unknown' && user.unlisted) {
    notes.push(
      `the API user is not among the users GET /v1/users lists (an LDAP or single sign-on user?): the capture makes it a user the list leaves out (listed: false) with role admin, since it may list the users (admin or user_manager); ${know}`,
    );
    return { users: [{ username: CAPTURED_USERNAME, role: 'admin', listed: false }] };
  }
  if (user?.kind !== 'read') {
    if (user)
      notes.push(`the API user's role could not be read (${user.why}): the capture signs in as an admin`);
    return admin;
  }
  const known = user.roles.filter((role) => MANAGEMENT_ROLES.includes(role.management));
  if (known.length !== user.roles.length || known.length === 0) return admin;
  const [only] = user.roles;
  if (user.roles.length === 1 && only && !only.name && !only.databases)
    return { users: [{ username: CAPTURED_USERNAME, role: only.management }] };
  const named = user.roles.map((role) => ({ ...role, name: role.name ?? role.management }));
  const own = named.filter((role) => BUILT_IN_ROLES[role.name] === undefined);
  for (const role of named) {
    const builtIn = BUILT_IN_ROLES[role.name];
    if (builtIn !== undefined && (builtIn !== role.management || role.databases))
      notes.push(
        `the API user's role ${role.name} (management ${role.management}${role.databases ? ', limited to some databases' : ''}) is captured as the built-in role of that name (management ${builtIn}, every database)`,
      );
  }
  return {
    users: [{ username: CAPTURED_USERNAME, role: 'none', roles: named.map((role) => role.name) }],
    ...(own.length > 0
      ? {
          roles: own.map((role) => ({
            name: role.name,
            management: role.management,
            ...(role.databases ? { [DATABASE_UIDS]: role.databases } : {}),
          })),
        }
      : {}),
  };
}

/**
 * The roles GET /v1/roles lists on every cluster, by name (redis/docs content/operate/rs/
 * references/rest-api/requests/roles/_index.md, "Get all roles" example: Admin, Cluster Member,
 * Cluster Viewer, DB Member, DB Viewer, None; User Manager with that management role from RS
 * 7.8.2, rs-7-8-releases/rs-7-8-2-34.md), each with its management role.
 */
const BUILT_IN_ROLES: Readonly<Record<string, string>> = {
  Admin: 'admin',
  'Cluster Member': 'cluster_member',
  'Cluster Viewer': 'cluster_viewer',
  'DB Member': 'db_member',
  'DB Viewer': 'db_viewer',
  None: 'none',
  'User Manager': 'user_manager',
};

/** Where capturedUser leaves a limited role's database uids until the databases are captured. */
const DATABASE_UIDS = Symbol('database uids');

/**
 * A role limited to some databases (objects/role.md `resources`: bdb uids) gets those databases
 * by `namespace/name`, as the scenario's `cluster.roles[].databases` takes them, so the
 * rehearsal's API limits it the same. A uid the capture holds no database for (one without a
 * database resource, or one the API user may not list) cannot be named: the note says so. If
 * none can, the role is left unlimited, which the note says too.
 */
function limitRoleDatabases(
  clusterPart: Record<string, unknown>,
  databases: CapturedDatabase[],
  notes: string[],
): void {
  const roles = clusterPart.roles as (Record<string, unknown> & { [DATABASE_UIDS]?: number[] })[] | undefined;
  for (const role of roles ?? []) {
    const uids = role[DATABASE_UIDS];
    delete role[DATABASE_UIDS];
    if (!uids) continue;
    const names: string[] = [];
    const unnamed: number[] = [];
    for (const uid of uids) {
      const database = databases.find((candidate) => candidate.uid === uid);
      if (database) names.push(`${database.namespace}/${database.name}`);
      else unnamed.push(uid);
    }
    if (names.length > 0) role.databases = names;
    if (unnamed.length > 0)
      notes.push(
        `the API user's role ${String(role.name)} is limited to database uid ${unnamed.join(', ')}, which the capture holds no database for: ` +
          (names.length > 0
            ? 'the captured role is limited to the others only'
            : 'the captured role is not limited to any database, so it may do more in the rehearsal than on the cluster'),
      );
  }
}

function openshiftPart(
  snapshot: Snapshot,
  extras: CaptureExtras,
  names: Names,
  installedBy: string,
): Record<string, unknown> {
  const part: Record<string, unknown> = { sccBinding: extras.sccBinding ?? 'users' };
  part.sccOwner = snapshot.scc?.helmOwned && installedBy === 'helm' ? 'helm' : 'bundle';
  if (extras.sccSharedWith.length > 0) part.sharedWith = extras.sccSharedWith.map((ns) => names.of('ns', ns));
  return part;
}

interface CapturedDatabase {
  name: string;
  namespace: string;
  version: string;
  uid?: number;
  modules: { name: string; version: string }[];
  activeActive?: boolean;
  upgradePolicy?: string;
}

function databasesOf(snapshot: Snapshot, names: Names, notes: string[]): CapturedDatabase[] {
  const cluster = snapshot.cluster!;
  const bdbs = snapshot.api.bdbs;
  const captured: CapturedDatabase[] = [];
  const add = (
    input: {
      name: string;
      namespace: string;
      versionSpec?: string | undefined;
      statusVersion?: string | undefined;
    },
    bdb: Bdb | undefined,
    specModules: { name: string; version?: string | undefined }[],
    activeActive: boolean,
  ): void => {
    const version =
      majorMinor(bdb?.redis_version ?? bdb?.engine_version) ??
      majorMinor(input.statusVersion) ??
      majorMinor(input.versionSpec);
    if (!version) {
      notes.push(`database ${input.namespace}/${input.name}: no version could be read, so it is left out`);
      return;
    }
    const modules = (
      bdb?.module_list?.map((m) => ({ name: m.module_name, version: m.semantic_version })) ?? specModules
    ).flatMap((m) =>
      m.name && m.version && MODULE_VERSION.test(m.version) ? [{ name: m.name, version: m.version }] : [],
    );
    const database: CapturedDatabase = {
      name: names.of('db', input.name),
      namespace: names.of('ns', input.namespace),
      version,
      ...(bdb ? { uid: bdb.uid } : {}),
      modules,
    };
    if (activeActive) database.activeActive = true;
    if (input.versionSpec && POLICY_WORDS.has(input.versionSpec)) database.upgradePolicy = input.versionSpec;
    captured.push(database);
  };
  for (const database of snapshot.databases) {
    const bdb =
      bdbs.find((b) => database.databaseUid !== undefined && String(b.uid) === database.databaseUid) ??
      bdbs.find((b) => b.name === database.name && !b.crdt);
    add(database, bdb, database.modules, false);
  }
  for (const database of snapshot.activeActiveDatabases) {
    if (!database.participatingClusters.some((p) => p.name === cluster.name)) continue;
    add(
      database,
      bdbs.find((b) => b.name === database.name && b.crdt === true),
      [],
      true,
    );
  }
  // In the management API's order (its uids): the order the cluster lists its databases in.
  const byName = (a: CapturedDatabase, b: CapturedDatabase) =>
    compareText(`${a.namespace}/${a.name}`, `${b.namespace}/${b.name}`);
  return captured.sort((a, b) =>
    a.uid !== undefined && b.uid !== undefined
      ? a.uid - b.uid
      : a.uid !== undefined
        ? -1
        : b.uid !== undefined
          ? 1
          : byName(a, b),
  );
}

/**
 * The installed modules: the API's custom ones, the bundled ones a database uses (a real cluster
 * lists every bundled build of every feature set; the unused ones tell a rehearsal nothing), and
 * any a database uses that the API did not list. Each with its kind where the API's `is_bundled`
 * says (rest-api/objects/module.md: "Whether module came bundled with a version of Redis
 * Enterprise"): `custom` for an upload, `bundled`, or `deprecated` for a bundled one the
 * catalog's rules name as deprecated (RedisGraph, RedisGears 2).
 */
function modulesOf(
  snapshot: Snapshot,
  databases: CapturedDatabase[],
  notes: string[],
): Record<string, unknown>[] {
  const modules: { name: string; version: string; platforms: string[]; kind?: string }[] = [];
  const used = (name: string, version: string) =>
    databases.some((database) => database.modules.some((m) => m.name === name && m.version === version));
  const deprecated = new Set(deprecatedModuleNames().map((name) => name.toLowerCase()));
  for (const module of snapshot.api.modules) {
    const version = module.semantic_version;
    if (module.is_bundled === true && !(version && used(module.module_name, version))) continue;
    const platforms = Object.keys(module.platforms ?? {}).filter((key) => PLATFORM.test(key));
    if (!version || !MODULE_VERSION.test(version) || platforms.length === 0) continue;
    if (modules.some((m) => m.name === module.module_name && m.version === version)) continue;
    const kind =
      module.is_bundled === false
        ? 'custom'
        : module.is_bundled === true
          ? deprecated.has(module.module_name.toLowerCase())
            ? 'deprecated'
            : 'bundled'
          : undefined;
    modules.push({ name: module.module_name, version, platforms, ...(kind ? { kind } : {}) });
  }
  for (const database of databases) {
    for (const used of database.modules) {
      if (modules.some((m) => m.name === used.name && m.version === used.version)) continue;
      // Listed by the API without usable platforms, or the API could not be read: the database
      // still needs it in the scenario.
      const bundled = snapshot.api.modules.some(
        (m) => m.module_name === used.name && m.semantic_version === used.version,
      );
      if (!bundled)
        notes.push(
          `module ${used.name} ${used.version}: platforms unknown, assumed rhel8/x86_64 and rhel9/x86_64`,
        );
      modules.push({ name: used.name, version: used.version, platforms: ['rhel8/x86_64', 'rhel9/x86_64'] });
    }
  }
  return modules;
}

/** `7.2.4` or `7.2` -> `7.2`; `major`, `latest` or nothing -> undefined. */
function majorMinor(version: string | undefined): string | undefined {
  return /^(\d+\.\d+)(\.|$)/.exec(version ?? '')?.[1];
}

function imageTag(image: string | undefined): string | undefined {
  const match = /:([^:/@]+)(@|$)/.exec(image ?? '');
  return match?.[1];
}

/** The helm chart names its webhook after the namespace (`redis-enterprise-admission-<ns>`). */
/**
 * OLM offers nothing (AtLatestKnown, no InstallPlan) although the subscribed channel holds a
 * newer CSV than the installed one: no CSV of the channel lists it in spec.skips, which the
 * simulator plays with `operator.olm.skips: none` (the channel's entries are newest first).
 */
function noEdgeFromInstalled(olm: NonNullable<Snapshot['olm']>): boolean {
  const sub = olm.subscription;
  const channel = olm.channels?.find((c) => c.name === sub?.channel);
  if (
    !sub ||
    !channel ||
    sub.state !== 'AtLatestKnown' ||
    olm.installPlans.some((p) => p.phase !== 'Complete')
  )
    return false;
  const at = channel.entries.indexOf(olm.csv);
  return at > 0;
}

function anonymizedWebhookName(name: string, realNamespace: string, namespace: string): string {
  return name.endsWith(`-${realNamespace}`) ? `${name.slice(0, -realNamespace.length)}${namespace}` : name;
}

/**
 * The scenario's name from the kube context, as a Kubernetes name. The simulator names its
 * context `ctl-sim-<scenario>` (src/sim/cluster.ts), so a capture of a simulated cluster drops
 * that prefix: kept, the copy's context was `ctl-sim-ctl-sim-<scenario>`, one more each time.
 */
function scenarioNameOf(context: string): string {
  const name = context
    .toLowerCase()
    .replace(/^(ctl-sim-)+(?=.)/, '')
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return KUBE_NAME.test(name) ? name : 'captured';
}

function day(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** The modules the catalog's rules name as deprecated (their `deprecated-modules` triggers). */
function deprecatedModuleNames(): string[] {
  return allRules().flatMap((rule) =>
    rule.triggers.flatMap((trigger) => (trigger.kind === 'deprecated-modules' ? trigger.modules : [])),
  );
}
