/**
 * The preflight checks (CLI.md "Check ids"): pure functions of the snapshot and the target.
 * Each says pass, warn or fail, what it saw, and — when not passing — the exact command or field
 * that fixes it. `--ignore-check <id>` turns that check's fail into a warn, recorded in the plan.
 */

import { dialectFields } from '../release/dialect.js';
import {
  bundledDatabaseVersions,
  checkUpgradePath,
  clusterTagFor,
  minimumDatabaseVersionFor,
  minimumOperatorFor,
  RHEL9_TARGETS_FROM,
  requiresRhel9Modules,
  rhel7HopFor,
} from '../release/catalog.js';
import { buildClusterPatch, digestPinnedSpecs } from './cluster-patch.js';
import { newestReleaseBelow } from './hops.js';
import { checkReleaseAdvisories } from './advisories.js';
import { checkPlatformSupported } from './platform.js';
import {
  csvVersion,
  olmRoute,
  olmUpgradeCommands,
  plannedOlmDigests,
  subscriptionChannelCommand,
} from './olm.js';
import { moduleFix } from './module-fix.js';
import { notEnabledReason, splitWebhooks } from './own-webhook.js';
import { curlApi, kubectl, kubectlMergePatch, mergeBodies, patchAt } from './equivalent-commands.js';
import {
  describePermission,
  reviewLookup,
  type PermissionCondition,
  type RequiredPermission,
  requiredPermissionQueries,
} from './permissions.js';
import { type DatabaseTarget, formatRs, type ResolvedUpgrade, resolveUpgrade } from './resolve.js';
import {
  type Bdb,
  type ClusterSnapshot,
  type Module,
  SCC_NAME,
  type Snapshot,
  type WebhookSnapshot,
} from './snapshot.js';
import { CHECK_IDS, type CheckId, type Target } from './target.js';
import {
  compareDatabaseVersions,
  compareOperatorVersions,
  compareReleases,
  databaseVersionOf,
  parseDatabaseVersion,
  parseOperatorVersion,
} from '../release/versions.js';

import { checkTargetAvailable } from './target-available.js';

export { CHECK_IDS, type CheckId } from './target.js';

export type CheckStatus = 'pass' | 'warn' | 'fail';

export interface CheckResult {
  id: CheckId;
  status: CheckStatus;
  message: string;
  /** The command or field that fixes it; '' when passing. */
  fix: string;
  /** Set when --ignore-check turned a fail into this warn. */
  ignored?: true;
}

interface CheckInput {
  snapshot: Snapshot;
  target: Target;
  resolved: ResolvedUpgrade;
  /** Every permission the steps need (src/steps/index.ts REQUIRED_PERMISSIONS). */
  required: readonly RequiredPermission[];
}

type Outcome = Omit<CheckResult, 'id' | 'ignored'>;
type Check = (input: CheckInput) => Outcome;

const pass = (message: string): Outcome => ({ status: 'pass', message, fix: '' });
const warn = (message: string, fix = ''): Outcome => ({ status: 'warn', message, fix });
const fail = (message: string, fix: string): Outcome => ({ status: 'fail', message, fix });

/** Runs every check in CHECK_IDS order. */
export function runChecks(
  snapshot: Snapshot,
  target: Target,
  options: { required: readonly RequiredPermission[]; resolved?: ResolvedUpgrade },
): CheckResult[] {
  const resolved = options.resolved ?? resolveUpgrade(snapshot, target);
  const input: CheckInput = { snapshot, target, resolved, required: options.required };
  return CHECK_IDS.map((id) => {
    const outcome = noClusterOutcome(id, snapshot) ?? CHECKS[id](input);
    if (outcome.status === 'fail' && target.ignoreChecks.includes(id)) {
      return {
        id,
        ...outcome,
        status: 'warn',
        message: `${outcome.message} (ignored with --ignore-check ${id})`,
        ignored: true,
      };
    }
    return { id, ...outcome };
  });
}

/** True when a check fails: the plan may not run. */
export function isBlocked(checks: readonly CheckResult[]): boolean {
  return checks.some((check) => check.status === 'fail');
}

/** Checks that look at the cluster resource cannot say anything without one. */
const NEEDS_CLUSTER: ReadonlySet<CheckId> = new Set<CheckId>([
  'cluster-running',
  'license-valid',
  'upgrade-path',
  'database-min-version',
  'database-version-supported',
  'modules-compatible',
  'auto-upgrade-digest',
  'api-reachable',
]);

function noClusterOutcome(id: CheckId, snapshot: Snapshot): Outcome | undefined {
  if (snapshot.cluster || !NEEDS_CLUSTER.has(id)) return undefined;
  return warn('not checked: no cluster resource', 'Fix cluster-found first.');
}

const CHECKS: Record<CheckId, Check> = {
  'cluster-found': checkClusterFound,
  'cluster-running': checkClusterRunning,
  'license-valid': checkLicense,
  'operator-min-version': checkOperatorMinVersion,
  'upgrade-path': checkUpgradePathOf,
  'database-min-version': checkDatabaseMinVersion,
  'database-version-supported': checkDatabaseVersionSupported,
  'modules-compatible': checkModulesCompatible,
  'auto-upgrade-digest': checkAutoUpgradeDigest,
  'helm-release-healthy': checkHelmRelease,
  'operator-method': checkOperatorMethod,
  'olm-cluster-name': checkOlmClusterName,
  'olm-approval': checkOlmApproval,
  'target-available': ({ snapshot, resolved }) => checkTargetAvailable(snapshot, resolved),
  'admission-tls': checkAdmissionTls,
  'api-reachable': checkApiReachable,
  permissions: checkPermissions,
  'release-advisories': ({ snapshot, target }) => checkReleaseAdvisories(snapshot, target),
  'platform-supported': ({ snapshot, target }) => checkPlatformSupported(snapshot, target),
};

