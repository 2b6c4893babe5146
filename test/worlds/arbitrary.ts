/**
 * fast-check's generator of worlds (world.ts) from the scenario keys (docs/simulator.md,
 * "Scenario keys for real-world situations"): operator version and install method (bundle,
 * helm with its release name, OLM with its channel, approval and CSV name), platform and
 * version, namespaces (the cluster's, and watched ones holding databases, bound to a Role or a
 * ClusterRole), databases with their versions, shards and replication, modules with and
 * without a rhel9 build, Active-Active participants and their releases, the licence, the
 * StatefulSet strategy, auto-upgrade, the SCC binding on OpenShift, the management API user's
 * role, transient API faults, helm on the PATH or not, the state store and the target (one hop
 * or several), and now and then simulated waits that take time (TIMING). Every name is drawn
 * at random (DNS-1123, now and then as long as the object allows): nothing may depend on
 * `redis/rec`. Starting operators are the curated START_OPERATORS, or any release from 7.2.4-2.
 *
 * About half the worlds are meant to be Ready: their platform and database versions are ones the
 * start and the target both support (the simulator's own facts, src/sim/world). A third carry
 * one blocker on purpose (`blockedBy`: a platform the target does not support, a database
 * too old for it, a rhel8-only module on a RHEL9 target, no helm for a helm install, a bad
 * licence, auto-upgrade with a pinned digest), which the plan must catch; the property checks
 * that it does. Blockers the generator does not aim at (OLM's update graph, advisories, release
 * rules, Active-Active participants) still come up on their own.
 *
 * Every generated scenario is one the simulator accepts (arbitrary.test.ts loads hundreds).
 */

import fc from 'fast-check';
import {
  bundledDatabaseVersions,
  clusterTagRunsRhel9,
  databaseTooOldForRhel9,
  defaultClusterTag,
  OLM_BUNDLES,
  releasedOperatorVersions,
  worldOf,
} from '../helpers/simulator.js';
import { applySituations, type Situations, situationsArbitrary } from './situations.js';
import { apiUserArbitrary, type ApiUsers, apiUsersOf, type ApiUserDraw } from './api-users.js';
import { applySettings, type SettingsDraw, settingsArbitrary } from './settings.js';
import { pickTarget } from './targets.js';
import type { UserSide, World } from './world.js';

/** Starting operators: every line the catalog knows from 6.4.2 on, old and newest builds, holes included. */
export const START_OPERATORS = [
  '6.4.2-8',
  '7.2.4-12',
  '7.2.4-16',
  '7.4.6-2',
  '7.4.6-7',
  '7.4.6-12',
  '7.8.2-6',
  '7.8.6-13',
  '7.8.6-20',
  '7.22.0-17',
  '7.22.2-43',
  '8.0.20-26',
  '8.2.0-13',
] as const;

/**
 * Every release the simulated world knows from 7.2.4-2 on (maintenance builds, re-published
 * ones, releases without a certified bundle or a git tag): a quarter of the worlds start from
 * one of these rather than from START_OPERATORS, as a user's cluster runs whatever build it
 * was last upgraded to.
 */
export const ANY_START_OPERATOR = releasedOperatorVersions().filter(
  (version) => compareOperators(version, '7.2.4-2') >= 0,
);

/** Platform versions beyond any release's support (an old cluster on a new platform, or the other way round). */
const KUBERNETES = ['1.20', '1.23', '1.26', '1.28', '1.30', '1.32', '1.34'] as const;
const OPENSHIFT = ['4.8', '4.10', '4.12', '4.14', '4.16', '4.18', '4.20'] as const;
/** RS versions an Active-Active participant may run (GET /v1/nodes software_version). */
const PARTICIPANT_RS = ['7.4.6-102', '7.8.6-315', '7.22.2-179', '8.0.20-108', '8.2.0-78'] as const;
/** Or the operator release a participant runs, whose RS the simulated world knows. */
const PARTICIPANT_OPERATORS = ['7.8.6-20', '7.22.2-43', '8.0.20-26', '8.2.0-13'] as const;

