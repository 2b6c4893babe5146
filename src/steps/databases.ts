/**
 * Step `databases`: upgrade each selected database (redis-facts.md §3 "REDB and REAADB") by
 * setting the dialect's version field (`spec.redisVersion` / `spec.engineVersion`) of its
 * database resource, then waiting, with a watch, until the resource is `active` at the new
 * version. One database at a time by default, `--max-parallel` at once.
 *
 * Which databases and which versions come from the plan's `databases` step (the planner already
 * applied `--databases`, `--db-version` and each database's own policy); everything else is
 * re-read live before acting: a database that already runs the target is skipped (so a resumed
 * run writes nothing twice), and a cluster whose upgrade policy is `major` refuses a minor
 * version, so that database is skipped with a warning rather than left Invalid.
 *
 * Active-Active databases: from operator 8.0.2-2 the version is set in
 * `spec.globalConfigurations` of the REAADB on one participating cluster and propagates. Before
 * that, ctl lists the manual procedure (rladmin / crdb-cli) as warnings and does not fail.
 */

import { oneLine } from '../io/safe-text.js';
import type { ApiBdb } from '../api/types.js';
import { findTlsFailure } from '../api/tls-errors.js';
import { bdbVersion } from '../api/types.js';
import { type DialectFields, dialectFields } from '../release/dialect.js';
import { OperationError, TimeoutError } from '../errors.js';
import { ACTIVE_ACTIVE_RESOURCE, DATABASE_RESOURCE, type KubeObject } from '../kube/reads.js';
import { formatDuration, waitForObject } from '../kube/watch.js';
import { readObject } from '../kube/write.js';
import { ACTIVE_ACTIVE_UPGRADE_FROM, supportsActiveActiveUpgrade } from '../release/catalog.js';
import { curlApi, kubectl, kubectlMergePatch, patchAt } from '../planning/equivalent-commands.js';
import { type PlanAction, PlanContext, PlanDatabase, StepPlan, action } from '../planning/plan.js';
import { compareDatabaseVersions, databaseVersionOf } from '../release/versions.js';
import { UpgradeDeps, UpgradeStep } from './deps.js';
import { FanOutTally } from './fan-out.js';
import type { StepContext, StepResult } from '../run/step.js';
import { getPath, str } from '../json-read.js';
import { type ClusterSnapshot } from '../planning/snapshot.js';
import { type DatabaseTarget } from '../planning/resolve.js';
import {
  type FeatureSetRecord,
  featureSetCommands,
  guidOf,
  hasModules,
  type HeldBackRecord,
  heldBackAction,
  manualCommands,
  reportHeldBack,
} from './databases-active-active.js';
import { REDIS_API_GROUP, type StepPermission } from '../planning/permissions.js';

/** The Kubernetes permissions this step needs; the plan's `permissions` check reviews them. */
const PERMISSIONS: readonly StepPermission[] = [
  {
    group: REDIS_API_GROUP,
    resource: 'redisenterprisedatabases',
    verbs: ['list', 'patch'],
    scope: 'watched-namespaces',
    when: 'always',
    why: 'read the databases and set their version',
  },
  {
    group: REDIS_API_GROUP,
    resource: 'redisenterpriseactiveactivedatabases',
    verbs: ['list', 'patch'],
    scope: 'watched-namespaces',
    when: 'always',
    why: 'read the Active-Active databases and set their version',
  },
  {
    group: REDIS_API_GROUP,
    resource: 'redisenterpriseremoteclusters',
    verbs: ['list'],
    scope: 'namespace',
    when: 'always',
    why: "read the Active-Active databases' participating clusters (their API and Secret)",
  },
];

export const DATABASE_KIND = 'RedisEnterpriseDatabase';
export const ACTIVE_ACTIVE_KIND = 'RedisEnterpriseActiveActiveDatabase';

export interface DatabasesStepOptions {
  wait?: typeof waitForObject;
}

