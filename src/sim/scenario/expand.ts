/**
 * From a schema-valid scenario file to a complete Scenario: expands the `generate` section,
 * fills the defaults that depend on other fields, and runs the checks that span fields.
 * Problems are returned, not thrown, so the caller reports them all at once with line numbers.
 */

import { randomBytes } from 'node:crypto';
import { parseCsvName, scenarioCatalog, PRODUCTION_CHANNEL } from '../olm/catalog.js';
import {
  clusterVersionObject,
  fullOpenShiftVersion,
  kubernetesOfOpenShift,
  openShiftOfKubernetes,
} from '../world/cluster-version.js';
import { defaultModuleKind, moduleKindProblem } from '../world/module-kinds.js';
import { compareNumbers, operatorNumbers, rsOfTag } from '../world/versions.js';
import { SimWorld, worldOf } from '../world/world.js';
import {
  BUILT_IN_ROLES,
  managementRolesOn,
  ROLE_RESOURCES_SINCE,
  rsAtLeast,
  SCOPABLE_ROLES,
} from '../rest/access.js';
import { compareVersions, MODULES_UPLOAD_SETTING_SINCE } from '../rest/model.js';
import type { Scenario, ScenarioDatabase, ScenarioFault, ScenarioFile, ScenarioModule } from './schema.js';

/** The helm release of a helm install that names none: SIMULATOR.md's example. */
const DEFAULT_HELM_RELEASE = 'redis-enterprise';

export type FieldPath = (string | number)[];
export interface Problem {
  path: FieldPath;
  message: string;
}

export function resolveScenario(file: ScenarioFile): { scenario: Scenario; problems: Problem[] } {
  const problems: Problem[] = [];
  const report = (path: FieldPath, message: string) => problems.push({ path, message });

  if (file.operator.olm && file.operator.installedBy !== 'olm')
    report(['operator', 'olm'], 'only used when operator.installedBy is olm');
  const { generate, ...rest } = file;
  const modules = [...file.modules, ...generatedModules(file)];
  const generated = generatedDatabases(file, modules, report);
  const listed = file.operator.watchNamespaces;
  const watchNamespaces = [
    ...listed,
    ...generated.namespaces.filter((namespace) => !listed.includes(namespace)),
  ];

  // SIMULATOR.md's own example gives a bundle install a helmRelease "when installedBy: helm":
  // a setting that does not apply is ignored, not refused; a helm install without one gets the
  // example's release name.
  const helmRelease =
    file.operator.installedBy === 'helm' ? (file.operator.helmRelease ?? DEFAULT_HELM_RELEASE) : null;
  const world = new SimWorld(file.releases);
  const versionTag = file.cluster.versionTag ?? world.defaultClusterTag(file.operator.version, file.platform);
  const platform = platformVersions(file);
  if (versionTag === undefined)
    report(
      ['cluster', 'versionTag'],
      `required: the simulated world knows no RS image of operator ${file.operator.version} to default to`,
    );
  else if (!world.clusterTagPublished(versionTag))
    report(
      ['cluster', 'versionTag'],
      `RS image ${versionTag} was never published: its release has no such variant (.minimal images exist from operator 8.0.18-11 on)`,
    );

  const scenario: Scenario = {
    ...rest,
    ...platform,
    // platform: openshift answers `oc get clusterversion` (unless the scenario brings its own).
    objects:
      platform.openshiftVersion && !file.objects.some((object) => object.kind === 'ClusterVersion')
        ? [clusterVersionObject(platform.openshiftVersion), ...file.objects]
        : file.objects,
    operator: {
      ...file.operator,
      watchNamespaces,
      helmRelease,
      olm:
        file.operator.installedBy === 'olm'
          ? {
              channel: file.operator.olm?.channel ?? PRODUCTION_CHANNEL,
              approval: file.operator.olm?.approval ?? 'Manual',
              startingCSV:
                file.operator.olm?.startingCSV ?? `redis-enterprise-operator.v${file.operator.version}`,
              operatorImageByDigest: file.operator.olm?.operatorImageByDigest ?? false,
              skips: file.operator.olm?.skips ?? 'catalog',
              webhookCa: file.operator.olm?.webhookCa ?? 'olm',
              installFailure: file.operator.olm?.installFailure ?? 'none',
            }
          : null,
    },
    admission: {
      enabled: file.admission.enabled,
      webhookName: file.admission.webhookName ?? defaultWebhookName(file),
    },
    cluster: {
      ...file.cluster,
      versionTag: versionTag ?? '',
      apiVersion: file.cluster.apiVersion ?? serverVersionOf(versionTag ?? ''),
      // A user without a password (a captured scenario) gets a new random one.
      users: file.cluster.users.map((user) => ({
        ...user,
        password: user.password ?? randomBytes(18).toString('base64url'),
      })),
    },
    modules: withModuleKinds(modules, file.cluster.apiVersion ?? serverVersionOf(versionTag ?? '')),
    databases: assignUids(
      [...file.databases, ...generated.databases].map((database) => ({
        ...database,
        // One count of master shards: `shards` (SIMULATOR.md) or the REDB's `shardCount`.
        ...(database.shards !== undefined ? { shardCount: database.shards } : {}),
        namespace: database.namespace ?? file.namespace,
        // No version given: the database uses the module as installed (the first one listed).
        modules: database.modules.map((used) => ({
          name: used.name,
          version: used.version ?? modules.find((module) => module.name === used.name)?.version ?? '',
        })),
      })),
    ),
    faults: file.faults.map(withFaultKind),
  };

  checkReleases(scenario, report);
  checkPlatformVersions(file, report);
  checkOperator(scenario, report);
  checkOpenShift(scenario, report);
  checkModules(scenario, report);
  checkModulesUpload(scenario, report);
  checkRoles(scenario, report);
  checkDatabases(scenario, report);
  checkRemoteClusters(scenario, report);
  checkFaults(scenario.faults, report);
  file.databases.forEach((database, i) => {
    if (
      database.shards !== undefined &&
      database.shardCount !== undefined &&
      database.shardCount !== database.shards
    )
      report(
        ['databases', i, 'shards'],
        `shards ${database.shards} and shardCount ${database.shardCount} disagree: give one`,
      );
  });
  if (generate?.databases?.moduleEvery && !generate.modules)
    report(['generate', 'databases', 'moduleEvery'], 'needs generate.modules to draw modules from');
  return { scenario, problems };
}