/**
 * Modules and their builds: with a rhel9 build, or rhel8 only (frozen by a RHEL9 cluster image).
 * RHEL9 builds start at RediSearch 2.8.9, RedisJSON 2.6.7 and RedisTimeSeries 1.10.9 (their
 * release notes, redis/docs stack-with-enterprise/release-notes); 2.8.13 and 2.6.10 are what
 * RS 7.4.6-22 bundles (rs-7-4-6-22.md). RedisGraph has no RHEL9 build.
 */
const MODULES = [
  { name: 'search', version: '2.8.13', platforms: ['rhel8/x86_64', 'rhel9/x86_64'] },
  { name: 'ReJSON', version: '2.6.10', platforms: ['rhel8/x86_64', 'rhel9/x86_64'] },
  { name: 'timeseries', version: '1.10.11', platforms: ['rhel8/x86_64', 'rhel9/x86_64'] },
  // A user's own module, uploaded (`kind: custom`: is_bundled false), with both builds.
  { name: 'acme_index', version: '2.1.0', platforms: ['rhel8/x86_64', 'rhel9/x86_64'], kind: 'custom' },
  { name: 'graph', version: '2.10.12', platforms: ['rhel8/x86_64'] },
  // A user's own module built for RHEL8 only: it freezes a RHEL9 target as RedisGraph does.
  { name: 'acme_filter', version: '1.0.4', platforms: ['rhel8/x86_64'], kind: 'custom' },
] as const;
/** The first of the rhel8-only modules; the ones before it have a rhel9 build. */
const RHEL8_ONLY = MODULES.length - 2;

/**
 * Transient trouble the run must ride out (SIMULATOR.md `faults`): a bounded number of failed
 * answers, never a permanent outage, so a Ready plan still has to finish.
 */
const TRANSIENT_FAULTS = [
  { api: 'rest', match: 'POST /v1/bdbs/*/upgrade', status: 503, times: 1 },
  { api: 'rest', match: 'GET /v1/bdbs', status: 503, times: 2 },
  { api: 'rest', match: 'GET /v1/nodes', status: 502, times: 1 },
  { api: 'kube', match: 'watch', dropAfterSeconds: 2 },
  // One connection in ten reset, from a fixed seed: the flaky-api scenario's trouble, milder.
  { api: 'rest', match: '*', rate: 0.1, kind: 'reset', seed: 7 },
  // Slow answers, well within ctl's read bounds.
  { api: 'rest', match: 'GET /v1/nodes', kind: 'delay', delayMs: 300, times: 3 },
  // An error answer that quotes the request, credentials included (ctl must redact it), once.
  { api: 'rest', match: 'GET /v1/bdbs', kind: 'echo', status: 503, times: 1 },
] as const;

/**
 * Simulated work that takes time (SIMULATOR.md `timing`, seconds): an operator that is not
 * Ready at once, pods that restart one after another, database upgrades and failovers that
 * last. A quarter of the worlds draw one, short enough to keep a world within seconds (the
 * simulator's defaults, 2 s a pod, would make a two-hop world of five nodes last a minute); the
 * others run every wait at zero (try-world.ts), which hides what a run does while the cluster
 * is still moving.
 */
const TIMING = fc.record({
  operatorStart: fc.constantFrom(0.2, 0.5, 1),
  podRestart: fc.constantFrom(0.1, 0.3),
  // A second, the simulator's default: long enough for a run to meet a database still changing.
  databaseUpgrade: fc.constantFrom(0.1, 0.3, 1),
  failover: fc.constantFrom(0.1, 0.5),
});

/** What a world is blocked by on purpose, and the checks of which one must then fail. */
const BLOCKERS = {
  platform: ['platform-supported'],
  'old-database': ['database-min-version', 'database-version-supported'],
  'rhel8-module': ['modules-compatible'],
  'no-helm': ['helm-available'],
  license: ['license-valid'],
  'pinned-digest': ['auto-upgrade-digest'],
} as const;
type Blocker = keyof typeof BLOCKERS;

