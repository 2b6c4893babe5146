/**
 * Scenario keys that shape a world without a blocker of their own (SIMULATOR.md, "Scenario file"
 * and "Scenario keys for real-world situations"; src/sim/scenario/schema.ts). Each is drawn
 * now and then over a world arbitrary.ts has built; none is meant to stop the plan, so a plan
 * that stays Ready must finish with them (the property), and a blocked world stays blocked by its
 * own check:
 *
 * - `cluster.upgradePolicy`, `databases[].upgradePolicy` (major or latest: the REDB's version
 *   field then holds the policy, not a version), `databases[].memorySize`, `uid` (sparse, as on
 *   a cluster whose databases came and went), `shardCount` (the REDB's own spelling of `shards`);
 * - `admission.enabled: false` (no webhook), and on a bundle install `admission.webhookName:
 *   redb-admission`, the name bundles before 6.4.2 gave it, left behind by an old install
 *   (redis-facts.md §1);
 * - `operator.helmValues` pinning the operator's image tag (helm installs: the value survives
 *   `--reset-then-reuse-values`, src/planning/helm-values.ts);
 * - on OpenShift: `openshift.sccOwner: helm` (helm installs), `sccVersion` of an older release
 *   (an SCC never reapplied since), `sharedWith` another namespace, a patch `openshiftVersion`;
 * - `cluster.allowAutoAdjustment`, `cluster.autoUpgradeWritesSpec: false` (with auto-upgrade);
 * - `api.headerFormAnswer: 401` (pre-7.8.2 APIs), `api.clusterCreatedTime: absent`;
 * - `generate`: a few generated databases (and a generated module), over one or two namespaces;
 * - `releases`: a release the simulated world has and ctl's catalog does not (published after
 *   ctl was built): its OperatorHub catalog, helm repository and bundle server offer it. A
 *   newest line's build (8.2.0-25, SIMULATOR.md's example), which heads `production`, or an
 *   older line's maintenance build (7.22.2-47), which heads its line's channel.
 */

import fc from 'fast-check';
import { sccAllowsEscalation } from '../helpers/simulator.js';

export interface SettingsDraw {
  clusterPolicy: 'major' | 'latest' | null;
  databasePolicy: { index: number; policy: 'major' | 'latest' } | null;
  memorySize: string | null;
  sparseUids: boolean;
  shardCountKey: boolean;
  admissionOff: boolean;
  legacyWebhook: boolean;
  helmPinnedTag: boolean;
  sccOwnerHelm: boolean;
  olderScc: boolean;
  sharedWith: boolean;
  openshiftPatch: number | null;
  allowAutoAdjustment: boolean;
  autoUpgradeKeepsSpec: boolean;
  headerFormAnswer401: boolean;
  noCreatedTime: boolean;
  generate: { count: number; namespaces: number; prefix: string; withModule: boolean } | null;
  /** Index into NEWER_RELEASES. */
  newerRelease: number | null;
}

/**
 * Releases newer than ctl's catalog, with facts like their line's newest (the 8.2.0-18 and
 * 7.22.2-45 rows of src/sim/world: RS image, bundled database versions, platforms).
 */
const NEWER_RELEASES = [
  {
    operator: '8.2.0-25',
    rs: '8.2.0-80.25',
    databaseVersions: ['6.2', '7.2', '7.4', '8.0', '8.2', '8.4', '8.6'],
    defaultDatabaseVersion: '8.6',
    kubernetes: { supported: ['1.33', '1.34', '1.35', '1.36'], deprecated: ['1.32'] },
    openshift: { supported: ['4.20', '4.21', '4.22'], deprecated: ['4.19'] },
  },
  {
    operator: '7.22.2-47',
    rs: '7.22.2-195',
    databaseVersions: ['6.2', '7.2', '7.4'],
    defaultDatabaseVersion: '7.4',
    kubernetes: { supported: ['1.31', '1.32', '1.33'], deprecated: ['1.30'] },
    openshift: { supported: ['4.18', '4.19', '4.20'], deprecated: ['4.17'] },
  },
] as const;