export function createDatabasesStep(options: DatabasesStepOptions = {}): UpgradeStep<'databases'> {
  const wait = options.wait ?? waitForObject;
  return {
    id: 'databases',
    title: 'Upgrade the databases',
    permissions: PERMISSIONS,
    plan: planDatabases,
    run: (ctx) => upgradeDatabases(ctx, wait),
  };
}

export const databasesStep = createDatabasesStep();

/** One planned database change. */
export interface DatabaseWork {
  kind: 'database' | 'active-active' | 'manual' | 'held-back';
  name: string;
  namespace: string;
  /** The version to write (`7.4`). */
  version: string;
  /** held-back: why, and the command that upgrades it later (the action's command). */
  heldBack?: { reason: string; command: string };
}

export interface DatabasesOutcome {
  upgraded: string[];
  skipped: { name: string; reason: string }[];
  manual: string[];
  /** Active-Active databases a participating cluster holds back (the run still exits 0). */
  heldBack?: HeldBackRecord[];
  /** Active-Active databases ctl raised: the feature-set (and module-list) update, once. */
  featureSet?: FeatureSetRecord[];
  [key: string]: unknown;
}

async function upgradeDatabases(
  ctx: StepContext<UpgradeDeps>,
  wait: typeof waitForObject,
): Promise<StepResult> {
  const { plan, snapshot, settings } = ctx.deps;
  const planned = plan.steps.find((s) => s.id === 'databases');
  if (!planned || planned.skip !== null) return { skipped: planned?.skip ?? 'not planned' };
  const fields = dialectFields(snapshot.dialect);
  const work = planned.actions
    .map((action) => workOf(action, fields, plan.target.databaseVersion))
    .filter((w): w is DatabaseWork => w !== undefined);
  if (work.length === 0) return { skipped: 'the plan names no database to upgrade' };

  const outcome: DatabasesOutcome = { upgraded: [], skipped: [], manual: [] };
  const previous = previousNames(ctx);
  const intents = new IntentLog(ctx, previous);
  const cluster = await readLiveCluster(ctx);

  const manual = work.filter((w) => w.kind === 'manual');
  if (manual.length > 0) await reportManual(ctx, manual, outcome);
  const held = work.filter((w) => w.kind === 'held-back');
  if (held.length > 0)
    outcome.heldBack = reportHeldBack(
      ctx,
      held.map((w) => ({ ...w, reason: w.heldBack?.reason ?? '', command: w.heldBack?.command ?? '' })),
    );

  const automatic = work.filter((w) => w.kind !== 'manual' && w.kind !== 'held-back');
  // Every progress event carries the whole fan-out's counts: a terminal shows those, not a line
  // per database (src/io/progress.ts).
  const tally = new FanOutTally(automatic.length, () => ctx.deps.clock.now());
  const tracked: StepContext<UpgradeDeps> = {
    ...ctx,
    progress: (message, data) => ctx.progress(message, { ...data, fanOut: tally.snapshot() }),
  };
  await runPool(automatic, Math.max(1, settings.maxParallel), ctx.signal, async (item, signal) => {
    const label = `${item.namespace}/${item.name}`;
    tally.start(label);
    let result: OneResult;
    try {
      result = await upgradeOne(tracked, wait, item, fields, cluster, intents, signal);
    } catch (error) {
      tally.finish(label, 'failed');
      throw error;
    }
    tally.finish(label, 'done');
    if (result.featureSet) (outcome.featureSet ??= []).push(result.featureSet);
    if (result.upgraded) outcome.upgraded.push(label);
    else if (result.reason && previous.has(label) && result.reason.startsWith('already runs'))
      outcome.upgraded.push(label);
    else outcome.skipped.push({ name: label, reason: result.reason ?? 'unchanged' });
  });
  if (ctx.dryRun) outcome.dryRun = true;
  return { outcome };
}

// ---- the plan's actions ------------------------------------------------------------------------

/**
 * The database an action of the plan changes: its `database` field; plans saved before that
 * field existed name it only in their command, which is parsed instead.
 */