/** Reserved or system namespaces a user's cluster does not live in. */
const RESERVED_NAMESPACE = /^(default|kube-.*|openshift.*)$/;

/**
 * Names YAML 1.1 or a careless parser reads as something else (booleans, null, numbers), and
 * one-letter names: valid DNS-1123 labels all, that a user may well have.
 */
const TRICKY_NAMES = ['y', 'n', 'no', 'on', 'off', 'yes', 'null', 'true', 'nan', 'inf', 'e1', 'x'] as const;
/** Namespaces may also start with a digit: ones that look like numbers. */
const TRICKY_NAMESPACES = [...TRICKY_NAMES, '123', '0', '1e3', '0x1f', '007', '1-0'] as const;

/**
 * The label arbitraries made so far, one per shape: `databases` and `install` ask for theirs in a
 * chain, once per world, and each new `fc.stringMatching` tokenizes fast-check's list of
 * dangerous strings against its character classes when it is made (`createSlicesForString`,
 * cached per arbitrary): 13 of test/worlds/arbitrary's 19 s of CPU for 500 worlds. The values
 * drawn are the same: an arbitrary's draw depends on the random stream, not on which instance.
 */
const labels = new Map<string, fc.Arbitrary<string>>();

/**
 * A random DNS-1123 label, starting with a letter (Services are named after clusters and
 * databases); now and then a long one, up to `longest` characters (what the object's own
 * names leave: a database's Services `<name>` and `<name>-headless`, a cluster's pods
 * `<name>-<ordinal>` and its StatefulSet's revision label, a helm release's 53), dense with
 * digits and hyphens (`a-1--2`), as names generated by a pipeline are.
 */
function label(maxTail: number, longest = 0): fc.Arbitrary<string> {
  const key = `${maxTail}/${longest}`;
  let made = labels.get(key);
  if (made === undefined) {
    made = newLabel(maxTail, longest);
    labels.set(key, made);
  }
  return made;
}

function newLabel(maxTail: number, longest: number): fc.Arbitrary<string> {
  const plain = fc.stringMatching(new RegExp(`^[a-z]([-a-z0-9]{0,${maxTail}}[a-z0-9])?$`));
  const choices = [
    { weight: 8, arbitrary: plain },
    { weight: 1, arbitrary: fc.constantFrom(...TRICKY_NAMES) },
  ];
  if (longest > maxTail + 2)
    choices.push({
      weight: 1,
      arbitrary: fc.stringMatching(new RegExp(`^[a-z][-a-z0-9]{${maxTail + 1},${longest - 2}}[a-z0-9]$`)),
    });
  return fc.oneof(...choices);
}

/**
 * A namespace: a DNS-1123 label, which may also start with a digit, now and then as long as a
 * label may be (63).
 */
const namespaceName = fc
  .oneof(
    { weight: 8, arbitrary: fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/) },
    { weight: 1, arbitrary: fc.constantFrom(...TRICKY_NAMESPACES) },
    { weight: 1, arbitrary: fc.stringMatching(/^[a-z0-9][-a-z0-9]{50,61}[a-z0-9]$/) },
  )
  .filter((name) => !RESERVED_NAMESPACE.test(name));

function releaseLine(operator: string): string {
  return operator.split('-')[0] ?? operator;
}

const userSide: fc.Arbitrary<UserSide> = fc.record({
  helm: fc.constant(true),
  stateStore: fc.constantFrom('file' as const, 'configmap' as const),
  runWith: fc.constantFrom('to' as const, 'plan' as const),
  targetFrom: fc.constantFrom('listed' as const, 'catalog' as const),
  targetPick: fc.nat({ max: 40 }),
  credentials: fc.constantFrom('env' as const, 'secret' as const),
  remediate: now(3),
  address: fc.oneof(
    { weight: 3, arbitrary: fc.constant('context' as const) },
    { weight: 1, arbitrary: fc.constant('flags' as const) },
  ),
});

type PlatformName = 'kubernetes' | 'openshift';
interface Platform {
  platform: PlatformName;
  version: string;
}

