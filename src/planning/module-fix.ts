/**
 * What fixes a module in use that the target cluster cannot load, as the target's RS takes
 * modules (issue 27 item 6):
 *
 * - From RS 8.0 the standard modules (search, ReJSON, timeseries, bf) are bundled: a database
 *   upgraded to Redis 8 or later gets them enabled and upgraded with it, "you don't need to take
 *   any additional action" (redis/docs `content/operate/kubernetes/re-databases/modules.md`,
 *   "Upgrade with bundled modules"). The fix is to upgrade the database.
 * - Custom (user-defined) modules go into the cluster resource's `spec.userDefinedModules`
 *   (name and `source.https.url`) with a build whose `compatible_redis_version` matches, before
 *   the cluster upgrade (same page, "Upgrade with user-defined modules"). The field exists only
 *   from operator 8.0.6-8: its notes list it under "API changes" as added
 *   (release-notes/8-0-6-releases/8-0-6-8-december2025.md), and the REC CRD of every certified
 *   bundle before it lacks it (redhat-openshift-ecosystem/certified-operators,
 *   operators/redis-enterprise-operator-cert/<v>/manifests/rec_crd.yaml: absent up to 8.0.2-6.1,
 *   present from 8.0.6-8.0). 8.0.2-2 and 8.0.2-6 take no custom modules at all ("If you use
 *   custom (user-defined) modules, skip this release"; rule custom-modules-skip-8-0-2 of the
 *   catalog). Before 8.0.2-2 a module is uploaded through the API, or by
 *   `ctl upgrade run --remediate --module-file`.
 * - `POST /v2/modules` only while the target still takes uploads: the RS 8.0+ API docs no longer
 *   list it, and 8.2 refuses it (`403 modules_upload_disabled`) unless allowed
 *   (research/redis-facts.md §12).
 */

import { atLeast } from '../release/catalog.js';
import { type CtlTarget, ctlRunTo, curlApi, kubectlMergePatch } from './equivalent-commands.js';

/** The first operator release whose cluster runs RS 8.0 (its modules are bundled, uploads are gone). */
export const BUNDLED_MODULES_FROM = '8.0.2-2';

/** The first operator release whose REC has `spec.userDefinedModules` (see above). */
export const USER_DEFINED_MODULES_FIELD_FROM = '8.0.6-8';

/** Whether the target's cluster resource has `spec.userDefinedModules`. */
export function targetHasUserDefinedModulesField(targetOperator: string): boolean {
  return atLeast(targetOperator, USER_DEFINED_MODULES_FIELD_FROM);
}

/**
 * The modules RS 8 bundles (modules.md "Available bundled modules", "Bundled vs. user-defined
 * modules"). Only the fallback for where the management API does not say (isBundledModule).
 */
const BUNDLED_MODULES: ReadonlySet<string> = new Set(['search', 'rejson', 'timeseries', 'bf']);

export function targetTakesModuleUploads(targetOperator: string): boolean {
  return !atLeast(targetOperator, BUNDLED_MODULES_FROM);
}

/**
 * Whether RS 8 bundles the module (so it is no user-defined module there). The management API
 * says where each module came from: `is_bundled`, "Whether module came bundled with a version of
 * Redis Enterprise" (redis/docs `content/operate/rs/references/rest-api/objects/module.md`, in
 * every reference version, 7.4 to 8.x). Where it says:
 * - `false`: the module was uploaded, a custom (user-defined) module, whatever its name (a
 *   custom build named `search` is still custom);
 * - `true` on a cluster already on RS 8 (`reportedByRs8`): RS 8's own bundle;
 * - `true` on an older RS: it came with that RS, and RS 8 keeps only the modules of the list
 *   below (RedisGraph and RedisGears 2 came bundled with RS 7.x; RS 8 does not bundle them).
 * Where it does not (an API without the field, or a module known only from a database
 * resource's module list): the list below.
 */
export function isBundledModule(name: string, isBundled?: boolean, reportedByRs8 = false): boolean {
  if (isBundled === false) return false;
  if (isBundled === true && reportedByRs8) return true;
  return BUNDLED_MODULES.has(name.toLowerCase());
}