// ---- generators ----------------------------------------------------------------------------

const pad = (index: number, count: number) => String(index).padStart(String(count).length, '0');

function generatedModules(file: ScenarioFile): ScenarioModule[] {
  const spec = file.generate?.modules;
  if (!spec) return [];
  return Array.from({ length: spec.count }, (_, i) => ({
    name: `${spec.prefix}-${pad(i + 1, spec.count)}`,
    version: spec.version,
    platforms: [...spec.platforms],
  }));
}

/** The scenario namespace first, then `<namespace>-02 … -NN`, each watched by the operator. */
function generatedNamespaces(base: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    i === 0 ? base : `${base}-${pad(i + 1, Math.max(count, 10))}`,
  );
}

function generatedDatabases(
  file: ScenarioFile,
  modules: ScenarioModule[],
  report: (path: FieldPath, message: string) => void,
): { databases: ScenarioFile['databases']; namespaces: string[] } {
  const spec = file.generate?.databases;
  if (!spec) return { databases: [], namespaces: [] };
  const namespaces = generatedNamespaces(file.namespace, spec.namespaces);
  const tooLong = namespaces.find((namespace) => namespace.length > 63);
  if (tooLong)
    report(['generate', 'databases', 'namespaces'], `namespace "${tooLong}" would exceed 63 characters`);
  const pool = modules.slice(file.modules.length);
  const databases = Array.from({ length: spec.count }, (_, i) => {
    const usesModule = spec.moduleEvery > 0 && pool.length > 0 && (i + 1) % spec.moduleEvery === 0;
    const module = usesModule ? pool[i % pool.length] : undefined;
    return {
      name: `${spec.prefix}-${pad(i + 1, spec.count)}`,
      namespace: namespaces[i % namespaces.length],
      version: spec.version,
      modules: module ? [{ name: module.name, version: module.version }] : [],
      activeActive: false,
      participants: [],
      upgradePolicy: null,
    };
  });
  return { databases, namespaces: namespaces.slice(1) };
}

// ---- defaults that depend on other fields --------------------------------------------------

/** kubernetesVersion and openshiftVersion, each derived from the other when absent. */
function platformVersions(file: ScenarioFile): {
  kubernetesVersion: string;
  openshiftVersion: string | null;
} {
  if (file.platform !== 'openshift')
    return { kubernetesVersion: file.kubernetesVersion ?? '1.32', openshiftVersion: null };
  const kubernetesVersion =
    file.kubernetesVersion ?? (file.openshiftVersion ? kubernetesOfOpenShift(file.openshiftVersion) : '1.32');
  const openshiftVersion = file.openshiftVersion
    ? fullOpenShiftVersion(file.openshiftVersion)
    : openShiftOfKubernetes(kubernetesVersion);
  return { kubernetesVersion, openshiftVersion };
}