function supportedBy(operator: string, which: PlatformName): string[] {
  const support = worldOf(undefined).platformsOf(operator)[which];
  return [...support.supported, ...support.deprecated];
}

/**
 * The platform: one both the starting operator and the target support (as clusters run before
 * an upgrade that works); with the `platform` blocker, one the target does not support.
 */
function platform(operator: string, target: string | null, blocked: boolean): fc.Arbitrary<Platform> {
  const of = (which: PlatformName, versions: readonly string[]) =>
    fc.record({ platform: fc.constant(which), version: fc.constantFrom(...versions) });
  const choices: fc.Arbitrary<Platform>[] = [];
  for (const [which, all] of [
    ['kubernetes', KUBERNETES],
    ['openshift', OPENSHIFT],
  ] as const) {
    const started = supportedBy(operator, which);
    const targeted = target ? supportedBy(target, which) : started;
    const versions = blocked
      ? all.filter((v) => olderThanAll(v, targeted))
      : started.filter((v) => targeted.includes(v));
    if (versions.length > 0) choices.push(of(which, versions));
  }
  return choices.length > 0 ? fc.oneof(...choices) : fc.constant({ platform: 'kubernetes', version: '1.32' });
}

interface Install {
  installedBy: 'bundle' | 'helm' | 'olm';
  helmRelease?: string;
  olm?: {
    channel: string;
    approval: 'Manual' | 'Automatic';
    startingCSV?: string;
    operatorImageByDigest?: boolean;
    webhookCa?: 'olm' | 'operator';
    installFailure?: 'InstallCheckFailed';
  };
}

/** How the operator was installed: OLM only on OpenShift, from a certified bundle's channels. */
function install(operator: string, onOpenShift: boolean, helmOnly: boolean): fc.Arbitrary<Install> {
  const helm = fc.record(
    { installedBy: fc.constant('helm' as const), helmRelease: label(20, 53) },
    { requiredKeys: ['installedBy'] },
  );
  if (helmOnly) return helm;
  const methods: fc.Arbitrary<Install>[] = [fc.constant({ installedBy: 'bundle' as const }), helm];
  const bundle = OLM_BUNDLES.get(operator);
  if (onOpenShift && bundle) {
    // The line's channel, production, the bundle's own channel (`7.22.2-43.0`, from 7.22.2-21.1
    // on), or `stable`, SIMULATOR.md's example, which the certified catalog does not have
    // (src/sim/world/olm-bundles.ts): OLM answers ResolutionFailed until it is switched.
    const channels = [
      releaseLine(operator),
      ...(bundle.production ? ['production'] : []),
      ...(bundle.ownChannel ? [bundle.bundle] : []),
    ];
    const channel = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...channels) },
      { weight: 1, arbitrary: fc.constant('stable') },
    );
    methods.push(
      fc.record({
        installedBy: fc.constant('olm' as const),
        olm: fc.record(
          {
            channel,
            approval: fc.constantFrom('Manual' as const, 'Automatic' as const),
            // The CSV as Red Hat's certified bundles name it, with the rebuild suffix, or
            // without one (`redis-enterprise-operator.v7.4.6-2`, SIMULATOR.md's example).
            startingCSV: fc.constantFrom(
              `redis-enterprise-operator.v${bundle.bundle}`,
              `redis-enterprise-operator.v${operator}`,
            ),
            // A disconnected install's CSV names the operator image by digest only.
            operatorImageByDigest: fc.constant(true),
            webhookCa: fc.constantFrom('olm' as const, 'operator' as const),
            // A new CSV's install fails once, as while a slow Deployment comes up; OLM retries it.
            installFailure: fc.constant('InstallCheckFailed' as const),
          },
          { requiredKeys: ['channel', 'approval'] },
        ),
      }),
    );
  }
  return fc.oneof(...methods);
}

interface DatabaseDraft {
  name: string;
  version: string;
  /** Index into the world's namespaces: 0 is the cluster's, others are watched ones. */
  namespace: number;
  module: number | null;
  activeActive: boolean;
  participants: number[];
  shards: number;
  replication: boolean;
}