function cluster(input: CheckInput): ClusterSnapshot {
  // noClusterOutcome guarantees it for every check that calls this.
  return input.snapshot.cluster as ClusterSnapshot;
}

// ---- cluster-found

function checkClusterFound({ snapshot }: CheckInput): Outcome {
  const { namespace, clusterCandidates: found, requestedCluster } = snapshot;
  if (snapshot.cluster) {
    return pass(
      `cluster resource ${snapshot.cluster.name} in namespace ${namespace} (${snapshot.dialect} dialect, ${snapshot.platform})`,
    );
  }
  if (requestedCluster !== undefined) {
    return fail(
      `no cluster resource named ${requestedCluster} in namespace ${namespace}` +
        (found.length > 0 ? `; found: ${found.join(', ')}` : ''),
      found.length > 0
        ? `Pass --cluster ${found[0]}.`
        : `Find it with: ${kubectl('get', 'rec', '-A')}, then pass -n <namespace>.`,
    );
  }
  if (found.length === 0) {
    return fail(
      `no RedisEnterpriseCluster in namespace ${namespace}`,
      `Find it with: ${kubectl('get', 'rec', '-A')}, then pass -n <namespace>.`,
    );
  }
  return fail(
    `${found.length} cluster resources in namespace ${namespace}: ${found.join(', ')}`,
    `Pass --cluster <name>, e.g. --cluster ${found[0]}.`,
  );
}

// ---- cluster-running

function checkClusterRunning(input: CheckInput): Outcome {
  const rec = cluster(input);
  const { resolved } = input;
  const get = kubectl('get', 'rec', rec.name, '-n', rec.namespace);
  if (rec.specStatus === 'Invalid') {
    return fail(
      `the cluster spec is Invalid (state ${rec.state ?? 'unknown'})`,
      `Read why in the operator's log: ${kubectl('logs', 'deploy/redis-enterprise-operator', '-n', input.snapshot.operator?.namespace ?? rec.namespace)} (and ${kubectl('describe', 'rec', rec.name, '-n', rec.namespace)}), and fix the spec it names.`,
    );
  }
  switch (rec.state) {
    case 'Running':
      return pass(`state Running, ${rec.nodes ?? '?'} nodes`);
    case 'Upgrade':
      // A run that was interrupted after the cluster step sees its own upgrade still going.
      if (rec.image.versionTag !== undefined && rec.image.versionTag === resolved.clusterTag.target) {
        return warn(
          `an upgrade to ${rec.image.versionTag} is in progress; the monitor step waits for it`,
          `Watch it with: ${get} -w`,
        );
      }
      return fail(
        'an upgrade is in progress (state Upgrade): the operator refuses another one until it ends',
        `Wait for state Running: ${kubectl('wait', `rec/${rec.name}`, '-n', rec.namespace, '--for=jsonpath={.status.state}=Running', '--timeout=60m')}`,
      );
    case 'InvalidUpgrade':
      return warn(
        'state InvalidUpgrade: the last upgrade request was refused (see auto-upgrade-digest and license-valid)',
        `Read why: ${kubectl('describe', 'rec', rec.name, '-n', rec.namespace)}`,
      );
    case undefined:
      return fail(
        'the cluster resource has no status yet: the operator has not reconciled it',
        `Check the operator: ${kubectl('get', 'deployment', 'redis-enterprise-operator', '-n', rec.namespace)}`,
      );
    default:
      return fail(
        `state ${rec.state}: an upgrade starts only from Running`,
        `Wait for Running or repair the cluster first: ${get}`,
      );
  }
}

// ---- license-valid

function checkLicense(input: CheckInput): Outcome {
  const rec = cluster(input);
  const state = rec.license?.state;
  const expires = rec.license?.expirationDate ? `, expires ${rec.license.expirationDate}` : '';
  if (state === 'Valid') return pass(`licence Valid${expires}`);
  const fix = licenseFix(rec);
  if (state === undefined)
    return warn('the cluster reports no licence state: an invalid licence makes the upgrade fail', fix);
  return fail(`licence ${state}${expires}: an invalid licence makes the upgrade fail`, fix);
}

/**
 * Where the licence lives decides the fix. `spec.license` and `spec.licenseSecretName` cannot
 * both be set (DOCS kubernetes/reference/redis_enterprise_cluster_api.md), so an inline licence
 * is replaced inline (or moved to a Secret in the same patch that empties spec.license), and a
 * Secret's content is replaced in the Secret. The key never appears in the command line: the
 * patch is read from a file.
 */
function licenseFix(rec: ClusterSnapshot): string {
  const secret = rec.licenseSecretName ?? `${rec.name}-license`;
  const createSecret = kubectl(
    'create',
    'secret',
    'generic',
    secret,
    '-n',
    rec.namespace,
    '--from-file=license=<license-file>',
  );
  if (rec.licenseSecretName) {
    return `Put a valid licence in Secret ${secret} (${createSecret}, with --dry-run=client -o yaml | kubectl apply -f - to replace it)`;
  }
  if (rec.licenseInline) {
    const patchFile = `jq -n --rawfile license <license-file> '{spec: {license: $license}}' > license-patch.json && ${kubectl('patch', 'rec', rec.name, '-n', rec.namespace, '--type', 'merge', '--patch-file', 'license-patch.json')}`;
    const move = kubectlMergePatch('rec', rec.name, rec.namespace, {
      spec: { license: null, licenseSecretName: secret },
    });
    return `Replace the inline licence in spec.license: ${patchFile} — or move it to a Secret: ${createSecret}, then ${move}`;
  }
  return `Put a valid licence in Secret ${secret} (${createSecret}) and point the cluster at it: ${kubectlMergePatch('rec', rec.name, rec.namespace, { spec: { licenseSecretName: secret } })}`;
}

