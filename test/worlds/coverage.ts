/**
 * COVERAGE: every scenario key the simulator accepts (src/sim/scenario/schema.ts, SIMULATOR.md),
 * and whether the world generator draws it (with which values), or why it leaves it out.
 * coverage.test.ts keeps this table honest both ways: a key schema.ts gains must be added here,
 * and a key marked drawn must show up in the sampled worlds (with each value listed in `values`).
 *
 * Keys are the schema's leaves: `a.b` for an object's field, `a[]` for a list's entries.
 */

export type KeyCoverage =
  | {
      /** Where and how it is drawn. */
      drawn: string;
      /** Values the sampled worlds must each show at least once (enums and flags). */
      values?: readonly unknown[];
    }
  | { leftOut: string };

/** Every key a world may carry is a key of a real cluster, drawn by the simulator's own facts. */
export const SCENARIO_KEY_COVERAGE: Readonly<Record<string, KeyCoverage>> = {
  name: { leftOut: "the scenario file's own name: nothing on the cluster carries it, ctl never sees it" },
  description: { leftOut: 'one line for people: nothing on the cluster carries it' },
  dialect: { drawn: 'arbitrary.ts: engine or redis field names', values: ['engine', 'redis'] },
  platform: { drawn: 'arbitrary.ts', values: ['kubernetes', 'openshift'] },
  namespace: {
    drawn: 'arbitrary.ts namespaceName: random DNS-1123 labels, digits first, YAML-tricky, 63 long',
    values: ['y', 'null'],
  },
  kubernetesVersion: { drawn: 'arbitrary.ts platform(): one the start and target support, or a blocker' },
  openshiftVersion: { drawn: 'arbitrary.ts platform(); settings.ts adds a patch number now and then' },
  'releases[].operator': {
    drawn:
      "settings.ts NEWER_RELEASES: a release ctl's catalog does not know, newest line or an older line's",
    values: ['8.2.0-25', '7.22.2-47'],
  },
  'releases[].rs': { drawn: 'settings.ts NEWER_RELEASES' },
  'releases[].databaseVersions': { drawn: 'settings.ts NEWER_RELEASES' },
  'releases[].defaultDatabaseVersion': { drawn: 'settings.ts NEWER_RELEASES' },
  'releases[].kubernetes.supported': { drawn: 'settings.ts NEWER_RELEASES' },
  'releases[].kubernetes.deprecated': { drawn: 'settings.ts NEWER_RELEASES' },
  'releases[].openshift.supported': { drawn: 'settings.ts NEWER_RELEASES' },
  'releases[].openshift.deprecated': { drawn: 'settings.ts NEWER_RELEASES' },
  'releases[].variants': {
    leftOut:
      'the minimal image variant of a release: which image a cluster runs is drawn through the catalog releases, and a newer release only has to be offered',
  },
  'timing.operatorStart': {
    drawn:
      'arbitrary.ts TIMING: a quarter of the worlds, short waits (the others run every wait at zero, try-world.ts)',
  },
  'timing.podRestart': { drawn: 'arbitrary.ts TIMING' },
  'timing.databaseUpgrade': { drawn: 'arbitrary.ts TIMING' },
  'timing.failover': { drawn: 'arbitrary.ts TIMING' },
  'operator.version': {
    drawn:
      'arbitrary.ts START_OPERATORS (every line from 6.4.2, old and newest builds) and ANY_START_OPERATOR (any release from 7.2.4-2)',
  },
  'operator.installedBy': { drawn: 'arbitrary.ts install()', values: ['bundle', 'helm', 'olm'] },
  'operator.olm.channel': {
    drawn:
      "arbitrary.ts: the release line's channel, production, the bundle's own, or stable (not in the catalog)",
    values: ['stable'],
  },
  'operator.olm.approval': { drawn: 'arbitrary.ts', values: ['Manual', 'Automatic'] },
  'operator.olm.startingCSV': {
    drawn: "arbitrary.ts: the certified bundle's CSV name, with its rebuild suffix or without",
  },
  'operator.olm.skips': { drawn: 'situations.ts: none, all or the next release only' },
  'operator.olm.operatorImageByDigest': { drawn: 'arbitrary.ts', values: [true] },
  'operator.olm.webhookCa': { drawn: 'arbitrary.ts', values: ['olm', 'operator'] },
  'operator.olm.installFailure': {
    drawn: 'situations.ts (InvalidStrategy: stopsThenBlocks olm-csv-healthy)',
    values: ['InstallCheckFailed', 'InvalidStrategy'],
  },
  'operator.helmRelease': { drawn: 'arbitrary.ts: a random release name, up to 53 characters' },
  'operator.watchNamespaces': { drawn: 'arbitrary.ts: up to three more namespaces holding databases' },
  'operator.helmValues': { drawn: "settings.ts: helm installs pinning operator.image.tag to the start's" },
  'operator.roleRefKind': { drawn: 'arbitrary.ts', values: ['Role', 'ClusterRole'] },
  'admission.enabled': { drawn: 'settings.ts: no webhook now and then', values: [false] },
  'admission.webhookName': {
    drawn: "settings.ts: redb-admission, the pre-6.4.2 bundles' name, left on a bundle install",
    values: ['redb-admission'],
  },
  'cluster.name': { drawn: 'arbitrary.ts label(): random, YAML-tricky names too, up to 40 characters' },
  'cluster.nodes': { drawn: 'arbitrary.ts', values: [3, 5] },
  'cluster.versionTag': {
    drawn:
      "arbitrary.ts laggingClusterTag: the RS of the release before the operator's (the operator upgraded, the cluster not yet); otherwise the default",
  },
  'cluster.repository': {
    drawn:
      "arbitrary.ts: Red Hat's registry on OpenShift (a mirror is not drawn: the simulated registry knows these two)",
  },
  'cluster.autoUpgrade': { drawn: 'arbitrary.ts', values: [true] },
  'cluster.upgradePolicy': { drawn: 'settings.ts', values: ['major', 'latest'] },
  'cluster.digestHash': { drawn: 'arbitrary.ts: with auto-upgrade, the pinned-digest blocker' },
  'cluster.imageSpecs.rigger.repository': {
    leftOut:
      'situations.ts pins the version (and digest) only: a mirror repository would need the simulated registry to hold it',
  },
  'cluster.imageSpecs.rigger.versionTag': { drawn: 'situations.ts pinnedImages' },
  'cluster.imageSpecs.rigger.digestHash': { drawn: 'situations.ts pinnedDigest (OLM installs)' },
  'cluster.imageSpecs.bootstrapper.repository': { leftOut: 'see cluster.imageSpecs.rigger.repository' },
  'cluster.imageSpecs.bootstrapper.versionTag': { drawn: 'situations.ts pinnedImages' },
  'cluster.imageSpecs.bootstrapper.digestHash': { drawn: 'situations.ts pinnedDigest (OLM installs)' },
  'cluster.imageSpecs.callHomeClient.repository': { leftOut: 'see cluster.imageSpecs.rigger.repository' },
  'cluster.imageSpecs.callHomeClient.versionTag': { drawn: 'situations.ts pinnedImages' },
  'cluster.imageSpecs.callHomeClient.digestHash': { drawn: 'situations.ts pinnedDigest (OLM installs)' },
  'cluster.licenseIn': { drawn: 'arbitrary.ts', values: ['spec'] },
  'cluster.statefulSetStrategy': { drawn: 'arbitrary.ts', values: ['OnDelete'] },
  'cluster.autoUpgradeWritesSpec': { drawn: 'settings.ts: with auto-upgrade', values: [false] },
  'cluster.license': {
    drawn: 'arbitrary.ts: the license blocker (license-valid)',
    values: ['Invalid', 'Expired'],
  },
  'cluster.allowAutoAdjustment': { drawn: 'settings.ts', values: [true] },
  'cluster.apiVersion': {
    leftOut:
      "what the API reports follows the cluster's RS image (cluster.versionTag); one that disagrees with it is no real cluster",
  },
  'cluster.users[].username': { drawn: 'api-users.ts: mixed case, + and . in the address' },
  'cluster.users[].password': {
    leftOut: 'no secret in a scenario (the house rules): the simulator draws a random one',
  },
  'cluster.users[].role': {
    drawn: 'api-users.ts: every management role the RS has',
    values: ['admin', 'cluster_member', 'cluster_viewer', 'db_member', 'db_viewer', 'user_manager', 'none'],
  },
  'cluster.users[].roles': { drawn: 'api-users.ts: built-in roles by name, or a role of the cluster' },
  'cluster.users[].passwordExpired': { drawn: 'api-users.ts: a former admin', values: [true] },
  'cluster.users[].listed': { drawn: 'api-users.ts: an LDAP user', values: [false] },
  'cluster.roles[].name': { drawn: 'api-users.ts: names of its own, one like a management role' },
  'cluster.roles[].management': { drawn: 'api-users.ts' },
  'cluster.roles[].databases': { drawn: 'api-users.ts: RS 8.2 db roles, by name or namespace/name' },
  'openshift.sccBinding': { drawn: 'arbitrary.ts', values: ['users', 'rbac'] },
  'openshift.sccOwner': { drawn: 'settings.ts: helm installs', values: ['helm'] },
  'openshift.sccVersion': { drawn: 'settings.ts: an older release (an SCC never reapplied)' },
  'openshift.sharedWith': { drawn: "settings.ts: another team's namespace" },
  'modules[].name': { drawn: 'arbitrary.ts MODULES: bundled, deprecated and custom' },
  'modules[].version': { drawn: 'arbitrary.ts MODULES' },
  'modules[].platforms': { drawn: 'arbitrary.ts MODULES: with and without a rhel9 build' },
  'modules[].kind': { drawn: "arbitrary.ts MODULES: custom (the user's own)", values: ['custom'] },
  'databases[].name': { drawn: 'arbitrary.ts label(): up to 45 characters' },
  'databases[].namespace': { drawn: "arbitrary.ts: the cluster's or a watched one" },
  'databases[].version': { drawn: 'arbitrary.ts: versions the start and target bundle, or too old' },
  'databases[].uid': { drawn: 'settings.ts: sparse uids' },
  'databases[].modules[].name': { drawn: 'arbitrary.ts' },
  'databases[].modules[].version': { drawn: 'arbitrary.ts' },
  'databases[].activeActive': { drawn: 'arbitrary.ts (with remote participants)', values: [true] },
  'databases[].participants': { drawn: 'arbitrary.ts' },
  'databases[].upgradePolicy': { drawn: 'settings.ts', values: ['major', 'latest'] },
  'databases[].memorySize': { drawn: 'settings.ts' },
  'databases[].shardCount': { drawn: "settings.ts: the REDB's spelling of shards" },
  'databases[].shards': { drawn: 'arbitrary.ts', values: [2] },
  'databases[].replication': { drawn: 'arbitrary.ts', values: [false] },
  'remoteClusters[].name': { drawn: 'arbitrary.ts' },
  'remoteClusters[].rsVersion': { drawn: 'arbitrary.ts PARTICIPANT_RS' },
  'remoteClusters[].operator': { drawn: 'arbitrary.ts PARTICIPANT_OPERATORS' },
  'remoteClusters[].reachable': { drawn: 'situations.ts silentParticipant', values: [false] },
  'faults[].api': { drawn: 'arbitrary.ts TRANSIENT_FAULTS', values: ['rest', 'kube'] },
  'faults[].match': { drawn: 'arbitrary.ts TRANSIENT_FAULTS' },
  'faults[].status': { drawn: 'arbitrary.ts TRANSIENT_FAULTS' },
  'faults[].times': { drawn: 'arbitrary.ts TRANSIENT_FAULTS' },
  'faults[].rate': { drawn: 'arbitrary.ts TRANSIENT_FAULTS' },
  'faults[].kind': { drawn: 'arbitrary.ts TRANSIENT_FAULTS', values: ['reset', 'delay', 'echo'] },
  'faults[].delayMs': { drawn: 'arbitrary.ts TRANSIENT_FAULTS' },
  'faults[].seed': { drawn: 'arbitrary.ts TRANSIENT_FAULTS' },
  'faults[].dropAfterSeconds': { drawn: 'arbitrary.ts TRANSIENT_FAULTS' },
  'api.modulesUpload': { drawn: 'situations.ts (RS 8.2 clusters)', values: ['disabled'] },
  'api.headerFormAnswer': { drawn: 'settings.ts', values: [401] },
  'api.clusterCreatedTime': { drawn: 'settings.ts', values: ['absent'] },
  objects: {
    leftOut:
      'free-form Kubernetes objects: each situation they could make is drawn through a key of its own, which says what it means',
  },
  'generate.databases.count': { drawn: 'settings.ts: one to three' },
  'generate.databases.namespaces': { drawn: 'settings.ts', values: [1, 2] },
  'generate.databases.version': { drawn: 'settings.ts: a version the world fits' },
  'generate.databases.prefix': { drawn: 'settings.ts' },
  'generate.databases.moduleEvery': { drawn: 'settings.ts' },
  'generate.modules.count': { drawn: 'settings.ts' },
  'generate.modules.prefix': { drawn: 'settings.ts' },
  'generate.modules.version': { drawn: 'settings.ts' },
  'generate.modules.platforms': {
    leftOut:
      'the default (rhel8 and rhel9 builds): a module without a rhel9 build is drawn through modules[]',
  },
};