function databases(
  versions: readonly string[],
  remotes: number,
  namespaces: number,
  avoid: string,
): fc.Arbitrary<DatabaseDraft[]> {
  const draft: fc.Arbitrary<DatabaseDraft> = fc.record({
    name: label(14, 45).filter((name) => name !== avoid && !name.startsWith(`${avoid}-`)),
    version: fc.constantFrom(...versions),
    namespace: fc.nat({ max: namespaces - 1 }),
    module: fc.option(fc.nat({ max: RHEL8_ONLY - 1 }), { nil: null }),
    activeActive: remotes > 0 ? fc.boolean() : fc.constant(false),
    participants: fc.uniqueArray(fc.nat({ max: Math.max(remotes - 1, 0) }), {
      minLength: remotes > 0 ? 1 : 0,
      maxLength: remotes,
    }),
    shards: fc.constantFrom(1, 1, 2),
    replication: fc.oneof(
      { weight: 5, arbitrary: fc.constant(true) },
      { weight: 1, arbitrary: fc.constant(false) },
    ),
  });
  return fc.uniqueArray(draft, { minLength: 0, maxLength: 4, selector: (db) => db.name });
}

/** A sometimes-true boolean: true with probability 1 / (1 + against). */
function now(against: number): fc.Arbitrary<boolean> {
  return fc.oneof(
    { weight: against, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  );
}

/** One world: the scenario and the user's side. */
export const worldArbitrary: fc.Arbitrary<World> = fc
  .record({
    operator: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...START_OPERATORS) },
      { weight: 1, arbitrary: fc.constantFrom(...ANY_START_OPERATOR) },
    ),
    namespace: namespaceName,
    watched: fc.uniqueArray(namespaceName, { maxLength: 3 }),
    clusterName: label(18, 40),
    nodes: fc.constantFrom(3, 3, 5),
    // The cluster still runs the RS of the release before (laggingClusterTag), now and then.
    lagging: now(5),
    dialect: fc.constantFrom('engine' as const, 'redis' as const),
    remotes: fc.uniqueArray(
      fc.record({
        name: label(14),
        runs: fc.oneof(
          fc.record({ rsVersion: fc.constantFrom(...PARTICIPANT_RS) }),
          fc.record({ operator: fc.constantFrom(...PARTICIPANT_OPERATORS) }),
        ),
      }),
      { maxLength: 2, selector: (remote) => remote.name },
    ),
    // About a third of the worlds carry one blocker on purpose; others come up on their own.
    blocker: fc.oneof(
      { weight: 7, arbitrary: fc.constant(null) },
      { weight: 4, arbitrary: fc.constantFrom(...(Object.keys(BLOCKERS) as Blocker[])) },
    ),
    extras: fc.record({
      roleRefKind: fc.constantFrom('Role' as const, 'ClusterRole' as const),
      sccBinding: fc.constantFrom('users' as const, 'rbac' as const),
      statefulSetStrategy: fc.oneof(
        { weight: 4, arbitrary: fc.constant('RollingUpdate' as const) },
        { weight: 1, arbitrary: fc.constant('OnDelete' as const) },
      ),
      licenseIn: fc.constantFrom('secret' as const, 'spec' as const),
      badLicense: fc.constantFrom('Invalid' as const, 'Expired' as const),
      autoUpgrade: now(5),
      // The rhel8-module blocker's module: RedisGraph, or a custom module built for RHEL8 only.
      customRhel8: fc.boolean(),
      apiUser: apiUserArbitrary,
      settings: settingsArbitrary,
      faults: fc.option(fc.subarray([...TRANSIENT_FAULTS], { minLength: 1 }), { nil: [], freq: 3 }),
      // fc.option's freq is the odds of null (1 in freq): one world in four draws a timing.
      timing: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: TIMING }),
    }),
    ctl: userSide,
    situations: situationsArbitrary,
  })
  .filter(
    (w) =>
      !w.watched.includes(w.namespace) &&
      !w.remotes.some((r) => r.name === w.clusterName || r.name.startsWith(`${w.clusterName}-`)),
  )
  .chain((base) => {
    const target = pickTarget(base.operator, base.ctl);
    return platform(base.operator, target, base.blocker === 'platform').map((on) => ({
      ...base,
      target,
      // A platform blocker needs a platform the target does not support; without one, none.
      blocker: base.blocker === 'platform' && !blocksPlatform(on, target) ? null : base.blocker,
      platform: on,
    }));
  })
  .chain((base) => {
    const onOpenShift = base.platform.platform === 'openshift';
    const lagging = base.lagging ? laggingClusterTag(base.operator, base.platform.platform) : undefined;
    const startTag = lagging ?? defaultClusterTag(base.operator, base.platform.platform) ?? '';
    const targetTag = base.target ? (defaultClusterTag(base.target, base.platform.platform) ?? '') : startTag;
    const started = bundledDatabaseVersions(startTag);
    const toRhel9 = clusterTagRunsRhel9(targetTag);
    const kept = bundledDatabaseVersions(targetTag);
    // Versions a database may run before and after: bundled by both, new enough for RHEL9.
    const fits = started.filter((v) => kept.includes(v) && !(toRhel9 && databaseTooOldForRhel9(v)));
    const tooOld = started.filter((v) => !fits.includes(v));
    let blocker = base.blocker;
    if (blocker === 'old-database' && tooOld.length === 0) blocker = null;
    if (blocker === 'rhel8-module' && !toRhel9) blocker = null;
    const namespaces = [base.namespace, ...base.watched];
    return fc
      .record({
        install: install(base.operator, onOpenShift, blocker === 'no-helm'),
        databases: databases(
          fits.length > 0 ? fits : started.length > 0 ? started : ['7.2'],
          base.remotes.length,
          namespaces.length,
          base.clusterName,
        ),
        tooOld: tooOld.length > 0 ? fc.constantFrom(...tooOld) : fc.constant(''),
      })
      .map(({ install: how, databases: drafts, tooOld: oldVersion }) =>
        buildWorld({ ...base, blocker, namespaces, clusterTag: lagging }, how, drafts, oldVersion, fits),
      );
  });