// ---- operator-min-version

function checkOperatorMinVersion({ snapshot, target, resolved }: CheckInput): Outcome {
  const operator = snapshot.operator;
  if (!operator) {
    return fail(
      `no operator Deployment redis-enterprise-operator in namespace ${snapshot.namespace}`,
      `Pass -n <the operator's namespace>; find it with: ${kubectl('get', 'deployment', '-A', '-l', 'name=redis-enterprise-operator')}`,
    );
  }
  if (!operator.version) {
    return warn(
      `cannot read the operator version from its image ${operator.image}`,
      'Make sure the operator image has a version tag (redislabs/operator:<version>).',
    );
  }
  const minimum = minimumOperatorFor(target.operator);
  const current = parseOperatorVersion(operator.version);
  const min = minimum ? parseOperatorVersion(minimum) : undefined;
  if (current && min && compareOperatorVersions(current, min) < 0) {
    const hop = newestReleaseBelow(RHEL9_TARGETS_FROM, minimum ?? '');
    return fail(
      `operator ${operator.version} is older than ${minimum}, the oldest that may upgrade to ${target.operator}`,
      `Upgrade in two hops: first ctl upgrade run --to ${hop ?? minimum}, then --to ${target.operator}.`,
    );
  }
  const clusterBelow = clusterBelowMinimum(resolved, minimum);
  if (clusterBelow) {
    // The CLUSTER too, not only the operator: "Your Redis Enterprise clusters must be running
    // version 7.4.2-2 or later" (DOCS kubernetes/upgrade/openshift-cli.md; 7-8-2-releases/_index.md).
    const hop = newestReleaseBelow(RHEL9_TARGETS_FROM, minimum ?? '');
    return fail(
      `the cluster runs RS ${clusterBelow}, older than ${minimum}, the oldest cluster version that may upgrade to ${target.operator} (operator ${operator.version})`,
      `Upgrade in two hops: first ctl upgrade run --to ${hop ?? minimum} (it upgrades the cluster to ${hop ? (clusterTagFor(hop, snapshot.platform) ?? 'its image') : 'a 7.4 image'}), then --to ${target.operator}.`,
    );
  }
  if (operator.readyReplicas < operator.replicas) {
    return warn(
      `operator ${operator.version} is not ready (${operator.readyReplicas}/${operator.replicas})`,
      `Check it: ${kubectl('rollout', 'status', `deployment/${operator.deploymentName}`, '-n', operator.namespace)}`,
    );
  }
  return pass(`operator ${operator.version}${minimum ? ` (at least ${minimum} needed)` : ''}`);
}

/** The cluster's RS release (`7.2.4`) when it is older than the minimum operator's release; else undefined. */
function clusterBelowMinimum(resolved: ResolvedUpgrade, minimum: string | undefined): string | undefined {
  const min = minimum ? parseOperatorVersion(minimum) : undefined;
  if (!min || !resolved.currentRs) return undefined;
  return compareReleases(resolved.currentRs, min.release) < 0 ? formatRs(resolved.currentRs) : undefined;
}

// ---- upgrade-path

function checkUpgradePathOf({ snapshot, target, resolved }: CheckInput): Outcome {
  const current = snapshot.operator?.version ? parseOperatorVersion(snapshot.operator.version) : undefined;
  const wanted = parseOperatorVersion(target.operator);
  if (current && wanted && compareOperatorVersions(current, wanted) > 0) {
    return fail(
      `operator ${snapshot.operator?.version} is newer than --to ${target.operator}: downgrades are not supported`,
      `Pass --to ${snapshot.operator?.version} or newer.`,
    );
  }
  const rhel7 = rhel7HopFor(target.operator, snapshot.cluster?.image.versionTag);
  if (rhel7) {
    // DOCS kubernetes/7.4.6/upgrade/openshift-cli.md: RHEL7 clusters keep RHEL7 images up to
    // 7.2.4-2 and only then move to RHEL8; 7.2.4-15 notes: RHEL7 images are no longer available.
    return fail(
      `the cluster runs the RHEL7 image ${snapshot.cluster?.image.versionTag ?? ''}; operator ${target.operator} has no RHEL7 image, and RHEL7 clusters move to RHEL8 only from ${rhel7.operator}`,
      `Upgrade in two hops: first ctl upgrade run --to ${rhel7.operator} --cluster-version ${rhel7.clusterTag}, then --to ${target.operator}.`,
    );
  }
  if (!resolved.targetRs)
    return warn(
      `cannot read an RS version from the target tag ${resolved.clusterTag.target ?? '(none)'}`,
      'Pass --cluster-version <tag>.',
    );
  if (!resolved.currentRs)
    return warn(
      'cannot tell which RS version the cluster runs',
      'Make the management API reachable (api-reachable) or set the image versionTag.',
    );
  const path = checkUpgradePath(resolved.currentRs, resolved.targetRs);
  const route = `RS ${formatRs(resolved.currentRs)} -> ${formatRs(resolved.targetRs)}`;
  if (path.supported) return pass(`${route} is a supported upgrade path`);
  const fix = path.via
    ? `Upgrade in two hops: first ctl upgrade run --to ${path.via}, then --to ${target.operator}.`
    : 'Pick a target the current version may upgrade to (redis.io: supported upgrade paths).';
  if (!path.known) return warn(`${route}: ${path.reason ?? 'not in the documented table'}`, fix);
  return fail(`${route}: ${path.reason ?? 'not supported'}`, fix);
}

