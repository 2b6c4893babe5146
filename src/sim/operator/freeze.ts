import { clusterTagRunsRhel9, databaseTooOldForRhel9, MIN_DATABASE_ON_RHEL9 } from '../world/releases.js';
import { operatorAtLeast } from '../world/versions.js';
import { USER_DEFINED_MODULES_FROM } from '../crds.js';
import type { RestModel } from '../rest/model.js';
import { isRhel9Platform } from '../rest/module-package.js';
import { rsAtLeast } from '../rest/access.js';
import { USER_DEFINED_MODULES_SINCE } from '../rest/user-defined-modules.js';

/**
 * What freezes a cluster upgrade (redis-facts.md §3 "Troubleshooting a frozen upgrade"): from
 * 7.8.2-6 on the nodes run RHEL9 images, so every database must be at 7.2 or later and every
 * module in use needs a RHEL9 build (`rhel9/...`, `rocky9/...`: isRhel9Platform). Read from the
 * management API's state, because that is where the fixes (POST /v2/modules,
 * POST /v1/bdbs/<uid>/upgrade) land.
 */
export interface UpgradeBlocker {
  reason: 'UnsupportedModule' | 'IncompatibleDatabaseVersion';
  message: string;
}

/** True when an upgrade to `targetTag` under `operatorVersion` runs RHEL9 images. */
export function targetNeedsRhel9(targetTag: string, operatorVersion: string | undefined): boolean {
  if (clusterTagRunsRhel9(targetTag)) return true;
  return operatorVersion !== undefined && operatorAtLeast(operatorVersion, '7.8.2-6');
}

/**
 * The operator that owns spec.userDefinedModules (from 8.0.6-8: its notes' "API changes";
 * redis/docs `content/operate/kubernetes/release-notes/8-0-6-releases/`) fetches each listed
 * module's build for the new version itself during the cluster upgrade (redis/docs
 * `content/operate/kubernetes/re-databases/modules.md`, "Upgrade with user-defined modules":
 * listed by module_name or display_name), so a listed module does not freeze the upgrade.
 */

export function upgradeBlockers(
  rest: RestModel,
  targetTag: string,
  operatorVersion: string | undefined,
  userDefinedModules: readonly string[] = [],
): UpgradeBlocker[] {
  if (!targetNeedsRhel9(targetTag, operatorVersion)) return [];
  const blockers: UpgradeBlocker[] = [];
  for (const bdb of rest.bdbs) {
    if (databaseTooOldForRhel9(bdb.databaseVersion)) {
      blockers.push({
        reason: 'IncompatibleDatabaseVersion',
        message:
          `database ${bdb.name} (uid ${bdb.uid}) runs Redis ${bdb.databaseVersion}, below ${MIN_DATABASE_ON_RHEL9} ` +
          `which cluster version ${targetTag} (operator 7.8.2-6 and later) requires: the upgrade cannot ` +
          `continue until the database is upgraded (POST /v1/bdbs/${bdb.uid}/upgrade with a version of at least ` +
          `${MIN_DATABASE_ON_RHEL9})`,
      });
    }
    for (const used of bdb.module_list) {
      const installed = rest.findModule(used.module_name, used.semantic_version);
      const platforms = installed ? Object.keys(installed.platforms) : [];
      if (platforms.some(isRhel9Platform)) continue;
      const listed = [used.module_name, installed?.display_name].some(
        (name) => name !== undefined && userDefinedModules.includes(name),
      );
      if (
        listed &&
        operatorVersion !== undefined &&
        operatorAtLeast(operatorVersion, USER_DEFINED_MODULES_FROM)
      )
        continue;
      blockers.push({
        reason: 'UnsupportedModule',
        message:
          `database ${bdb.name} (uid ${bdb.uid}) uses module ${used.module_name} ${used.semantic_version}, which has no ` +
          `rhel9 build (platforms: ${platforms.join(', ') || 'none'}); cluster version ${targetTag} runs RHEL9 images: ` +
          whatLiftsIt(used.module_name, used.semantic_version, rest.serverVersion, operatorVersion),
      });
    }
  }
  return blockers;
}

/**
 * The end of the operator's line. The build to install is the one of the version in use ("The
 * module version matches the version currently used by databases": redis/docs
 * rs/7.8/installing-upgrading/upgrading/upgrade-os.md, "Prerequisites"). RedisGraph has none to
 * install: "The RedisGraph module has reached End-of-Life and is completely unavailable in RHEL 9"
 * (rs/release-notes/rs-7-4-2-releases/_index.md, "RedisGraph prevents upgrade to RHEL 9").
 *
 * How to install it depends on the cluster's RS, whose API takes the build while the upgrade is
 * frozen (no node has been replaced yet): "Add a module to a cluster (Redis Software v7.22.x and
 * earlier)" is `POST /v2/modules`; "Add a user-defined module to a cluster (Redis Software v8.0.x
 * and later)" is `POST /v2/modules/user-defined` and, on each node, `POST
 * /v2/local/modules/user-defined/artifacts` (operate/oss_and_stack/stack-with-enterprise/install/
 * add-module-to-cluster.md; served from RS 8.0.2, rest/user-defined-modules.ts). An operator
 * whose REC declares spec.userDefinedModules (8.0.6-8 on) also fetches a module listed there
 * (kubernetes/re-databases/modules.md, "Upgrade with user-defined modules"). No source gives the
 * wording of the real operator's line: the text is the simulator's, naming only those remedies.
 */
function whatLiftsIt(
  moduleName: string,
  version: string,
  serverVersion: string,
  operatorVersion: string | undefined,
): string {
  if (moduleName.toLowerCase() === 'graph')
    return 'RedisGraph is end of life and has no rhel9 build: the upgrade cannot continue while the cluster holds it';
  const byApi = rsAtLeast(serverVersion, [...USER_DEFINED_MODULES_SINCE])
    ? 'POST /v2/modules/user-defined, then POST /v2/local/modules/user-defined/artifacts on each node'
    : 'POST /v2/modules';
  const byRec =
    operatorVersion !== undefined && operatorAtLeast(operatorVersion, USER_DEFINED_MODULES_FROM)
      ? `, or listed in the cluster resource's spec.userDefinedModules`
      : '';
  return `the upgrade cannot continue until the rhel9 build of ${moduleName} ${version} is installed (${byApi})${byRec}`;
}
