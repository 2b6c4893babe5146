/**
 * Part of the check `modules-compatible`, for `--user-defined-modules`: the cluster step writes
 * the list into the cluster resource's spec.userDefinedModules, in the same patch as the new
 * versionTag, and the API server keeps it only if the CRD live at that moment declares the field
 * (src/planning/cluster-crd.ts). Which CRD that is:
 * - the operator step runs (the operator is not yet on the target, and --only/--skip leave the
 *   step): it installs the target's CRD first, which declares the field (the flag is refused for
 *   a target before 8.0.6-8: src/cli/upgrade-actions.ts), so nothing more to ask;
 * - the operator step does not run (`--skip operator`, an `--only` without it, or the operator
 *   already on the target): the CRD installed now, which the plan read. An operator upgraded
 *   without its CRDs leaves an old one behind.
 * The run would otherwise set the versionTag, lose the list, and fail on reading it back, with
 * the cluster already upgrading and the custom modules not listed.
 */

import { CLUSTER_CRD_NAME } from '../kube/reads.js';
import { upstreamFileUrl } from '../release/catalog.js';
import { type CheckInput, failFirm, type Outcome, pass, warn } from './checks/check.js';
import type { ResolvedUpgrade } from './resolve.js';
import type { Target } from './target.js';
import { declaresUserDefinedModulesAt } from './cluster-crd.js';
import { USER_DEFINED_MODULES_FIELD_FROM, targetHasUserDefinedModulesField } from './module-fix.js';
import { operatorIsCurrent } from './operator-current.js';
import { runsStep } from './step-selection.js';
import { type KubeTarget, kubectl } from './equivalent-commands.js';

const FIELD = 'spec.userDefinedModules';

/** How to see it by hand: prints `array` where the CRD declares the field, nothing where not. */
function seeField(kube: KubeTarget): string {
  return `${kubectl(kube, 'get', 'crd', CLUSTER_CRD_NAME)} -o jsonpath='{.spec.versions[*].schema.openAPIV3Schema.properties.spec.properties.userDefinedModules.type}'`;
}

/**
 * Whether this run's operator step installs the target's CRD before the cluster step: it runs
 * (--only/--skip leave it) and the operator is not yet on the target. Where it does not, the CRD
 * live now is the one the cluster step writes through. The one rule for the plan's check below and
 * the cluster step's guard (src/steps/cluster.ts), which a dry run meets before any such install.
 */
export function operatorStepInstallsClusterCrd(
  target: Pick<Target, 'steps'>,
  resolved: Pick<ResolvedUpgrade, 'operator'>,
): boolean {
  return runsStep(target.steps, 'operator') && !operatorIsCurrent(resolved);
}

/**
 * The outcome for the CRD the cluster step writes through; undefined when there is nothing to
 * judge (no list, this hop's target does not set it, or the operator step installs the target's CRD).
 */
export function userDefinedModulesFieldOutcome(input: CheckInput): Outcome | undefined {
  const { snapshot, target, resolved } = input;
  const modules = target.userDefinedModules ?? [];
  const cluster = snapshot.cluster;
  if (modules.length === 0 || !cluster || !targetHasUserDefinedModulesField(target.operator))
    return undefined;
  if (operatorStepInstallsClusterCrd(target, resolved)) return undefined;
  const operatorStepRuns = runsStep(target.steps, 'operator');

  const names = modules.map((m) => m.name).join(', ');
  const running = resolved.operator.current ?? target.operator;
  const why = operatorStepRuns
    ? `the operator already runs ${running}, so the run installs no CRD`
    : `the operator step does not run (--only/--skip), so the run installs no CRD`;
  const crd = snapshot.clusterCrd;
  if (!crd || !crd.read) {
    return warn(
      `cannot tell whether the CRD ${CLUSTER_CRD_NAME} declares ${FIELD} (${crd?.error ?? 'not read'}); ${why}, and the cluster step sets ${names} there`,
      `Check it (prints array when declared): ${seeField(snapshot.kubeTarget)}`,
    );
  }
  const declared = declaresUserDefinedModulesAt(crd, cluster.apiVersion);
  if (declared === true) return pass(`the CRD ${CLUSTER_CRD_NAME} declares ${FIELD}`);
  const version = cluster.apiVersion.split('/').at(-1) ?? cluster.apiVersion;
  const fix = operatorStepRuns
    ? `Apply the cluster resource's CRD of operator ${running} (it declares ${FIELD} from ${USER_DEFINED_MODULES_FIELD_FROM}): ${kubectl(snapshot.kubeTarget, 'apply', '--server-side', '-f', upstreamFileUrl(running, 'crds/rec_crd.yaml'))}, then plan again`
    : `Let the operator step run (drop --skip operator, or add --only operator): it installs the CRD of ${target.operator}, which declares ${FIELD}; or apply that CRD first (${kubectl(snapshot.kubeTarget, 'apply', '--server-side', '-f', upstreamFileUrl(target.operator, 'crds/rec_crd.yaml'))})`;
  return failFirm(
    `the CRD ${CLUSTER_CRD_NAME} ${declared === false ? `does not declare ${FIELD} (version ${version})` : `does not serve version ${version}`} and ${why}: the API server would drop the list (${names}) the cluster step sets with the new versionTag, and the cluster would upgrade without it`,
    `${fix}. See it: ${seeField(snapshot.kubeTarget)}`,
    `the API server drops ${FIELD} whatever ctl ignores`,
  );
}