// ---- database-min-version

interface ClusterDatabase {
  name: string;
  /** `ns/name` for a database resource, `bdb <uid>` for one the API alone knows. */
  where: string;
  version?: string | undefined;
  /** The database resource, when the database has one. */
  resource?: { kind: 'redb' | 'reaadb'; namespace: string } | undefined;
  uid?: number | undefined;
}

/** Every database of the cluster: the API's list when reachable (it has them all), else the resources. */
function clusterDatabases({ snapshot, resolved }: CheckInput): ClusterDatabase[] {
  const resources = resolved.databases.map((db) => ({
    name: db.name,
    where: `${db.namespace}/${db.name}`,
    version: db.current,
    resource: {
      kind: db.kind === 'database' ? ('redb' as const) : ('reaadb' as const),
      namespace: db.namespace,
    },
  }));
  if (!snapshot.api.reachable) return resources;
  // By name, the first resource of each name (as a search from the start would find it): one
  // lookup per bdb, not a search of 10,000 resources for each of 10,000 bdbs.
  const byName = new Map<string, (typeof resources)[number]>();
  for (const resource of resources) if (!byName.has(resource.name)) byName.set(resource.name, resource);
  return snapshot.api.bdbs.map((bdb) => {
    const resource = byName.get(bdb.name);
    const version = bdb.redis_version ?? bdb.engine_version;
    return {
      name: bdb.name,
      where: resource?.where ?? `bdb ${bdb.uid}`,
      version: version ?? resource?.version,
      resource: resource?.resource,
      uid: bdb.uid,
    };
  });
}

function checkDatabaseMinVersion(input: CheckInput): Outcome {
  const { target, snapshot } = input;
  const minimum = minimumDatabaseVersionFor(target.operator);
  if (!minimum) return pass(`no minimum database version for ${target.operator}`);
  const min = parseDatabaseVersion(minimum);
  const databases = clusterDatabases(input);
  const tooOld = databases.filter((db) => {
    const v = db.version ? databaseVersionOf(db.version) : undefined;
    return v && min && !('policy' in min) && compareDatabaseVersions(v, min) < 0;
  });
  const unknown = databases.filter((db) => !db.version || !databaseVersionOf(db.version));
  if (tooOld.length > 0) {
    const fields = dialectFields(snapshot.dialect);
    const fixes = tooOld.map((db) =>
      db.resource
        ? kubectlMergePatch(
            db.resource.kind,
            db.name,
            db.resource.namespace,
            patchAt(
              db.resource.kind === 'redb' ? fields.databaseVersionPath : fields.activeActiveVersionPath,
              minimum,
            ),
          )
        : curlApi('POST', `/v1/bdbs/${db.uid}/upgrade`, [
            '-H',
            'Content-Type: application/json',
            '-d',
            JSON.stringify({ [fields.upgradeBodyKey]: minimum }),
          ]),
    );
    return fail(
      `${list(tooOld.map((db) => `${db.where} (${db.version})`))} ${tooOld.length === 1 ? 'is' : 'are'} below ${minimum}: the upgrade to ${target.operator} would freeze`,
      `Upgrade ${tooOld.length === 1 ? 'it' : 'them'} to ${minimum} first: ${fixes.join(' ; ')}`,
    );
  }
  if (unknown.length > 0) {
    return warn(
      `cannot read the version of ${list(unknown.map((db) => db.where))}`,
      'Make the management API reachable (api-reachable), or check status.version of the database resources.',
    );
  }
  return pass(`${databases.length} database(s), all at ${minimum} or newer`);
}

// ---- database-version-supported

function checkDatabaseVersionSupported(input: CheckInput): Outcome {
  const { resolved, target } = input;
  const rec = cluster(input);
  const bundled = resolved.targetRs ? bundledDatabaseVersions(resolved.targetRs) : undefined;
  if (!bundled) {
    return warn(
      `the catalog does not know which database versions RS ${formatRs(resolved.targetRs)} bundles`,
      'Check the release notes of the target, and pass --db-version.',
    );
  }
  const rs = formatRs(resolved.targetRs);
  const problems: string[] = [];
  const warnings: string[] = [];
  if (
    target.databaseVersion &&
    !['major', 'latest'].includes(target.databaseVersion) &&
    !bundled.includes(target.databaseVersion)
  ) {
    problems.push(`--db-version ${target.databaseVersion} is not bundled with RS ${rs}`);
  }
  const oldest = bundled[0] ? databaseVersionOf(bundled[0]) : undefined;
  for (const db of clusterDatabases(input)) {
    const v = db.version ? databaseVersionOf(db.version) : undefined;
    if (v && oldest && compareDatabaseVersions(v, oldest) < 0)
      problems.push(`${db.where} runs ${db.version}, which RS ${rs} does not support`);
  }
  for (const db of resolved.databases.filter((d) => d.target !== undefined)) {
    const t = db.target as string;
    if (!['major', 'latest'].includes(t) && !bundled.includes(t))
      problems.push(`${db.namespace}/${db.name} -> ${t} is not bundled with RS ${rs}`);
    if (rec.upgradePolicy === 'major' && target.databaseVersion && !isMajor(rec, t)) {
      warnings.push(
        `${db.namespace}/${db.name}: the upgrade policy is major, so the operator may refuse the minor version ${t}`,
      );
    }
  }
  for (const db of resolved.databases.filter((d) => d.selected && d.reason?.startsWith('runs '))) {
    warnings.push(`${db.namespace}/${db.name} ${db.reason}: left as is`);
  }
  if (problems.length > 0) {
    return fail(
      problems.join('; '),
      `Choose one of ${bundled.join(', ')} with --db-version, and upgrade older databases first.`,
    );
  }
  if (warnings.length > 0)
    return warn(warnings.join('; '), `Choose one of ${bundled.join(', ')} with --db-version.`);
  const changing = resolved.databases.filter((d) => d.target !== undefined).length;
  return pass(
    `RS ${rs} supports ${bundled.join(', ')}; ${changing} database(s) will move to ${resolved.databaseVersion ?? 'their target'}`,
  );
}