/** What the API says of a module's builds: bundled if any came bundled, custom if all say not, else unknown. */
export function reportedBundled(
  modules: readonly { is_bundled?: boolean | undefined }[],
): boolean | undefined {
  if (modules.some((m) => m.is_bundled === true)) return true;
  return modules.some((m) => m.is_bundled === false) ? false : undefined;
}

export interface ModuleFixInput {
  targetOperator: string;
  /**
   * The `--to` of the ctl run the fix proposes: on a hop before the last the final target
   * (Target.onTheWayTo), since one run goes through every hop; absent: targetOperator.
   */
  runTo?: string | undefined;
  /** The running operator's version (undefined: not known). */
  currentOperator?: string | undefined;
  module: string;
  /** The version the databases use (undefined: not known). */
  version?: string | undefined;
  /** What the management API says: `is_bundled` (undefined: it does not say). */
  isBundled?: boolean | undefined;
  /** The API that said so runs RS 8 or later. */
  reportedByRs8?: boolean;
  cluster: { name: string; namespace: string };
  /**
   * The kubeconfig and context chosen for ctl, which the fix's kubectl and ctl commands name, and
   * the `-n`/`--cluster` given, which its ctl command repeats.
   */
  kube: CtlTarget;
  /** The databases using it, for the text. */
  databases: string[];
}

/**
 * RedisGraph (`graph`) has no RHEL 9 build at all: "You cannot upgrade from a prior RHEL version
 * to RHEL 9 if the Redis Enterprise cluster contains a RedisGraph module, even if unused by any
 * database. The RedisGraph module has reached End-of-Life and is completely unavailable in RHEL 9"
 * (redis/docs `content/operate/rs/release-notes/rs-7-4-2-releases/_index.md`, "Known limitations",
 * "RedisGraph prevents upgrade to RHEL 9"; the same in `rs-7-8-releases/_index.md`). So no
 * upload, `--remediate` or spec.userDefinedModules entry can fix it: the fix is the catalog rule
 * redisgraph-blocks-rhel9's, remove it from the cluster, or stay on RHEL 8 images.
 */
export function hasNoRhel9Build(module: string): boolean {
  return module.toLowerCase() === 'graph';
}

/** The fix for RedisGraph: the same as the rule redisgraph-blocks-rhel9's (src/release/catalog.json). */
export function redisGraphFix(databases: readonly string[]): string {
  const users =
    databases.length > 0
      ? `move the data of ${databases.join(', ')} off and delete ${databases.length === 1 ? 'that database' : 'those databases'}`
      : 'move its data off and delete the databases that use it';
  return `RedisGraph (graph) is end of life and has no RHEL9 build at all, so nothing can be uploaded or listed for it: remove it from the cluster before the upgrade (${users}, then delete the module: even unused it blocks the move to RHEL9), or stay on a release before 7.8.2-6 (RHEL8 images)`;
}