export function workOf(
  action: PlanAction,
  fields: DialectFields,
  planVersion: string | null,
): DatabaseWork | undefined {
  const database = action.database;
  if (database === undefined) return parseAction(action, fields, planVersion);
  if (
    !isRecord(database) ||
    (database.kind !== 'redb' && database.kind !== 'reaadb') ||
    typeof database.name !== 'string' ||
    database.name === '' ||
    typeof database.namespace !== 'string' ||
    database.namespace === '' ||
    typeof database.version !== 'string' ||
    database.version === ''
  ) {
    throw new OperationError(`the plan's database action "${action.description}" is malformed`, {
      hint: 'Make a new plan (ctl upgrade plan --out <file>), or run without --plan.',
    });
  }
  if (database.kind === 'reaadb' && typeof database.heldBack === 'string') {
    return {
      kind: 'held-back',
      name: database.name,
      namespace: database.namespace,
      version: database.version,
      heldBack: { reason: database.heldBack, command: action.command },
    };
  }
  const kind: DatabaseWork['kind'] =
    database.manual === true ? 'manual' : database.kind === 'reaadb' ? 'active-active' : 'database';
  return { kind, name: database.name, namespace: database.namespace, version: database.version };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Splits a POSIX shell command line into words (single and double quotes, backslashes). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else current += char;
      continue;
    }
    if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === '\\' && i + 1 < line.length) current += line[++i];
      else current += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === '\\' && i + 1 < line.length) {
      current += line[++i];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += char;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

/**
 * For plans saved before actions carried `database`: the planner wrote each database action
 * only as the kubectl command a person would run,
 * `kubectl patch redb|reaadb <name> -n <ns> --type merge -p '<json>'`, or for Active-Active
 * databases that need the manual procedure `kubectl exec -it <rec>-0 -n <ns> -- rladmin upgrade db <name>`.
 */
export function parseAction(
  action: PlanAction,
  fields: DialectFields,
  planVersion: string | null,
): DatabaseWork | undefined {
  const words = shellWords(action.command);
  if (words[0] !== 'kubectl') return undefined;
  const namespace = words[words.indexOf('-n') + 1];
  if (words[1] === 'patch' && (words[2] === 'redb' || words[2] === 'reaadb')) {
    const name = words[3];
    const body = words[words.indexOf('-p') + 1];
    if (!name || !namespace || !body) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return undefined;
    }
    const activeActive = words[2] === 'reaadb';
    const version = str(
      getPath(parsed, activeActive ? fields.activeActiveVersionPath : fields.databaseVersionPath),
    );
    if (!version) return undefined;
    return { kind: activeActive ? 'active-active' : 'database', name, namespace, version };
  }
  if (words[1] === 'exec' && words.includes('rladmin')) {
    const db = words.indexOf('db', words.indexOf('rladmin'));
    const name = db >= 0 ? words[db + 1] : undefined;
    const given = words.indexOf('redis_version', db);
    const version =
      (given >= 0 ? words[given + 1] : undefined) ??
      planVersion ??
      /\bto (\d+\.\d+)\b/.exec(action.description)?.[1] ??
      'the target version';
    if (!name || !namespace) return undefined;
    return { kind: 'manual', name, namespace, version };
  }
  return undefined;
}

// ---- live facts ----------------------------------------------------------------------------------

interface LiveCluster {
  name: string;
  namespace: string;
  upgradePolicy: string | undefined;
  /** `status.bundledDatabaseVersions` as major.minor -> major flag. */
  majors: Map<string, boolean>;
}

async function readLiveCluster(ctx: StepContext<UpgradeDeps>): Promise<LiveCluster> {
  const { snapshot, kube } = ctx.deps;
  const known = snapshot.cluster;
  if (!known) throw new OperationError('no cluster resource was found', { hint: 'Pass --cluster <name>.' });
  const fields = dialectFields(snapshot.dialect);
  const rec = await readObject(kube, {
    apiVersion: known.apiVersion,
    kind: 'RedisEnterpriseCluster',
    name: known.name,
    namespace: known.namespace,
  });
  const bundled = rec
    ? ((getPath(rec, ['status', 'bundledDatabaseVersions']) as
        { version?: string; major?: boolean }[] | undefined) ?? [])
    : known.bundledDatabaseVersions;
  const majors = new Map<string, boolean>();
  for (const entry of Array.isArray(bundled) ? bundled : []) {
    const parsed = entry.version ? databaseVersionOf(entry.version) : undefined;
    if (parsed) majors.set(`${parsed.major}.${parsed.minor}`, entry.major === true);
  }
  return {
    name: known.name,
    namespace: known.namespace,
    upgradePolicy: rec ? str(getPath(rec, fields.upgradePolicyPath)) : known.upgradePolicy,
    majors,
  };
}

