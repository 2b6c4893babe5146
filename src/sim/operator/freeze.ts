import {
  MIN_DATABASE_FOR_RHEL9_TARGETS,
  RHEL9_TARGETS_FROM,
  requiresRhel9Modules,
} from '../../release/catalog.js';
import { compareReleases, parseOperatorVersion, rsVersionOfTag } from '../../release/versions.js';
import type { RestModel } from '../rest/model.js';
import { isNewer } from './database-versions.js';

/**
 * What freezes a cluster upgrade (redis-facts.md §3 "Troubleshooting a frozen upgrade"): from
 * 7.8.2-6 on the nodes run RHEL9 images, so every database must be at 7.2 or later and every
 * module in use needs a `rhel9/...` build. Read from the management API's state, because that
 * is where the fixes (POST /v2/modules, POST /v1/bdbs/<uid>/upgrade) land.
 */
export interface UpgradeBlocker {
  reason: 'UnsupportedModule' | 'IncompatibleDatabaseVersion';
  message: string;
}

/** RS release of the first RHEL9 cluster images (those of operator 7.8.2-6). */
const RHEL9_RS: readonly [number, number, number] = [7, 8, 2];

/** True when an upgrade to `targetTag` under `operatorVersion` runs RHEL9 images. */
export function targetNeedsRhel9(targetTag: string, operatorVersion: string | undefined): boolean {
  const rs = rsVersionOfTag(targetTag);
  if (rs && compareReleases(rs, RHEL9_RS) >= 0) return true;
  return operatorVersion !== undefined && parseOperatorVersion(operatorVersion) !== undefined
    ? requiresRhel9Modules(operatorVersion)
    : false;
}

export function upgradeBlockers(
  rest: RestModel,
  targetTag: string,
  operatorVersion: string | undefined,
): UpgradeBlocker[] {
  if (!targetNeedsRhel9(targetTag, operatorVersion)) return [];
  const blockers: UpgradeBlocker[] = [];
  for (const bdb of rest.bdbs) {
    if (isNewer(MIN_DATABASE_FOR_RHEL9_TARGETS, bdb.databaseVersion)) {
      blockers.push({
        reason: 'IncompatibleDatabaseVersion',
        message:
          `database ${bdb.name} (uid ${bdb.uid}) runs Redis ${bdb.databaseVersion}, below ${MIN_DATABASE_FOR_RHEL9_TARGETS} ` +
          `which cluster version ${targetTag} (operator ${RHEL9_TARGETS_FROM} and later) requires: the upgrade cannot ` +
          `continue until the database is upgraded (POST /v1/bdbs/${bdb.uid}/upgrade with a version of at least ` +
          `${MIN_DATABASE_FOR_RHEL9_TARGETS})`,
      });
    }
    for (const used of bdb.module_list) {
      const installed = rest.findModule(used.module_name, used.semantic_version);
      const platforms = installed ? Object.keys(installed.platforms) : [];
      if (platforms.some((platform) => platform.startsWith('rhel9/'))) continue;
      blockers.push({
        reason: 'UnsupportedModule',
        message:
          `database ${bdb.name} (uid ${bdb.uid}) uses module ${used.module_name} ${used.semantic_version}, which has no ` +
          `rhel9 build (platforms: ${platforms.join(', ') || 'none'}); cluster version ${targetTag} runs RHEL9 images: ` +
          `the upgrade cannot continue until a rhel9 build of ${used.module_name} is installed (POST /v2/modules)`,
      });
    }
  }
  return blockers;
}