/** `value` with probability 1 / (1 + against), else null. */
function rarely<T>(value: fc.Arbitrary<T>, against: number): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: against, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: value });
}

/** true with probability 1 / (1 + against). */
function seldom(against: number): fc.Arbitrary<boolean> {
  return fc.oneof(
    { weight: against, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  );
}

const policy = fc.constantFrom('major' as const, 'latest' as const);

export const settingsArbitrary: fc.Arbitrary<SettingsDraw> = fc.record({
  clusterPolicy: rarely(policy, 2),
  databasePolicy: rarely(fc.record({ index: fc.nat({ max: 3 }), policy }), 2),
  memorySize: rarely(fc.constantFrom('100MB', '1GB', '2.5GB'), 2),
  sparseUids: seldom(2),
  shardCountKey: fc.boolean(),
  admissionOff: seldom(6),
  legacyWebhook: seldom(4),
  helmPinnedTag: seldom(2),
  sccOwnerHelm: seldom(1),
  olderScc: seldom(3),
  sharedWith: seldom(3),
  openshiftPatch: rarely(fc.nat({ max: 40 }), 2),
  allowAutoAdjustment: seldom(3),
  autoUpgradeKeepsSpec: seldom(1),
  headerFormAnswer401: seldom(2),
  noCreatedTime: seldom(4),
  generate: rarely(
    fc.record({
      count: fc.integer({ min: 1, max: 3 }),
      namespaces: fc.integer({ min: 1, max: 2 }),
      prefix: fc.constantFrom('gen', 'cache', 'x', 'sessions-eu'),
      withModule: fc.boolean(),
    }),
    5,
  ),
  newerRelease: rarely(fc.nat({ max: NEWER_RELEASES.length - 1 }), 3),
});

export interface SettingsContext {
  /** Releases older than the world's operator (for an SCC from an older bundle). */
  olderOperators: readonly string[];
  /** Database versions the world's databases may run (before and after the upgrade). */
  databaseVersions: readonly string[];
  /**
   * The first database is the old-database blocker's: it keeps its version field, as a REDB
   * whose version is major or latest is upgraded by the operator at once (redisVersion in redis/docs
   * kubernetes/reference/api/redis_enterprise_database_api.md; src/sim/operator/database-versions.ts),
   * and would not stay old.
   */
  firstDatabaseKeepsVersion: boolean;
}

/** Writes the drawn settings into a generated scenario (in place). */
export function applySettings(
  scenario: Record<string, unknown>,
  draw: SettingsDraw,
  context: SettingsContext,
): void {
  const operator = scenario.operator as Record<string, unknown> & { version: string; installedBy: string };
  const cluster = scenario.cluster as Record<string, unknown>;
  const databases = scenario.databases as Record<string, unknown>[];
  const namespace = scenario.namespace as string;
  const onOpenShift = scenario.platform === 'openshift';

  if (draw.clusterPolicy) cluster.upgradePolicy = draw.clusterPolicy;
  if (draw.databasePolicy && databases.length > 0) {
    const index = draw.databasePolicy.index % databases.length;
    if (!(index === 0 && context.firstDatabaseKeepsVersion))
      databases[index]!.upgradePolicy = draw.databasePolicy.policy;
  }
  if (draw.memorySize && databases.length > 0) databases[0]!.memorySize = draw.memorySize;
  if (draw.sparseUids) databases.forEach((db, i) => (db.uid = 3 + i * 17));
  if (draw.shardCountKey)
    for (const db of databases) {
      if (db.shards === undefined) continue;
      db.shardCount = db.shards;
      delete db.shards;
    }

  const admission: Record<string, unknown> = {};
  if (draw.admissionOff) admission.enabled = false;
  if (draw.legacyWebhook && operator.installedBy === 'bundle') admission.webhookName = 'redb-admission';
  if (Object.keys(admission).length > 0) scenario.admission = admission;

  if (draw.helmPinnedTag && operator.installedBy === 'helm')
    operator.helmValues = { operator: { image: { tag: operator.version } } };

  if (onOpenShift) {
    const openshift = (scenario.openshift ?? {}) as Record<string, unknown>;
    if (draw.sccOwnerHelm && operator.installedBy === 'helm') openshift.sccOwner = 'helm';
    else if (draw.olderScc) {
      // Only an SCC that admits the running pods: from 7.22.0-6 on, the node container asks for
      // allowPrivilegeEscalation, which the SCC of 7.8.6-15 and before refuses (K8S
      // openshift/scc.yaml at v7.8.6-15 and v7.22.0-7; src/sim/artifacts/openshift-scc.ts), so
      // a cluster of a 7.22 operator under an older SCC would never have run.
      const era = sccAllowsEscalation(operator.version);
      const older = context.olderOperators.find((release) => sccAllowsEscalation(release) === era);
      if (older) openshift.sccVersion = older;
    }
    const other = namespace === 'other-team' ? 'other-team-2' : 'other-team';
    if (draw.sharedWith) openshift.sharedWith = [other];
    scenario.openshift = openshift;
    if (draw.openshiftPatch !== null && typeof scenario.openshiftVersion === 'string')
      scenario.openshiftVersion = `${scenario.openshiftVersion}.${draw.openshiftPatch}`;
  }
  if (draw.allowAutoAdjustment) cluster.allowAutoAdjustment = true;
  if (draw.autoUpgradeKeepsSpec && cluster.autoUpgrade === true) cluster.autoUpgradeWritesSpec = false;

  const api = (scenario.api ?? {}) as Record<string, unknown>;
  if (draw.headerFormAnswer401) api.headerFormAnswer = 401;
  if (draw.noCreatedTime) api.clusterCreatedTime = 'absent';
  if (Object.keys(api).length > 0) scenario.api = api;

  if (draw.generate) applyGenerate(scenario, draw.generate, context);
  if (draw.newerRelease !== null) {
    const release = NEWER_RELEASES[draw.newerRelease]!;
    scenario.releases = [
      {
        ...release,
        databaseVersions: [...release.databaseVersions],
        kubernetes: {
          supported: [...release.kubernetes.supported],
          deprecated: [...release.kubernetes.deprecated],
        },
        openshift: {
          supported: [...release.openshift.supported],
          deprecated: [...release.openshift.deprecated],
        },
      },
    ];
  }
}

function applyGenerate(
  scenario: Record<string, unknown>,
  draw: NonNullable<SettingsDraw['generate']>,
  context: SettingsContext,
): void {
  const namespace = scenario.namespace as string;
  const clusterName = (scenario.cluster as { name: string }).name;
  const operator = scenario.operator as { watchNamespaces?: string[] };
  const databases = scenario.databases as { name: string }[];
  const version = context.databaseVersions[0];
  // The generated names (<prefix>-<n>, namespaces <namespace>-02): none may clash with drawn ones.
  const names = Array.from({ length: draw.count }, (_, i) => `${draw.prefix}-${i + 1}`);
  const second = `${namespace}-02`;
  if (
    !version ||
    names.some((name) => name === clusterName || name.startsWith(`${clusterName}-`)) ||
    databases.some((db) => names.includes(db.name)) ||
    (draw.namespaces > 1 && (second.length > 63 || (operator.watchNamespaces ?? []).includes(second)))
  )
    return;
  scenario.generate = {
    databases: {
      count: draw.count,
      namespaces: draw.namespaces,
      version,
      prefix: draw.prefix,
      ...(draw.withModule ? { moduleEvery: 2 } : {}),
    },
    // A custom module of the user's (no RS ships it), with both builds.
    ...(draw.withModule ? { modules: { count: 1, prefix: 'acme-gen', version: '1.0.2' } } : {}),
  };
  // The generated namespaces are watched: the operator needs its RoleBindings there too.
  if (draw.namespaces > 1 && !('roleRefKind' in (scenario.operator as object)))
    (scenario.operator as Record<string, unknown>).roleRefKind = 'Role';
}