/**
 * The RS image of the release before `operator` (the newest of START_OPERATORS older than it,
 * which for one of them is the entry before), when it differs from the
 * operator's own: a cluster between the two steps of the documented upgrade, the operator
 * upgraded and the cluster resource's versionTag not yet (redis/docs
 * content/operate/kubernetes/upgrade/upgrade-redis-cluster.md: "Upgrade the operator", then
 * "Upgrade the Redis Enterprise cluster (REC)").
 */
function laggingClusterTag(operator: string, on: PlatformName): string | undefined {
  const before = START_OPERATORS.filter((release) => compareOperators(release, operator) < 0).at(-1);
  const tag = before ? defaultClusterTag(before, on) : undefined;
  return tag && tag !== defaultClusterTag(operator, on) ? tag : undefined;
}

function blocksPlatform(on: Platform, target: string | null): boolean {
  return target !== null && olderThanAll(on.version, supportedBy(target, on.platform));
}

/**
 * A platform version below every one a release lists: unsupported. One above them all is only
 * not listed yet (the plan warns: a newer release may support it), so it blocks nothing.
 */
function olderThanAll(version: string, listed: readonly string[]): boolean {
  const minor = (v: string) => v.split('.').map(Number) as [number, number];
  const [major, min] = minor(version);
  return (
    listed.length > 0 &&
    listed.every((v) => {
      const [m, n] = minor(v);
      return major < m || (major === m && min < n);
    })
  );
}