/** Databases an earlier attempt of this step already patched (from its intent record). */
function previousNames(ctx: StepContext<UpgradeDeps>): Set<string> {
  const patched = ctx.previous?.intent?.patched;
  return new Set(Array.isArray(patched) ? patched.filter((n): n is string => typeof n === 'string') : []);
}

/**
 * The step's intent record (which databases it has patched), written before each patch so a
 * resumed run knows them. Databases are upgraded in parallel: writes never overlap, and the
 * records that arrive while one is being written share the next write (group commit), so 50
 * databases starting together cost two writes of the state, not 50 in a row. Each record
 * resolves once a write that contains it is done.
 */
class IntentLog {
  readonly #ctx: StepContext<UpgradeDeps>;
  /** In the order patched (a Set keeps insertion order). */
  readonly #patched: Set<string>;
  #current: Record<string, unknown> = {};
  /** Feature-set updates announced, by database: kept in every write, so a resumed run sees them. */
  readonly #featureSets: Record<string, FeatureSetRecord> = {};
  /** The latest write, started or waiting for the one before it. */
  #last: Promise<void> = Promise.resolve();
  /** The write that has not started yet: new records join it. */
  #next: Promise<void> | undefined;

  constructor(ctx: StepContext<UpgradeDeps>, previous: Set<string>) {
    this.#ctx = ctx;
    this.#patched = new Set(previous);
  }

  /** Records a feature-set update before it is announced (like a patch, before it is made). */
  recordFeatureSet(record: FeatureSetRecord): Promise<void> {
    this.#featureSets[record.database] = record;
    return this.record(record.database, { featureSet: record.commands });
  }