/** `7.4.6-22.rhel8-openshift` or `8.0.18-36.14` -> `7.4.6-22` / `8.0.18-36`: the API's own version. */
function serverVersionOf(versionTag: string): string {
  return /^\d+\.\d+\.\d+-\d+/.exec(versionTag)?.[0] ?? versionTag;
}

/** Numeric comparison of dotted/dashed versions, enough for the few thresholds here. */
function isBelow(version: string, threshold: string): boolean {
  const parts = (text: string) => text.split(/[.-]/).map((part) => Number.parseInt(part, 10) || 0);
  const [a, b] = [parts(version), parts(threshold)];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return difference < 0;
  }
  return false;
}

/**
 * The helm chart names the webhook per namespace (admission.limitToNamespace defaults to true);
 * bundles before 6.4.2 named it redb-admission (redis-facts.md §1).
 */
function defaultWebhookName(file: ScenarioFile): string {
  if (file.operator.installedBy === 'helm') return `redis-enterprise-admission-${file.namespace}`;
  return isBelow(file.operator.version, '6.4.2') ? 'redb-admission' : 'redis-enterprise-admission';
}

function assignUids(databases: (Omit<ScenarioDatabase, 'uid'> & { uid?: number })[]): ScenarioDatabase[] {
  const taken = new Set(databases.flatMap((database) => (database.uid === undefined ? [] : [database.uid])));
  let next = 1;
  return databases.map((database) => {
    if (database.uid !== undefined) return { ...database, uid: database.uid };
    while (taken.has(next)) next++;
    taken.add(next);
    return { ...database, uid: next };
  });
}

function withFaultKind(fault: ScenarioFault): ScenarioFault {
  if (fault.kind !== undefined) return fault;
  if (fault.status !== undefined) return { ...fault, kind: 'status' };
  if (fault.delayMs !== undefined) return { ...fault, kind: 'delay' };
  return fault;
}

// ---- checks across fields ------------------------------------------------------------------

type Report = (path: FieldPath, message: string) => void;

function checkOperator(scenario: Scenario, report: Report): void {
  const { operator } = scenario;
  checkOlm(scenario, report);
  operator.watchNamespaces.forEach((namespace, i) => {
    if (namespace === scenario.namespace)
      report(
        ['operator', 'watchNamespaces', i],
        `"${namespace}" is the operator's own namespace, always watched`,
      );
    else if (operator.watchNamespaces.indexOf(namespace) !== i)
      report(['operator', 'watchNamespaces', i], `"${namespace}" is listed twice`);
  });
}

/**
 * OperatorHub: the installed release in the channel (any name is a channel: see
 * src/sim/olm/catalog.ts), startingCSV naming it (with or without a rebuild suffix), the
 * releases of `skips` newer than it.
 */
function checkOlm(scenario: Scenario, report: Report): void {
  const { operator } = scenario;
  if (operator.installedBy !== 'olm' || !operator.olm) return;
  const { channel, startingCSV, skips } = operator.olm;
  const parsed = parseCsvName(startingCSV);
  const catalog = scenarioCatalog(
    operator.olm,
    operator.version,
    worldOf(scenario),
    scenario.openshiftVersion,
  );
  // A channel the catalog does not have is allowed: OLM then fails to resolve the Subscription
  // (ResolutionFailed), as a real one on a misspelt channel does.
  if (catalog.channels().includes(channel) && !catalog.channelVersions(channel).includes(operator.version))
    report(
      ['operator', 'olm', 'channel'],
      `channel "${channel}" does not offer operator ${operator.version} (its channels: ${catalog.channelsOf(operator.version).join(', ')})`,
    );
  if (parsed?.version !== operator.version)
    report(
      ['operator', 'olm', 'startingCSV'],
      `expected redis-enterprise-operator.v${operator.version} (or with a rebuild suffix, e.g. .0): the CSV of operator.version`,
    );
  if (Array.isArray(skips)) {
    const released = worldOf(scenario).operatorVersions();
    skips.forEach((version, i) => {
      if (!released.includes(version))
        report(['operator', 'olm', 'skips', i], `operator ${version} is not a release the simulator knows`);
      else if (compareNumbers(operatorNumbers(version) ?? [], operatorNumbers(operator.version) ?? []) <= 0)
        report(
          ['operator', 'olm', 'skips', i],
          `operator ${version} is not newer than operator.version ${operator.version}: only a newer CSV skips the installed one`,
        );
    });
  }
}