function isMajor(rec: ClusterSnapshot, version: string): boolean {
  return rec.bundledDatabaseVersions.some((v) => {
    const parsed = v.major ? databaseVersionOf(v.version) : undefined;
    return parsed !== undefined && `${parsed.major}.${parsed.minor}` === version;
  });
}

// ---- modules-compatible

function checkModulesCompatible(input: CheckInput): Outcome {
  const { snapshot, target } = input;
  const rec = cluster(input);
  if (rec.userDefinedModules.length > 0 && rec.autoUpgrade) {
    const fields = dialectFields(snapshot.dialect);
    return fail(
      `user-defined modules (${rec.userDefinedModules.join(', ')}) need auto-upgrade off before the operator upgrade`,
      kubectlMergePatch('rec', rec.name, rec.namespace, patchAt(fields.autoUpgradePath, false)),
    );
  }
  if (!requiresRhel9Modules(target.operator)) return pass(`${target.operator} needs no RHEL9 module builds`);
  if (!snapshot.api.reachable) {
    return warn(
      'cannot list the modules in use: the management API is not reachable',
      'Fix api-reachable to verify the RHEL9 module builds.',
    );
  }
  const inUse = modulesInUse(snapshot.api.bdbs);
  const missing: string[] = [];
  const fixes: string[] = [];
  const unknown: string[] = [];
  for (const [key, use] of inUse) {
    const candidates = snapshot.api.modules.filter(
      (m) => m.module_name === use.name && (use.version === undefined || m.semantic_version === use.version),
    );
    const platforms = candidates.flatMap((m) => Object.keys(m.platforms ?? {}));
    if (candidates.some((m) => m.is_bundled) && platforms.length === 0) continue;
    if (candidates.length === 0 || candidates.every((m) => m.platforms === undefined)) {
      unknown.push(key);
    } else if (!platforms.some((p) => p.startsWith('rhel9'))) {
      missing.push(`${key} (platforms: ${platforms.join(', ') || 'none'}; used by ${list(use.databases)})`);
      // Fit for the target's RS: bundled from 8.0, userDefinedModules, uploads before (module-fix.ts).
      fixes.push(
        moduleFix({
          targetOperator: target.operator,
          module: use.name,
          flaggedBundled: candidates.some((m) => m.is_bundled),
          cluster: { name: rec.name, namespace: rec.namespace },
          databases: use.databases,
        }),
      );
    }
  }
  if (missing.length > 0) {
    return fail(
      `modules without a RHEL9 build: ${missing.join('; ')}: the cluster upgrade to ${target.operator} would freeze`,
      `For each module: ${[...new Set(fixes)].join('; ')}.`,
    );
  }
  if (unknown.length > 0) {
    return warn(
      `cannot tell the platforms of ${unknown.join(', ')}`,
      `List them: ${curlApi('GET', '/v1/modules')} | jq -r '.[] | [.module_name, .semantic_version, (.platforms | keys)]'`,
    );
  }
  return pass(
    inUse.size === 0
      ? 'no modules in use'
      : `every module in use has a RHEL9 build (${[...inUse.keys()].join(', ')})`,
  );
}

function modulesInUse(
  bdbs: Bdb[],
): Map<string, { name: string; version?: string | undefined; databases: string[] }> {
  const uses = new Map<string, { name: string; version?: string | undefined; databases: string[] }>();
  for (const bdb of bdbs) {
    for (const m of bdb.module_list ?? []) {
      const key = m.semantic_version ? `${m.module_name} ${m.semantic_version}` : m.module_name;
      const use = uses.get(key) ?? { name: m.module_name, version: m.semantic_version, databases: [] };
      use.databases.push(bdb.name);
      uses.set(key, use);
    }
  }
  return uses;
}

export function hasRhel9Build(module: Module): boolean {
  return Object.keys(module.platforms ?? {}).some((p) => p.startsWith('rhel9'));
}

// ---- auto-upgrade-digest