  record(label: string, detail: Record<string, unknown>): Promise<void> {
    this.#patched.add(label);
    this.#current = { database: label, ...detail };
    if (this.#next) return this.#next;
    const next = this.#last
      .catch(() => undefined) // the earlier write's failure is its own records' to report
      .then(() => {
        this.#next = undefined; // from here on, a record needs the write after this one
        const featureSet = Object.values(this.#featureSets);
        return this.#ctx.recordIntent({
          patched: [...this.#patched],
          current: this.#current,
          ...(featureSet.length > 0 ? { featureSet } : {}),
        });
      });
    this.#next = next;
    this.#last = next;
    return next;
  }
}

// ---- one database ------------------------------------------------------------------------------

interface OneResult {
  upgraded: boolean;
  reason?: string;
  featureSet?: FeatureSetRecord;
}

function resourcePath(kind: DatabaseWork['kind'], namespace: string): string {
  const type = kind === 'active-active' ? ACTIVE_ACTIVE_RESOURCE : DATABASE_RESOURCE;
  return `/apis/${type.group}/${type.version}/namespaces/${namespace}/${type.plural}`;
}

function refOf(item: DatabaseWork): { apiVersion: string; kind: string; name: string; namespace: string } {
  const type = item.kind === 'active-active' ? ACTIVE_ACTIVE_RESOURCE : DATABASE_RESOURCE;
  return {
    apiVersion: `${type.group}/${type.version}`,
    kind: item.kind === 'active-active' ? ACTIVE_ACTIVE_KIND : DATABASE_KIND,
    name: item.name,
    namespace: item.namespace,
  };
}

function atLeast(version: string | undefined, wanted: string): boolean {
  const a = version ? databaseVersionOf(version) : undefined;
  const b = databaseVersionOf(wanted);
  return Boolean(a && b && compareDatabaseVersions(a, b) >= 0);
}

function majorMinor(version: string): string | undefined {
  const parsed = databaseVersionOf(version);
  return parsed ? `${parsed.major}.${parsed.minor}` : undefined;
}

async function upgradeOne(
  ctx: StepContext<UpgradeDeps>,
  wait: typeof waitForObject,
  item: DatabaseWork,
  fields: DialectFields,
  cluster: LiveCluster,
  intents: IntentLog,
  signal: AbortSignal,
): Promise<OneResult> {
  const { kube, settings } = ctx.deps;
  const label = `${item.namespace}/${item.name}`;
  const ref = refOf(item);
  const short = item.kind === 'active-active' ? 'reaadb' : 'redb';
  const versionPath =
    item.kind === 'active-active' ? fields.activeActiveVersionPath : fields.databaseVersionPath;
  const live = await readObject(kube, ref);
  if (!live) {
    ctx.warn(`${short}/${item.name} -n ${item.namespace} no longer exists: skipped`);
    return { upgraded: false, reason: 'the database resource no longer exists' };
  }

  const running = await runningVersion(ctx, item, live);
  if (atLeast(running, item.version)) {
    return { upgraded: false, reason: `already runs ${running}` };
  }

  // The cluster's `major` policy refuses minor versions (redis-facts.md §3): skip, do not fail.
  if (cluster.upgradePolicy === 'major') {
    const key = majorMinor(item.version);
    const major = key ? cluster.majors.get(key) : undefined;
    if (major !== true) {
      const reason =
        major === false
          ? `${item.version} is a minor version and the cluster's upgrade policy is major`
          : `the cluster's upgrade policy is major and ${item.version} is not listed as a major version`;
      ctx.warn(
        `${label}: skipped: ${reason}. To upgrade it, set ${fields.upgradePolicyPath.slice(1).join('.')} to latest (${kubectlMergePatch('rec', cluster.name, cluster.namespace, patchAt(fields.upgradePolicyPath, 'latest'))}) or choose a major version with --db-version, then run ctl again.`,
      );
      return { upgraded: false, reason };
    }
  }

  const spec = str(getPath(live, versionPath));
  const body = patchAt(versionPath, item.version);
  if (spec !== item.version) {
    await intents.record(label, { from: running ?? spec ?? null, to: item.version });
    ctx.progress(
      `${label}: setting ${versionPath.slice(1).join('.')} to ${item.version} (runs ${running ?? 'unknown'})`,
    );
    // An interrupt that arrived during the reads above must not be followed by a change.
    signal.throwIfAborted();
    await ctx.deps.kubeWriter.mergePatch(ref, body);
  } else {
    ctx.progress(
      `${label}: ${versionPath.slice(1).join('.')} is already ${item.version}; ${ctx.dryRun ? 'would wait' : 'waiting'} for the operator`,
    );
  }
  // Nothing was patched in dry-run, so there is nothing to wait for.
  if (ctx.dryRun) return { upgraded: true };

  const after = await readObject(kube, ref);
  const generation = after?.metadata?.generation ?? live.metadata?.generation ?? 0;
  await wait<KubeObject>({
    kube,
    path: resourcePath(item.kind, item.namespace),
    name: item.name,
    signal,
    timeoutMs: settings.timeoutMs,
    stallTimeoutMs: settings.stallTimeoutMs,
    description: `${short}/${item.name} -n ${item.namespace} to be active at ${item.version}`,
    hint: `${whereToLook(ctx, item)}; run ctl again to resume.`,
    check: (object) => checkDatabase(object, item, generation, whereToLook(ctx, item)),
    onProgress: (message) => ctx.progress(`${label}: ${message}`),
  });
  if (item.kind === 'active-active') await waitForActiveActiveVersion(ctx, item, signal);
  ctx.progress(`${label}: runs ${item.version}`);
  if (item.kind === 'active-active') {
    const featureSet = await updateFeatureSetOnce(ctx, item, after ?? live, intents);
    return { upgraded: true, featureSet };
  }
  return { upgraded: true };
}

/** What the database runs: REDB status.version; for an REAADB, the management API's bdb. */
async function runningVersion(
  ctx: StepContext<UpgradeDeps>,
  item: DatabaseWork,
  live: KubeObject,
): Promise<string | undefined> {
  if (item.kind === 'database') return str(getPath(live, ['status', 'version']));
  const bdb = await findActiveActiveBdb(ctx, item.name);
  return bdb ? bdbVersion(bdb) : undefined;
}

async function findActiveActiveBdb(ctx: StepContext<UpgradeDeps>, name: string): Promise<ApiBdb | undefined> {
  try {
    const bdbs = await ctx.deps.api.listBdbs();
    return bdbs.find((b) => b.name === name && b.crdt === true) ?? bdbs.find((b) => b.name === name);
  } catch (error) {
    if (findTlsFailure(error)) throw error; // an untrusted certificate is exit 1 (docs/exit-codes.md)
    ctx.warn(`cannot read the management API to check ${name}'s version: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * Where the real product says what happens to a database upgrade: the resource's status
 * (`kubectl get redb`), the operator's log and the management API's database version. The
 * operator raises no documented Event for it (redis-facts.md §12).
 */
function whereToLook(ctx: StepContext<UpgradeDeps>, item: DatabaseWork): string {
  const short = item.kind === 'active-active' ? 'reaadb' : 'redb';
  const operatorNs =
    ctx.deps.snapshot.operator?.namespace ?? ctx.deps.snapshot.cluster?.namespace ?? item.namespace;
  return (
    `Look at ${kubectl('get', short, item.name, '-n', item.namespace, '-o', 'yaml')} (status and specStatus), ` +
    `the operator's log (${kubectl('logs', 'deploy/redis-enterprise-operator', '-n', operatorNs)}) ` +
    `and the database's version in the management API (${curlApi('GET', '/v1/bdbs')})`
  );
}

/**
 * Done when the resource is `active` at the new version, after the operator has seen the change
 * (observedGeneration). A refusal (specStatus Invalid for this generation) fails at once.
 */
function checkDatabase(
  object: KubeObject | undefined,
  item: DatabaseWork,
  generation: number,
  lookHint: string,
): boolean | string {
  if (!object)
    throw new OperationError(`${item.namespace}/${item.name} was deleted while it was being upgraded`);
  const status = (object.status ?? {}) as Record<string, unknown>;
  const observed = typeof status.observedGeneration === 'number' ? status.observedGeneration : undefined;
  const seen = observed === undefined || observed >= generation;
  const state = str(status.status) ?? 'unknown';
  if (seen && status.specStatus === 'Invalid') {
    throw new OperationError(
      `the operator refused the upgrade of ${item.namespace}/${item.name} to ${item.version} (specStatus Invalid)`,
      {
        hint: `${lookHint}; fix the spec, then run ctl again.`,
      },
    );
  }
  if (item.kind === 'active-active') {
    // An REAADB has no version in its status: active after the operator saw the change, then the API confirms.
    return seen && observed !== undefined && state === 'active' ? true : `status ${state}`;
  }
  const version = str(status.version);
  if (seen && state === 'active' && atLeast(version, item.version)) return true;
  return `status ${state}, version ${version ?? 'unknown'}`;
}

/** The management API has no watch: poll the Active-Active bdb until it reports the version. */
async function waitForActiveActiveVersion(
  ctx: StepContext<UpgradeDeps>,
  item: DatabaseWork,
  signal: AbortSignal,
): Promise<void> {
  const { clock, settings } = ctx.deps;
  const started = clock.now();
  let delay = 250;
  for (;;) {
    const bdb = await findActiveActiveBdb(ctx, item.name);
    if (!bdb) return; // nothing to verify against: the resource's status was all there was
    const version = bdbVersion(bdb);
    if (atLeast(version, item.version) && (bdb.status === undefined || bdb.status === 'active')) return;
    if (clock.now() - started > settings.stallTimeoutMs) {
      throw new TimeoutError(
        `Active-Active database ${item.name} still runs ${version ?? 'an unknown version'} ${formatDuration(settings.stallTimeoutMs)} after its resource became active`,
        {
          hint: `Look at the database in the management API and on the other participating clusters; run ctl again to resume.`,
        },
      );
    }
    await clock.sleep(delay, signal);
    delay = Math.min(delay * 2, 2000);
  }
}

/**
 * After ctl raised an REAADB on every participant at once: the feature set and the module list,
 * once for all instances (databases-active-active.ts says why these are printed commands).
 */
async function updateFeatureSetOnce(
  ctx: StepContext<UpgradeDeps>,
  item: DatabaseWork,
  live: KubeObject,
  intents: IntentLog,
): Promise<FeatureSetRecord> {
  const cluster = ctx.deps.snapshot.cluster;
  const label = `${item.namespace}/${item.name}`;
  const guid = guidOf(live) ?? crdtGuidOf(await findActiveActiveBdb(ctx, item.name));
  const commands = featureSetCommands({
    pod: `${cluster?.name ?? '<rec>'}-0`,
    namespace: cluster?.namespace ?? item.namespace,
    guid,
    withModules: hasModules(live),
  });
  const record: FeatureSetRecord = { database: label, guid: guid ?? null, commands };
  await intents.recordFeatureSet(record);
  ctx.warn(
    `Active-Active database ${oneLine(label)} runs ${item.version} on every participating cluster. Update its feature set${commands.length > 1 ? ' and module list' : ''} once, now, on this cluster only:\n${commands.map((c) => `  ${oneLine(c)}`).join('\n')}`,
    { database: item.name, namespace: item.namespace, featureSet: commands },
  );
  return record;
}

function crdtGuidOf(bdb: ApiBdb | undefined): string | undefined {
  return typeof bdb?.crdt_guid === 'string' ? bdb.crdt_guid : undefined;
}

// ---- Active-Active by hand -----------------------------------------------------------------------

async function reportManual(
  ctx: StepContext<UpgradeDeps>,
  items: DatabaseWork[],
  outcome: DatabasesOutcome,
): Promise<void> {
  const { snapshot, plan } = ctx.deps;
  const cluster = snapshot.cluster;
  let bdbs: ApiBdb[] = [];
  try {
    bdbs = await ctx.deps.api.listBdbs();
  } catch (error) {
    // The commands then keep their placeholders; an untrusted certificate is exit 1 (docs/exit-codes.md).
    if (findTlsFailure(error)) throw error;
  }
  for (const item of items) {
    const pod = `${cluster?.name ?? '<rec>'}-0`;
    const ns = cluster?.namespace ?? item.namespace;
    const bdb =
      bdbs.find((b) => b.name === item.name && b.crdt === true) ?? bdbs.find((b) => b.name === item.name);
    const guid = typeof bdb?.crdt_guid === 'string' ? bdb.crdt_guid : undefined;
    const { eachCluster, once } = manualCommands({
      pod,
      namespace: ns,
      name: item.name,
      version: item.version,
      guid,
    });
    // The documented order: every instance first, then the feature set once for all of them
    // (DOCS operate/rs/installing-upgrading/upgrading/upgrade-active-active.md).
    ctx.warn(
      `Active-Active database ${oneLine(item.namespace)}/${oneLine(item.name)} must be upgraded by hand: operator ${plan.target.operator} cannot (it needs ${ACTIVE_ACTIVE_UPGRADE_FROM} or later on every participating cluster). ` +
        `Upgrade Redis Software on every participating cluster first. Then on each participating cluster (its own pod):\n${eachCluster.map((c) => `  ${oneLine(c)}`).join('\n')}\n` +
        `Then once, after every instance runs ${oneLine(item.version)}, on any one participating cluster (the last command only for a database with modules):\n${once.map((c) => `  ${oneLine(c)}`).join('\n')}`,
      { database: item.name, namespace: item.namespace, commands: [...eachCluster, ...once] },
    );
    outcome.manual.push(`${item.namespace}/${item.name}`);
  }
  if (items.length > 0 && supportsActiveActiveUpgrade(plan.target.operator)) {
    // Not expected: the planner only writes manual actions for older operators.
    ctx.warn(
      `operator ${plan.target.operator} could upgrade these through the REAADB; re-plan to let ctl do it`,
    );
  }
}

// ---- a small pool -------------------------------------------------------------------------------

/**
 * Runs `task` over `items`, at most `limit` at once, in order. The first failure stops new
 * starts and aborts the others' waits; it is rethrown once every started task has ended.
 */
export async function runPool<T>(
  items: T[],
  limit: number,
  signal: AbortSignal,
  task: (item: T, signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(signal.reason);
  // An 'abort' listener added after the abort never fires: an interrupt that came during the
  // step's first reads must still stop the pool before its first change.
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && !stop.signal.aborted && next < items.length) {
      const item = items[next++] as T;
      try {
        await task(item, stop.signal);
      } catch (error) {
        if (failure === undefined) {
          failure = { error };
          stop.abort(error);
        }
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (failure !== undefined) throw failure.error;
  if (signal.aborted)
    throw signal.reason instanceof Error
      ? signal.reason
      : new DOMException('The operation was aborted', 'AbortError');
}

// ---- plan: pure, from the snapshot and the target (the run half re-reads live state)

function planDatabases({ snapshot, target, resolved }: PlanContext, cluster: ClusterSnapshot): StepPlan {
  if (target.databases.kind === 'none') return { skip: 'not selected (--databases none)' };
  if (resolved.databases.length === 0) return { skip: 'the cluster has no database resources' };
  const changing = resolved.databases.filter((db) => db.target !== undefined);
  if (changing.length === 0) {
    return { skip: `no database needs a change (${summarizeReasons(resolved.databases)})` };
  }
  const fields = dialectFields(snapshot.dialect);
  return {
    actions: changing.map((db): PlanAction => {
      const version = db.target as string;
      const from = db.current ? ` from ${db.current}` : '';
      const database = (kind: PlanDatabase['kind'], manual: boolean): PlanDatabase => ({
        kind,
        name: db.name,
        namespace: db.namespace,
        version,
        manual,
      });
      if (db.kind === 'database') {
        return {
          ...action(
            `Upgrade database ${db.namespace}/${db.name}${from} to ${version}`,
            kubectlMergePatch('redb', db.name, db.namespace, patchAt(fields.databaseVersionPath, version)),
          ),
          database: database('redb', false),
        };
      }
      if (supportsActiveActiveUpgrade(target.operator)) {
        const held = heldBackAction(snapshot, target, db, version, from);
        if (held) return held;
        return {
          ...action(
            `Upgrade Active-Active database ${db.namespace}/${db.name}${from} to ${version} (set on this participating cluster only; every participating cluster must run operator ${ACTIVE_ACTIVE_UPGRADE_FROM} or newer)`,
            kubectlMergePatch(
              'reaadb',
              db.name,
              db.namespace,
              patchAt(fields.activeActiveVersionPath, version),
            ),
          ),
          database: database('reaadb', false),
        };
      }
      // The manual path asks the participants too, before it prints any command for them.
      const heldManual = heldBackAction(snapshot, target, db, version, from, { manual: true });
      if (heldManual) return heldManual;
      return {
        ...action(
          `Upgrade Active-Active database ${db.name}${from} to ${version} by hand on each participating cluster (operators before ${ACTIVE_ACTIVE_UPGRADE_FROM} cannot)`,
          kubectl(
            'exec',
            '-it',
            `${cluster.name}-0`,
            '-n',
            cluster.namespace,
            '--',
            'rladmin',
            'upgrade',
            'db',
            db.name,
            'redis_version',
            version,
          ),
        ),
        database: database('reaadb', true),
      };
    }),
  };
}

function summarizeReasons(databases: DatabaseTarget[]): string {
  const byReason = new Map<string, string[]>();
  for (const db of databases) {
    const reason = db.reason ?? 'unchanged';
    byReason.set(reason, [...(byReason.get(reason) ?? []), db.name]);
  }
  return [...byReason]
    .map(
      ([reason, names]) => `${names.length > 3 ? `${names.length} databases` : names.join(', ')}: ${reason}`,
    )
    .join('; ');
}
