/**
 * What each module that freezes the upgrade calls for, as ../planning/module-fix.ts decides it
 * for the plan: while the target takes uploads, the RHEL9 build of the version in use; from RS 8
 * the database upgrade or spec.userDefinedModules; and for RedisGraph, which has no RHEL9 build at
 * all (RS 7.4.2 and 7.8 release notes, "RedisGraph prevents upgrade to RHEL 9"), its removal:
 * nothing can be uploaded for it, so neither the printed commands nor --remediate offer an upload.
 */

import type { KubeTarget } from '../planning/equivalent-commands.js';
import { hasNoRhel9Build, moduleFix, redisGraphFix } from '../planning/module-fix.js';
import type { Blocker } from './remediate-blockers.js';

export type ModuleBlocker = Extract<Blocker, { kind: 'module' }>;

/** The modules an upload of their RHEL9 build can fix, and those (RedisGraph) it cannot. */
export function splitByUpload(modules: readonly ModuleBlocker[]): {
  uploadable: ModuleBlocker[];
  noBuild: ModuleBlocker[];
} {
  return {
    uploadable: modules.filter((m) => !hasNoRhel9Build(m.module)),
    noBuild: modules.filter((m) => hasNoRhel9Build(m.module)),
  };
}

/**
 * The fix of one frozen module for the target. Frozen during the cluster upgrade, the operator
 * step is done and the target's CRD is in: the running operator is the target.
 */
export function frozenModuleFix(
  blocker: ModuleBlocker,
  targetOperator: string,
  cluster: { name: string; namespace: string },
  kube: KubeTarget,
): string {
  return moduleFix({
    kube,
    targetOperator,
    currentOperator: targetOperator,
    module: blocker.module,
    version: blocker.version,
    isBundled: blocker.isBundled,
    cluster,
    databases: blocker.databases.map((d) => d.name),
  });
}

/** The fix of a module with no RHEL9 build at all (RedisGraph): remove it; whatever the target. */
export function noBuildFix(blocker: ModuleBlocker): string {
  return redisGraphFix(blocker.databases.map((d) => d.name));
}