function checkAutoUpgradeDigest(input: CheckInput): Outcome {
  const rec = cluster(input);
  const fields = dialectFields(input.snapshot.dialect);
  const autoField = fields.autoUpgradePath.join('.');
  // A digestHash in ANY of the four image specs invalidates the spec with auto-upgrade on
  // (DOCS kubernetes/upgrade/upgrade-redis-cluster.md; redis-facts.md §12).
  const digests = digestPinnedSpecs(rec, input.snapshot.dialect);
  if (rec.autoUpgrade && digests.length > 0) {
    const names = digests.map((d) => `${d.field}.digestHash`).join(', ');
    const remove = mergeBodies(...digests.map((d) => patchAt([...d.path, 'digestHash'], null)));
    return fail(
      `${autoField} is true and ${names} ${digests.length === 1 ? 'is' : 'are'} set: the operator refuses the upgrade (InvalidUpgrade)`,
      `Turn auto-upgrade off: ${kubectlMergePatch('rec', rec.name, rec.namespace, patchAt(fields.autoUpgradePath, false))} — or remove the digest${digests.length === 1 ? '' : 's'}: ${kubectlMergePatch('rec', rec.name, rec.namespace, remove)}`,
    );
  }
  const tag = input.resolved.clusterTag.target;
  if (!rec.autoUpgrade && tag && rec.image.versionTag !== tag) {
    // Under OLM the target CSV's relatedImages name the target images by digest: the cluster
    // step reads them once OLM has installed it (and stops with the fix if one is missing).
    const olm = input.resolved.method === 'olm' ? input.snapshot.olm : undefined;
    const digests = olm ? plannedOlmDigests(olm, input.target.operator) : undefined;
    const patch = buildClusterPatch(rec, input.snapshot.dialect, tag, input.target.operator, digests);
    if (patch.kind === 'refuse') return fail(patch.message, patch.fix);
    const pinned = digestPinnedSpecs(rec, input.snapshot.dialect);
    if (digests && pinned.length > 0) {
      return pass(
        `${pinned.map((d) => `${d.field}.digestHash`).join(', ')} will follow the target: the digest comes from the spec.relatedImages of ${olmRoute(olm ?? { csv: '', installPlans: [] }, input.target.operator).targetCsv}`,
      );
    }
  }
  if (rec.autoUpgrade && rec.upgradePolicy) {
    return warn(
      `auto-upgrade with ${fields.upgradePolicyPath.join('.')}=${rec.upgradePolicy} can upgrade databases unexpectedly`,
      `Consider turning auto-upgrade off: ${kubectlMergePatch('rec', rec.name, rec.namespace, patchAt(fields.autoUpgradePath, false))}`,
    );
  }
  return pass(rec.autoUpgrade ? 'auto-upgrade on, no digest hash' : 'auto-upgrade off');
}

// ---- helm-release-healthy

function checkHelmRelease({ snapshot, resolved }: CheckInput): Outcome {
  const release = snapshot.helmRelease;
  const ns = resolved.helm.namespace;
  if (resolved.method === 'olm') return pass('the operator is installed by OLM, not helm');
  if (resolved.method === 'bundle') {
    if (release) {
      return warn(
        `the operator belongs to helm release ${release.name}, but the method is bundle: helm's record would go stale`,
        'Drop --method bundle (or pass --method helm).',
      );
    }
    return pass('the operator is not installed by helm');
  }
  if (!release) {
    return fail(
      'method helm, but the operator Deployment carries no helm release labels',
      `Use --method bundle, or adopt the operator: helm install ${resolved.helm.release} ${resolved.helm.chart}${resolved.helm.repo ? ` --repo ${resolved.helm.repo}` : ''} -n ${ns} --take-ownership`,
    );
  }
  const status = release.status;
  if (status === 'deployed')
    return pass(`helm release ${release.name} revision ${release.revision} deployed`);
  if (status.startsWith('pending-')) {
    return fail(
      `helm release ${release.name} revision ${release.revision} is ${status}: helm refuses another upgrade`,
      release.lastDeployedRevision
        ? `Roll back to the last deployed revision: helm rollback ${release.name} ${release.lastDeployedRevision} -n ${release.namespace}`
        : `Inspect it: helm history ${release.name} -n ${release.namespace}`,
    );
  }
  if (status === 'failed') {
    return warn(
      `helm release ${release.name} revision ${release.revision} failed; the upgrade will retry it`,
      `Inspect it: helm history ${release.name} -n ${release.namespace}`,
    );
  }
  return fail(
    `helm release ${release.name}: ${status === 'not-found' ? 'no release record found' : `status ${status}`}`,
    `Inspect it: helm status ${release.name} -n ${release.namespace}`,
  );
}

// ---- operator-method

/**
 * OperatorHub installs belong to OLM: it puts back whatever a bundle or helm applies over the
 * operator Deployment, and upgrades only through the Subscription and its InstallPlan (DOCS
 * `kubernetes/upgrade/upgrade-olm.md`; redis-facts.md §12). With method olm ctl drives that:
 * it needs the channel whose head is the target (from the PackageManifest, src/planning/olm.ts).
 */