interface Base {
  operator: string;
  platform: Platform;
  namespaces: string[];
  clusterName: string;
  nodes: number;
  /** The cluster's RS image when it lags behind the operator's (laggingClusterTag). */
  clusterTag: string | undefined;
  dialect: 'engine' | 'redis';
  remotes: { name: string; runs: { rsVersion: string } | { operator: string } }[];
  blocker: Blocker | null;
  target: string | null;
  extras: {
    roleRefKind: 'Role' | 'ClusterRole';
    sccBinding: 'users' | 'rbac';
    statefulSetStrategy: 'RollingUpdate' | 'OnDelete';
    licenseIn: 'secret' | 'spec';
    badLicense: 'Invalid' | 'Expired';
    autoUpgrade: boolean;
    customRhel8: boolean;
    apiUser: ApiUserDraw;
    settings: SettingsDraw;
    faults: (typeof TRANSIENT_FAULTS)[number][];
    timing: { operatorStart: number; podRestart: number; databaseUpgrade: number; failover: number } | null;
  };
  ctl: UserSide;
  situations: Situations;
}

function buildWorld(
  base: Base,
  how: Install,
  drafts: DatabaseDraft[],
  oldVersion: string,
  fits: readonly string[],
): World {
  const onOpenShift = base.platform.platform === 'openshift';
  const { blocker, extras } = base;
  const remoteClusters = base.remotes.map((remote) => ({ name: remote.name, ...remote.runs }));
  // A blocker that needs a database gets one; the others' databases stay as drawn.
  if ((blocker === 'old-database' || blocker === 'rhel8-module') && drafts.length === 0)
    drafts = [
      {
        name: base.clusterName === 'db' ? 'data' : 'db',
        version: oldVersion || '7.2',
        namespace: 0,
        module: null,
        activeActive: false,
        participants: [],
        shards: 1,
        replication: true,
      },
    ];
  if (blocker === 'old-database') drafts = [{ ...drafts[0]!, version: oldVersion }, ...drafts.slice(1)];
  if (blocker === 'rhel8-module')
    drafts = [{ ...drafts[0]!, module: RHEL8_ONLY + (extras.customRhel8 ? 1 : 0) }, ...drafts.slice(1)];
  const used = new Set<number>();
  const databaseEntries = drafts.map((draft) => {
    if (draft.module !== null) used.add(draft.module);
    const module = draft.module === null ? undefined : MODULES[draft.module];
    return {
      name: draft.name,
      namespace: base.namespaces[draft.namespace],
      version: draft.version,
      ...(module ? { modules: [{ name: module.name, version: module.version }] } : {}),
      ...(draft.shards > 1 ? { shards: draft.shards } : {}),
      ...(draft.replication ? {} : { replication: false }),
      ...(draft.activeActive
        ? {
            activeActive: true,
            participants: draft.participants.map((p) => remoteClusters[p]!.name),
          }
        : {}),
    };
  });
  const startTag = base.clusterTag ?? defaultClusterTag(base.operator, base.platform.platform) ?? '';
  const apiUsers = apiUsersOf(
    extras.apiUser,
    serverVersionOf(startTag),
    databaseEntries.map((db) => ({ name: db.name, namespace: db.namespace! })),
  );
  const scenario: Record<string, unknown> = {
    name: 'generated-world',
    description: `generated: operator ${base.operator} by ${how.installedBy} on ${base.platform.platform} ${base.platform.version}`,
    dialect: base.dialect,
    platform: base.platform.platform,
    namespace: base.namespaces[0],
    ...(onOpenShift
      ? { openshiftVersion: base.platform.version }
      : { kubernetesVersion: base.platform.version }),
    operator: {
      version: base.operator,
      installedBy: how.installedBy,
      ...(how.helmRelease ? { helmRelease: how.helmRelease } : {}),
      ...(how.olm ? { olm: how.olm } : {}),
      ...(base.namespaces.length > 1
        ? { watchNamespaces: base.namespaces.slice(1), roleRefKind: extras.roleRefKind }
        : {}),
    },
    cluster: {
      name: base.clusterName,
      nodes: base.nodes,
      ...(base.clusterTag ? { versionTag: base.clusterTag } : {}),
      ...(onOpenShift ? { repository: 'registry.connect.redhat.com/redislabs/redis-enterprise' } : {}),
      ...(extras.statefulSetStrategy === 'OnDelete' ? { statefulSetStrategy: 'OnDelete' } : {}),
      ...(extras.licenseIn === 'spec' ? { licenseIn: 'spec' } : {}),
      ...(blocker === 'license' ? { license: extras.badLicense } : {}),
      ...(extras.autoUpgrade || blocker === 'pinned-digest' ? { autoUpgrade: true } : {}),
      ...(blocker === 'pinned-digest' ? { digestHash: `sha256:${'ab'.repeat(32)}` } : {}),
      // The Secret ctl signs in with holds the first user (api-users.ts), an admin follows.
      users: apiUsers.users,
      ...(apiUsers.roles.length > 0 ? { roles: apiUsers.roles } : {}),
    },
    ...(onOpenShift ? { openshift: { sccBinding: extras.sccBinding } } : {}),
    modules: [...used].sort().map((i) => ({ ...MODULES[i]!, platforms: [...MODULES[i]!.platforms] })),
    databases: databaseEntries,
    remoteClusters,
    ...(extras.faults.length > 0 ? { faults: extras.faults.map((fault) => ({ ...fault })) } : {}),
    ...(extras.timing ? { timing: { ...extras.timing } } : {}),
  };
  const stopsThenBlocks = applySituations(scenario, base.situations);
  applySettings(scenario, extras.settings, {
    olderOperators: START_OPERATORS.filter((v) => compareOperators(v, base.operator) < 0),
    databaseVersions: fits,
    firstDatabaseKeepsVersion: blocker === 'old-database',
  });
  // helm is only asked for by a helm install: elsewhere its absence decides nothing.
  const ctl = { ...base.ctl, helm: blocker !== 'no-helm' };
  const blockedBy = [
    ...(blocker ? BLOCKERS[blocker] : []),
    ...(uploadRefused(base, apiUsers.management) ? ['api-permissions'] : []),
    // Signing in as a user whose role is none (no permission at all: rest-api/permissions.md
    // "Roles"), ctl can read nothing through the management API.
    ...(base.ctl.credentials === 'secret' && apiUsers.management === 'none' ? ['api-reachable'] : []),
    // Signing in as a user limited to some databases (RS 8.2 database-scoped roles: "Other
    // databases are hidden", rs-8-2-0-25.md), the plan cannot see every database resource's bdb:
    // api-reachable fails, firm, naming them (src/planning/checks/api-reachable.ts).
    ...(base.ctl.credentials === 'secret' && hidesDatabases(apiUsers, scenario) ? ['api-reachable'] : []),
  ];
  return {
    ctl,
    ...(blockedBy.length > 0 ? { blockedBy } : {}),
    ...(stopsThenBlocks.length > 0 ? { stopsThenBlocks } : {}),
    scenario,
  };
}