/** Every leaf key a generated scenario carries, with the values it had there. */
export function collectKeys(value: unknown, path: string, seen: Map<string, Set<unknown>>): void {
  if (Array.isArray(value)) {
    if (value.some((item) => item !== null && typeof item === 'object'))
      for (const item of value) collectKeys(item, `${path}[]`, seen);
    else remember(seen, path, value);
    return;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    // A free-form object (helmValues, objects): the key itself is the leaf.
    if (path in SCENARIO_KEY_COVERAGE) remember(seen, path, value);
    else for (const [key, field] of entries) collectKeys(field, path ? `${path}.${key}` : key, seen);
    return;
  }
  remember(seen, path, value);
}

function remember(seen: Map<string, Set<unknown>>, path: string, value: unknown): void {
  const values = seen.get(path) ?? new Set<unknown>();
  values.add(value);
  seen.set(path, values);
}

/** What a sample of worlds lacks of what the table says is drawn: empty when it is honest. */
export function undrawnKeys(scenarios: Iterable<Record<string, unknown>>): string[] {
  const seen = new Map<string, Set<unknown>>();
  for (const scenario of scenarios) collectKeys(scenario, '', seen);
  const problems: string[] = [];
  for (const [key, coverage] of Object.entries(SCENARIO_KEY_COVERAGE)) {
    if (!('drawn' in coverage)) continue;
    const values = seen.get(key);
    if (!values) problems.push(`${key} (said to be drawn: ${coverage.drawn}): in no sampled world`);
    else
      for (const value of coverage.values ?? [])
        if (!values.has(value)) problems.push(`${key}: no sampled world has ${JSON.stringify(value)}`);
  }
  return problems;
}