function checkOperatorMethod({ snapshot, target, resolved }: CheckInput): Outcome {
  const olm = snapshot.olm;
  if (!olm) {
    if (resolved.method === 'olm') {
      return fail(
        'method olm, but no ClusterServiceVersion owns the operator Deployment',
        'Drop --method olm: the operator is upgraded by helm or from the bundle.',
      );
    }
    return pass(
      resolved.method === 'helm'
        ? 'the operator is upgraded by helm'
        : 'the operator is upgraded from the release bundle',
    );
  }
  const sub = olm.subscription;
  const owner = sub
    ? `Subscription ${sub.name}, channel ${sub.channel ?? '?'}, approval ${sub.approval ?? '?'}, CSV ${olm.csv}`
    : `CSV ${olm.csv}${olm.readError ? `; the Subscription could not be read: ${olm.readError}` : ''}`;
  const ns = snapshot.operator?.namespace ?? snapshot.namespace;
  const commands = olmUpgradeCommands(olm, ns, target.operator)
    .map((step) => step.command)
    .join(' && ');
  if (resolved.method !== 'olm') {
    return fail(
      `the operator is installed by OLM (${owner}): OLM puts back any ${resolved.method} change to its Deployment, so --method ${resolved.method} cannot upgrade it`,
      `Drop --method ${resolved.method}: ctl upgrades it through OLM (or run: ${commands})`,
    );
  }
  const current = parseOperatorVersion(resolved.operator.current ?? '');
  const wanted = parseOperatorVersion(target.operator);
  if (current && wanted && compareOperatorVersions(current, wanted) >= 0) {
    return pass(`the operator is installed by OLM (${owner}) and already runs ${resolved.operator.current}`);
  }
  if (!sub) {
    return fail(
      `the operator is installed by OLM (${owner}), but its Subscription was not found`,
      `Check the Subscription: oc get subscription -n ${ns}; ctl needs get, list, watch and patch on subscriptions.operators.coreos.com in ${ns}.`,
    );
  }
  const route = olmRoute(olm, target.operator);
  if (route.problem) {
    const fix = olm.channels
      ? headAdvice(olm.channels, target.operator)
      : `Let ctl read it: grant get on packagemanifests.packages.operators.coreos.com in ${ns} (check with kubectl auth can-i get packagemanifests -n ${ns}); or switch the Subscription yourself to the channel whose head is ${route.targetCsv} (${subscriptionChannelCommand(sub.name, ns, target.operator.split('-')[0] ?? target.operator)}) and run ctl again once OLM offers it.`;
    return fail(`the operator is installed by OLM (${owner}): ${route.problem}`, fix);
  }
  const how = route.channelHasTarget
    ? `channel ${route.channel ?? '?'} offers ${route.targetCsv}`
    : `ctl switches the channel from ${route.channel ?? '?'} to ${route.targetChannel ?? '?'}, whose head is ${route.targetCsv}`;
  const approval =
    sub.approval === 'Automatic'
      ? 'OLM approves its InstallPlan (Automatic)'
      : `ctl approves the InstallPlan of ${route.targetCsv} and no other`;
  return pass(`the operator is installed by OLM (${owner}): ${how}; ${approval}`);
}

/**
 * OLM installs a channel's head: the head of the target's own release line first (`7.22.0-17`
 * for 7.22.0-11), with the command, then every channel's head.
 */
function headAdvice(
  channels: readonly { name: string; currentCSV?: string | undefined }[],
  target: string,
): string {
  const headOf = (c: { currentCSV?: string | undefined }) => csvVersion(c.currentCSV) ?? c.currentCSV ?? '?';
  const line = channels.find((c) => c.name === target.split('-')[0]);
  const all = `every channel's head: ${channels.map((c) => `${c.name}: ${headOf(c)}`).join(', ')}`;
  return line
    ? `OLM installs a channel's head: the head of ${target}'s release line is ${headOf(line)} (channel ${line.name}): ctl upgrade plan --to ${headOf(line)}. Or pick another head (${all}).`
    : `Pick a target that is the head of a channel (${all}) with --to.`;
}

// ---- olm-cluster-name

/**
 * OLM deployments "require" the cluster to be named `rec` (RED-39825; redis-facts.md §11, §12):
 * the certified CSV grants the SCC only to service account `rec`, and its own description says
 * what another name needs: "Changing the name of the Redis Enterprise Cluster in the spec from
 * the default requires running commands to grant permissions to the pods: oc adm policy
 * add-scc-to-user redis-enterprise-scc-v2 system:serviceaccount:<project>:<name of REC>"
 * (certified-operators operators/redis-enterprise-operator-cert/7.22.0-11.2, CSV description).
 * Such a cluster runs, so it is a warning; ctl's security-context step binds the SCC to the
 * cluster's service account whenever the target still runs privileged pods.
 */
function checkOlmClusterName({ snapshot, resolved }: CheckInput): Outcome {
  if (resolved.method !== 'olm') return pass('the operator is not installed by OLM');
  const name = snapshot.cluster?.name;
  if (!name || name === 'rec') return pass('the cluster is named rec, as OLM installs expect');
  return warn(
    `the operator is installed by OLM, which expects the cluster to be named rec (RED-39825); this cluster is ${name}: its pods need ${SCC_NAME} granted to service account ${name}, which OLM grants only to rec`,
    snapshot.platform === 'openshift'
      ? `ctl's security-context step binds it when the target needs it; by hand: oc adm policy add-scc-to-user ${SCC_NAME} system:serviceaccount:${snapshot.namespace}:${name}`
      : '',
  );
}

// ---- olm-approval

/**
 * Automatic approval installs whatever the subscribed channel's head is. When that head is past
 * the target, OLM can move the operator beyond it as soon as it resolves: say so, with the fix.
 */
function checkOlmApproval({ snapshot, target, resolved }: CheckInput): Outcome {
  const olm = snapshot.olm;
  const sub = olm?.subscription;
  if (resolved.method !== 'olm' || !olm || !sub) return pass('the operator is not upgraded through OLM here');
  if (sub.approval !== 'Automatic')
    return pass(`Subscription ${sub.name}: Manual approval, ctl approves only the target`);
  const route = olmRoute(olm, target.operator);
  const head = csvVersion(route.channelHead);
  const headParsed = parseOperatorVersion(head ?? '');
  const wanted = parseOperatorVersion(target.operator);
  if (head && headParsed && wanted && compareOperatorVersions(headParsed, wanted) > 0) {
    const ns = snapshot.operator?.namespace ?? snapshot.namespace;
    return warn(
      `Subscription ${sub.name} approves automatically and the head of its channel ${sub.channel ?? '?'} is ${head}, past the target ${target.operator}: OLM may install ${head}`,
      `Switch to Manual approval: oc patch subscription ${sub.name} -n ${ns} --type merge -p '{"spec":{"installPlanApproval":"Manual"}}' — or target the head: --to ${head}`,
    );
  }
  return pass(
    `Subscription ${sub.name}: Automatic approval; OLM installs the head of channel ${route.targetChannel ?? sub.channel ?? '?'} (${route.targetCsv})`,
  );
}