/** One sentence: what to do about this module before (or to unfreeze) the upgrade. */
export function moduleFix(input: ModuleFixInput): string {
  const { module, cluster } = input;
  if (hasNoRhel9Build(module)) return redisGraphFix(input.databases);
  if (targetTakesModuleUploads(input.targetOperator)) {
    // Of the version in use: "The module version matches the version currently used by
    // databases" (redis/docs rs/7.8/installing-upgrading/upgrading/upgrade-os.md, "Prerequisites").
    const build = input.version ? `${module} ${input.version}, the version the databases use` : module;
    // ctl's own upload (--remediate) needs --ignore-check modules-compatible, since this check
    // stops the run: modules-compatible offers it, with that flag, after every module's fix.
    return `upload the RHEL9 build of ${build}: ${curlApi('POST', '/v2/modules', ['-F', 'module=@MODULE_RHEL9_ZIP'])}`;
  }
  if (isBundledModule(module, input.isBundled, input.reportedByRs8)) {
    // What to do, concretely: "Bundled modules are automatically enabled and upgraded when you
    // upgrade the database to Redis version 8 or later. You don't need to take any additional
    // action" (redis/docs content/operate/kubernetes/re-databases/modules.md, "Upgrade with
    // bundled modules"). The version is the database resource's spec.redisVersion; every RS 8
    // release of the catalog bundles database version 8.0 (its databaseVersions), so "8.0" or
    // later is one the target takes.
    const one = input.databases.length === 1;
    const names = input.databases.join(', ') || 'the database';
    return `${module} is bundled from RS 8: upgrade ${names} to Redis 8 or later, which enables and upgrades it with no module package to install: once the cluster runs RS 8, set spec.redisVersion of ${one || input.databases.length === 0 ? 'its database resource' : 'their database resources'} to "8.0" or later (ctl upgrade run does it in its databases step, to the target's default version, unless --databases leaves ${one || input.databases.length === 0 ? 'it' : 'them'} out)`;
  }
  if (!targetHasUserDefinedModulesField(input.targetOperator)) {
    return `${module} is a user-defined module, which ${input.targetOperator} does not support (its notes: "If you use custom (user-defined) modules, skip this release"): choose ${USER_DEFINED_MODULES_FIELD_FROM} or later, whose cluster resource lists user-defined modules`;
  }
  // The field comes with the target's CRD: on an older running operator it cannot be set before
  // the operator step, so ctl sets it with the new versionTag, as the upgrade docs do in one
  // edit (src/planning/user-defined-modules.ts).
  const byCtl = `${ctlRunTo(input.kube, input.runTo ?? input.targetOperator, '--user-defined-modules', 'FILE')} (FILE holding a list: - {name: ${module}, source: {https: {url: MODULE_URL}}}, MODULE_URL that of its build for the target), which sets it with the new versionTag after the operator upgrade`;
  const runningHasField =
    input.currentOperator !== undefined && targetHasUserDefinedModulesField(input.currentOperator);
  if (!runningHasField) {
    return `${module} is a user-defined module: list it in spec.userDefinedModules of the cluster resource with a build whose compatible_redis_version matches; the running operator's cluster resource has no such field (it comes from ${USER_DEFINED_MODULES_FIELD_FROM}), so let ctl set it: ${byCtl}; the ${input.targetOperator} cluster takes no uploads (POST /v2/modules)`;
  }
  const patch = kubectlMergePatch(input.kube, 'rec', cluster.name, cluster.namespace, {
    spec: {
      userDefinedModules: [{ name: module, source: { https: { url: 'MODULE_URL' } } }],
    },
  });
  // The running cluster resource has the field: the patch works now (and on a frozen upgrade,
  // whose cluster step is done, it is the only way).
  return `${module} is a user-defined module: list it in spec.userDefinedModules of the cluster resource with a build whose compatible_redis_version matches (${patch}, MODULE_URL that of its build for the target); the ${input.targetOperator} cluster takes no uploads (POST /v2/modules)`;
}

/**
 * Whether `--user-defined-modules` fixes this module for this target: a custom module (not
 * bundled, no uploads) for a target whose cluster resource has the field, listed by its
 * module_name or display_name (modules.md: "The name must match the module's display_name or
 * module_name").
 */
export function listedAsUserDefined(
  input: Pick<ModuleFixInput, 'targetOperator' | 'module' | 'isBundled' | 'reportedByRs8'>,
  displayNames: readonly string[],
  listed: readonly { name: string }[] | undefined,
): boolean {
  if (!listed || listed.length === 0) return false;
  // No build of RedisGraph exists for the target to fetch (hasNoRhel9Build).
  if (hasNoRhel9Build(input.module)) return false;
  if (targetTakesModuleUploads(input.targetOperator)) return false;
  if (isBundledModule(input.module, input.isBundled, input.reportedByRs8)) return false;
  if (!targetHasUserDefinedModulesField(input.targetOperator)) return false;
  const names = new Set([input.module, ...displayNames]);
  return listed.some((entry) => names.has(entry.name));
}