function checkPlatformVersions(file: ScenarioFile, report: Report): void {
  if (file.openshiftVersion && file.platform !== 'openshift')
    report(['openshiftVersion'], 'only used when platform is openshift');
  else if (
    file.openshiftVersion &&
    file.kubernetesVersion &&
    kubernetesOfOpenShift(file.openshiftVersion) !== file.kubernetesVersion
  )
    report(
      ['openshiftVersion'],
      `OpenShift ${file.openshiftVersion} runs Kubernetes ${kubernetesOfOpenShift(file.openshiftVersion)}, not ${file.kubernetesVersion}: give one of them, or a matching pair`,
    );
}

/** `releases:`: each operator once, the default database among the bundled ones. */
function checkReleases(scenario: Scenario, report: Report): void {
  const seen = new Set<string>();
  scenario.releases.forEach((release, i) => {
    if (seen.has(release.operator))
      report(['releases', i, 'operator'], `operator ${release.operator} is listed twice`);
    seen.add(release.operator);
    const { databaseVersions, defaultDatabaseVersion } = release;
    if (databaseVersions && defaultDatabaseVersion && !databaseVersions.includes(defaultDatabaseVersion))
      report(
        ['releases', i, 'defaultDatabaseVersion'],
        `"${defaultDatabaseVersion}" is not one of databaseVersions (${databaseVersions.join(', ')})`,
      );
  });
}

function checkOpenShift(scenario: Scenario, report: Report): void {
  const { openshift, operator } = scenario;
  if (openshift.sccOwner === 'helm' && operator.installedBy !== 'helm')
    report(['openshift', 'sccOwner'], 'helm needs operator.installedBy: helm (the chart installs the SCC)');
  openshift.sharedWith.forEach((namespace, i) => {
    if (namespace === scenario.namespace)
      report(['openshift', 'sharedWith', i], `"${namespace}" is the cluster's own namespace`);
  });
}

function checkModules(scenario: Scenario, report: Report): void {
  const seen = new Set<string>();
  const rs = rsOfTag(scenario.cluster.apiVersion);
  scenario.modules.forEach((module, i) => {
    const key = `${module.name}@${module.version}`;
    if (seen.has(key)) report(['modules', i], `module ${module.name} ${module.version} is listed twice`);
    seen.add(key);
    const problem = module.kind ? moduleKindProblem(module.name, module.kind, rs) : undefined;
    if (problem) report(['modules', i, 'kind'], problem);
  });
}

/**
 * `api.modulesUpload: disabled` on a cluster before the setting `allow_modules_upload` (RS 8.2:
 * rest/model.ts MODULES_UPLOAD_SETTING_SINCE, the same rule GET /v1/cluster answers by)
 * describes no real cluster: an older one takes every upload.
 */
function checkModulesUpload(scenario: Scenario, report: Report): void {
  if (scenario.api.modulesUpload !== 'disabled') return;
  if (compareVersions(scenario.cluster.apiVersion, MODULES_UPLOAD_SETTING_SINCE) < 0)
    report(
      ['api', 'modulesUpload'],
      `disabled needs Redis Software 8.2 or later, where the cluster setting allow_modules_upload came in; this cluster runs ${scenario.cluster.apiVersion} (cluster.apiVersion), which takes every module upload: remove the key, or run an RS 8.2 or later cluster (cluster.versionTag)`,
    );
}

/**
 * Roles the cluster's RS has (rest/access.ts: user_manager from RS 7.8.2, a role's `resources`
 * from RS 8.2, and only on db_member and db_viewer roles).
 */