// ---- admission-tls

function checkAdmissionTls({ snapshot }: CheckInput): Outcome {
  const ns = snapshot.namespace;
  // Only this operator's webhooks (another namespace's trusts its own admission-tls).
  const { own: webhooks, others } = splitWebhooks(snapshot.webhooks, snapshot.operator?.namespace ?? ns);
  if (webhooks.length === 0)
    return pass(others.length === 0 ? 'admission controller not enabled' : notEnabledReason(others, ns));
  // OLM makes its own CA and serving certificate for a CSV's webhookdefinitions and writes that
  // CA into the caBundle (olm.operatorframework.io "Adding admission and conversion webhooks"):
  // admission-tls neither signs nor has to exist for those.
  const byOlm = webhooks.filter((w) => w.olmOwner !== undefined);
  if (byOlm.length === webhooks.length)
    return pass(
      `OLM manages the certificate of ${byOlm.map((w) => `${w.name} (CSV ${w.olmOwner ?? ''})`).join(', ')}: admission-tls is not compared`,
    );
  return checkOperatorWebhookTls(
    ns,
    webhooks.filter((w) => w.olmOwner === undefined),
    snapshot.admissionTls,
  );
}

/** The webhooks the operator serves with its own certificate, the Secret admission-tls. */
function checkOperatorWebhookTls(
  ns: string,
  webhooks: WebhookSnapshot[],
  admissionTls: Snapshot['admissionTls'],
): Outcome {
  const restart = `Restart the operator, which creates it: ${kubectl('rollout', 'restart', 'deployment/redis-enterprise-operator', '-n', ns)}`;
  if (!admissionTls.present) return fail(`Secret admission-tls is missing in namespace ${ns}`, restart);
  const cert = admissionTls.cert;
  if (!cert) return fail('Secret admission-tls has no key cert', restart);
  const stale = webhooks.flatMap((w) =>
    w.webhooks.filter((h) => h.caBundle !== cert).map((h) => `${w.name}/${h.name}`),
  );
  if (stale.length > 0) {
    return warn(
      `the caBundle of ${stale.join(', ')} does not match admission-tls`,
      'The admission step sets it from admission-tls .data.cert.',
    );
  }
  return pass(`admission-tls present; ${webhooks.map((w) => w.name).join(', ')} trusts it`);
}

// ---- api-reachable

function checkApiReachable(input: CheckInput): Outcome {
  const { snapshot } = input;
  const rec = cluster(input);
  if (snapshot.api.reachable) {
    const versions = [...new Set(snapshot.api.nodes.map((n) => n.software_version).filter(Boolean))];
    return pass(
      `management API answered: ${snapshot.api.nodes.length} node(s)${versions.length ? ` on ${versions.join(', ')}` : ''}, ${snapshot.api.bdbs.length} database(s)`,
    );
  }
  const credentials = snapshot.credentials.present
    ? ''
    : ` The Secret ${snapshot.credentials.name} with the API credentials was not found.`;
  return fail(
    `the management API is not reachable: ${snapshot.api.error ?? 'unknown error'}.${credentials}`,
    `Pass --api-url (e.g. after ${kubectl('port-forward', `svc/${rec.name}`, '9443:9443', '-n', rec.namespace)}), --username with --password-file, and --ca-file or --insecure.`,
  );
}

// ---- permissions

export function permissionConditionsFor(
  snapshot: Snapshot,
  resolved: ResolvedUpgrade,
): Set<PermissionCondition> {
  const conditions = new Set<PermissionCondition>(['always']);
  conditions.add(resolved.method);
  if (snapshot.platform === 'openshift') conditions.add('openshift');
  // Under OLM the webhooks OLM owns are OLM's (src/steps/admission.ts); one applied by hand is ctl's.
  const ownedByCtl = snapshot.webhooks.some(
    (w) => resolved.method === 'bundle' || (resolved.method === 'olm' && !w.olmOwner),
  );
  if (ownedByCtl) conditions.add('admission');
  if (snapshot.watchedNamespaces.length > 1) conditions.add('multi-namespace');
  if (snapshot.operatorConfig.redbNamespacesLabel) conditions.add('namespace-label');
  if (snapshot.stateStore === 'configmap') conditions.add('cluster-state');
  return conditions;
}

function checkPermissions({ snapshot, resolved, required }: CheckInput): Outcome {
  const queries = requiredPermissionQueries(required, {
    namespace: snapshot.namespace,
    watchedNamespaces: snapshot.watchedNamespaces,
    conditions: permissionConditionsFor(snapshot, resolved),
  });
  const review = reviewLookup(snapshot.permissions);
  const denied = queries.filter((q) => review(q)?.allowed === false);
  const unreviewed = queries.filter((q) => review(q) === undefined);
  if (denied.length > 0) {
    return fail(
      `${denied.length} of ${queries.length} permissions the plan needs are denied: ${list(denied.map(describePermission), 6)}`,
      `Ask a cluster admin to grant them; check each with kubectl auth can-i, e.g. kubectl auth can-i ${describePermission(denied[0] as (typeof denied)[number])}`,
    );
  }
  if (unreviewed.length > 0) {
    return warn(
      `${unreviewed.length} of ${queries.length} permissions could not be reviewed: ${list(unreviewed.map(describePermission), 6)}`,
      'Check them with kubectl auth can-i <verb> <resource> -n <namespace>.',
    );
  }
  return pass(`all ${queries.length} permissions the plan needs are granted`);
}

// ---- helpers

function list(items: string[], max = 10): string {
  if (items.length <= max) return items.join(', ');
  return `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

export type { DatabaseTarget };