/**
 * A run given --remediate and a module package on a target that may freeze for a module (its
 * cluster image runs RHEL9) and still takes uploads (RS 7: the RS 8 references list no
 * POST /v2/modules), signing in as the Secret's read-only user: POST /v2/modules needs
 * update_cluster, which only an admin has (rest-api/permissions.md).
 */
function uploadRefused(base: Base, management: string): boolean {
  if (!base.ctl.remediate || base.ctl.credentials !== 'secret' || management === 'admin' || !base.target)
    return false;
  const tag = defaultClusterTag(base.target, base.platform.platform) ?? '';
  return clusterTagRunsRhel9(tag) && tag.startsWith('7.');
}

/** Whether the first user's role hides a database of the scenario (generated ones included). */
function hidesDatabases(users: ApiUsers, scenario: Record<string, unknown>): boolean {
  if (!users.scope) return false;
  return scenario.generate !== undefined || users.scope.length < (scenario.databases as unknown[]).length;
}

/** `7.4.6-22.rhel8-openshift` -> `7.4.6-22`: what the cluster's management API reports. */
function serverVersionOf(tag: string): string {
  return /^\d+\.\d+\.\d+-\d+/.exec(tag)?.[0] ?? tag;
}

function compareOperators(a: string, b: string): number {
  const parts = (v: string) => v.split(/[.-]/).map(Number);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i += 1) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
