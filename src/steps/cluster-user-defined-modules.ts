/**
 * `--user-defined-modules` in the cluster step: which modules this hop sets, the merge patch that
 * adds them to spec.userDefinedModules (the plan and the run share both), and the guards before
 * and after the write, since the API server keeps the list only where the CRD declares it.
 */

import { OperationError } from '../errors.js';
import { CLUSTER_CRD_NAME } from '../kube/reads.js';
import { describeRef, readObject } from '../kube/write.js';
import { clusterCrdFacts, declaresUserDefinedModulesAt } from '../planning/cluster-crd.js';
import { targetHasUserDefinedModulesField } from '../planning/module-fix.js';
import {
  listsEveryModule,
  mergedUserDefinedModules,
  type UserDefinedModule,
} from '../planning/user-defined-modules-patch.js';
import type { StepContext } from '../run/step.js';
import type { UpgradeDeps } from './deps.js';
import { type KubeTarget, kubectl } from '../planning/equivalent-commands.js';

/**
 * The modules of --user-defined-modules, where this hop's target cluster resource has the field:
 * the one rule for the plan and the run.
 */
export function modulesToSet(
  operator: string,
  modules: UserDefinedModule[] | undefined,
): UserDefinedModule[] {
  return targetHasUserDefinedModulesField(operator) ? (modules ?? []) : [];
}

/**
 * The merge patch that adds the given modules to spec.userDefinedModules, keeping the live
 * entries; undefined when the live list already holds every one (the run and its plan share it).
 */
export function userDefinedModulesBody(live: unknown, modules: readonly UserDefinedModule[]) {
  return modules.length > 0 && !listsEveryModule(live, modules)
    ? { spec: { userDefinedModules: mergedUserDefinedModules(live, modules) } }
    : undefined;
}

/**
 * Refuses, before the patch, where the cluster resource's CRD does not declare
 * spec.userDefinedModules (src/planning/cluster-crd.ts): the patch would set the versionTag and
 * lose the list. A CRD that cannot be read is left to the read-back below.
 */
export async function assertCrdKeepsModules(
  kube: StepContext<UpgradeDeps>['deps']['kube'],
  ref: Parameters<typeof readObject>[1],
  moduleNames: string,
): Promise<void> {
  const crd = await readObject(kube, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    name: CLUSTER_CRD_NAME,
  }).catch(() => undefined);
  if (!crd) return;
  const facts = clusterCrdFacts(crd);
  if (facts.read && declaresUserDefinedModulesAt(facts, ref.apiVersion) !== false) return;
  throw new OperationError(
    `not upgrading ${describeRef(ref)}: the CRD ${CLUSTER_CRD_NAME} does not declare spec.userDefinedModules, so the API server would drop the list (${moduleNames}) set with the new versionTag; nothing was changed`,
    {
      hint: `Let the operator step install the target's CRD (run without --skip operator), or apply the CRD of an operator from 8.0.6-8, then run ctl again.`,
    },
  );
}

/**
 * The API server keeps a field only where the cluster resource's CRD declares it: an older CRD
 * (an operator before 8.0.6-8) prunes spec.userDefinedModules without an error.
 */
export async function verifyModules(
  kube: StepContext<UpgradeDeps>['deps']['kube'],
  ref: Parameters<typeof readObject>[1],
  modules: UserDefinedModule[],
  kubeTarget: KubeTarget,
): Promise<void> {
  const after = await readObject(kube, ref);
  const kept = (after?.spec as Record<string, unknown> | undefined)?.userDefinedModules;
  if (listsEveryModule(kept, modules)) return;
  throw new OperationError(
    `spec.userDefinedModules of ${describeRef(ref)} does not list ${modules.map((m) => m.name).join(', ')} after setting it`,
    {
      hint: `The cluster resource's CRD may be older than operator 8.0.6-8 (the API server drops fields it does not declare): check ${kubectl(kubeTarget, 'get', 'crd', 'redisenterpriseclusters.app.redislabs.com', '-o', 'yaml')} | grep userDefinedModules, let the operator step finish, then run ctl again.`,
    },
  );
}
