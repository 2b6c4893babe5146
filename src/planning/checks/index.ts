/**
 * The preflight checks of `ctl upgrade plan` (CLI.md "Check ids"), in the one order the plan
 * runs and prints them. Each check is its own module in this folder (check.ts says what one is).
 * `--ignore-check <id>` turns that check's fail into a warn, recorded in the plan, except a
 * fail the run cannot get past (`ignorable: false`): that one stays a fail and says why.
 *
 * To add a check:
 *   1. write src/planning/checks/<id>.ts: a doc comment (what it reads, what it decides, its
 *      fix) and `export const <name>Check = { id: '<id>', run } as const satisfies Check;`
 *      (with `needsCluster: true` when it reads the cluster resource);
 *   2. add `<name>Check` to CHECKS below, where it belongs in the plan's order (one line, plus
 *      its import).
 * CHECK_IDS, CheckId, `--ignore-check`, `--help` and completion follow from CHECKS. Then list it
 * in docs/checks.md and test its decision in test/unit/planning/.
 */

import type { RequiredPermission } from '../permissions.js';
import { type ResolvedUpgrade, resolveUpgrade } from '../resolve.js';
import type { Snapshot } from '../snapshot.js';
import type { Target } from '../target.js';
import { admissionTlsCheck } from './admission-tls.js';
import { apiPermissionsCheck } from './api-permissions.js';
import { apiReachableCheck } from './api-reachable.js';
import { autoUpgradeDigestCheck } from './auto-upgrade-digest.js';
import { type CheckInput, FIRM_BECAUSE, type Outcome, warn } from './check.js';
import { clusterFoundCheck } from './cluster-found.js';
import { clusterRunningCheck } from './cluster-running.js';
import { databaseAvailabilityCheck } from './database-availability.js';
import { databaseMinVersionCheck } from './database-min-version.js';
import { databaseVersionSupportedCheck } from './database-version-supported.js';
import { helmAvailableCheck } from './helm-available.js';
import { helmReleaseHealthyCheck } from './helm-release-healthy.js';
import { licenseValidCheck } from './license-valid.js';
import { modulePackagesCheck } from './module-packages.js';
import { modulesCompatibleCheck } from './modules-compatible.js';
import { olmApprovalCheck } from './olm-approval.js';
import { olmClusterNameCheck } from './olm-cluster-name.js';
import { olmCsvHealthyCheck } from './olm-csv-healthy.js';
import { olmUpdatePathCheck } from './olm-update-path.js';
import { operatorMethodCheck } from './operator-method.js';
import { operatorMinVersionCheck } from './operator-min-version.js';
import { permissionsCheck } from './permissions.js';
import { platformSupportedCheck } from './platform-supported.js';
import { releaseAdvisoriesCheck } from './release-advisories.js';
import { releaseRulesCheck } from './release-rules.js';
import { targetAvailableCheck } from './target-available.js';
import { upgradePathCheck } from './upgrade-path.js';

export type { CheckStatus } from './check.js';
export { permissionConditionsFor } from './permissions.js';

/** Every check, in the order the plan runs and prints them: the only place where order lives. */
export const CHECKS = [
  clusterFoundCheck,
  clusterRunningCheck,
  licenseValidCheck,
  operatorMinVersionCheck,
  upgradePathCheck,
  targetAvailableCheck,
  databaseMinVersionCheck,
  databaseVersionSupportedCheck,
  modulesCompatibleCheck,
  databaseAvailabilityCheck,
  autoUpgradeDigestCheck,
  helmReleaseHealthyCheck,
  helmAvailableCheck,
  operatorMethodCheck,
  olmClusterNameCheck,
  olmApprovalCheck,
  olmUpdatePathCheck,
  olmCsvHealthyCheck,
  admissionTlsCheck,
  apiReachableCheck,
  permissionsCheck,
  apiPermissionsCheck,
  modulePackagesCheck,
  releaseAdvisoriesCheck,
  releaseRulesCheck,
  platformSupportedCheck,
] as const;

export type CheckId = (typeof CHECKS)[number]['id'];

export const CHECK_IDS: readonly CheckId[] = CHECKS.map((check) => check.id);

export function isCheckId(value: string): value is CheckId {
  return (CHECK_IDS as readonly string[]).includes(value);
}

export interface CheckResult extends Omit<Outcome, 'firmBecause'> {
  id: CheckId;
  /** Set when --ignore-check turned a fail into this warn. */
  ignored?: true;
}

/** Runs every check in CHECKS order. */
export function runChecks(
  snapshot: Snapshot,
  target: Target,
  options: { required: readonly RequiredPermission[]; resolved?: ResolvedUpgrade },
): CheckResult[] {
  const resolved = options.resolved ?? resolveUpgrade(snapshot, target);
  const input: CheckInput = { snapshot, target, resolved, required: options.required };
  return CHECKS.map((check) => {
    const id: CheckId = check.id;
    const decided: Outcome = noClusterOutcome(check, snapshot) ?? check.run(input);
    const { firmBecause, ...outcome } = decided;
    if (outcome.status !== 'fail' || !target.ignoreChecks.includes(id)) return { id, ...outcome };
    if (outcome.ignorable === false) {
      // A plan that says Ready must finish: a fail the run cannot get past stays a fail, and
      // says why the flag did not turn it into a warning (the same message in text and JSON).
      return {
        id,
        ...outcome,
        message: `${outcome.message} (--ignore-check ${id} cannot get past it: ${firmBecause ?? FIRM_BECAUSE})`,
      };
    }
    return {
      id,
      ...outcome,
      status: 'warn',
      message: `${outcome.message} (ignored with --ignore-check ${id})`,
      ignored: true,
    };
  });
}

/** True when a check fails: the plan may not run. */
export function isBlocked(checks: readonly CheckResult[]): boolean {
  return checks.some((check) => check.status === 'fail');
}

/** Checks that look at the cluster resource cannot say anything without one. */
function noClusterOutcome(check: (typeof CHECKS)[number], snapshot: Snapshot): Outcome | undefined {
  if (snapshot.cluster || !('needsCluster' in check && check.needsCluster)) return undefined;
  return warn('not checked: no cluster resource', 'Fix cluster-found first.');
}