function checkRoles(scenario: Scenario, report: Report): void {
  const { apiVersion, users, roles } = scenario.cluster;
  const known = managementRolesOn(apiVersion);
  const runs = `this cluster runs ${apiVersion} (cluster.apiVersion)`;
  const lacks = (role: string) =>
    `Redis Software before 7.8.2 has no management role ${role} (it came with 7.8.2-34): ${runs}`;
  users.forEach((user, i) => {
    if (!known.includes(user.role)) report(['cluster', 'users', i, 'role'], lacks(user.role));
    (user.roles ?? []).forEach((name, j) => {
      const builtIn = BUILT_IN_ROLES.find((role) => role.name === name);
      // A name of a built-in role is that role: cluster.roles may not reuse it (schema.ts).
      if (builtIn && !known.includes(builtIn.management))
        report(
          ['cluster', 'users', i, 'roles', j],
          `no built-in role "${name}": ${lacks(builtIn.management)}`,
        );
    });
  });
  roles.forEach((role, i) => {
    if (!known.includes(role.management))
      report(['cluster', 'roles', i, 'management'], lacks(role.management));
    if (role.databases === undefined) return;
    if (!rsAtLeast(apiVersion, ROLE_RESOURCES_SINCE))
      report(
        ['cluster', 'roles', i, 'databases'],
        `a role limited to some databases (the role's resources) needs Redis Software 8.2 or later: ${runs}`,
      );
    else if (!SCOPABLE_ROLES.includes(role.management))
      report(
        ['cluster', 'roles', i, 'databases'],
        `only a db_member or db_viewer role can be limited to some databases, not ${role.management}`,
      );
  });
}

/** Each module with its kind: the scenario's, or what the cluster's RS makes of its name. */
function withModuleKinds(modules: ScenarioModule[], apiVersion: string): ScenarioModule[] {
  const rs = rsOfTag(apiVersion);
  return modules.map((module) => ({ ...module, kind: module.kind ?? defaultModuleKind(module.name, rs) }));
}

function checkDatabases(scenario: Scenario, report: Report): void {
  const watched = new Set([scenario.namespace, ...scenario.operator.watchNamespaces]);
  const names = new Set<string>();
  const uids = new Set<number>();
  scenario.databases.forEach((database, i) => {
    const at = (...rest: FieldPath): FieldPath => ['databases', i, ...rest];
    const qualified = `${database.namespace}/${database.name}`;
    if (names.has(qualified)) report(at('name'), `database ${qualified} is listed twice`);
    names.add(qualified);
    if (uids.has(database.uid)) report(at('uid'), `uid ${database.uid} is used by another database`);
    uids.add(database.uid);
    if (!watched.has(database.namespace))
      report(
        at('namespace'),
        `namespace "${database.namespace}" is not watched by the operator: add it to operator.watchNamespaces`,
      );
    database.modules.forEach((used, j) => {
      const installed = scenario.modules.filter((module) => module.name === used.name);
      const available =
        scenario.modules.map((module) => `${module.name} ${module.version}`).join(', ') || 'none';
      if (installed.length === 0) {
        report(
          at('modules', j, 'name'),
          `module "${used.name}" is not in the scenario's modules (installed: ${available})`,
        );
      } else if (!installed.some((module) => module.version === used.version)) {
        report(
          at('modules', j, 'version'),
          `module "${used.name}" ${used.version} is not in the scenario's modules (installed: ${available})`,
        );
      }
    });
  });
}

function checkFaults(faults: ScenarioFault[], report: Report): void {
  faults.forEach((fault, i) => {
    const at = (field: string): FieldPath => ['faults', i, field];
    if (fault.kind === 'status' && fault.status === undefined)
      report(at('status'), 'required when kind is status');
    if (fault.kind === 'delay' && fault.delayMs === undefined)
      report(at('delayMs'), 'required when kind is delay');
    if (fault.dropAfterSeconds !== undefined && fault.api !== 'kube')
      report(at('dropAfterSeconds'), 'only kube watches can be dropped');
    if (fault.kind === undefined && fault.dropAfterSeconds === undefined)
      report(at('kind'), 'the fault does nothing: give status, delayMs, kind or dropAfterSeconds');
  });
}

/** Remote participants: distinct names, not the cluster's own; a database names only those, and only if Active-Active. */
function checkRemoteClusters(scenario: Scenario, report: Report): void {
  const names = new Set<string>();
  scenario.remoteClusters.forEach((remote, i) => {
    if (remote.name === scenario.cluster.name)
      report(['remoteClusters', i, 'name'], `"${remote.name}" is the name of this cluster's own participant`);
    if (names.has(remote.name)) report(['remoteClusters', i, 'name'], `"${remote.name}" is listed twice`);
    names.add(remote.name);
  });
  scenario.databases.forEach((database, i) => {
    if (database.participants.length > 0 && !database.activeActive)
      report(
        ['databases', i, 'participants'],
        'only an Active-Active database (activeActive: true) has participants',
      );
    database.participants.forEach((participant, j) => {
      if (!names.has(participant))
        report(
          ['databases', i, 'participants', j],
          `"${participant}" is not in remoteClusters (listed: ${[...names].join(', ') || 'none'})`,
        );
    });
  });
}
