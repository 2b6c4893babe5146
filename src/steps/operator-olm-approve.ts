/** The operator step under OLM: the approval of exactly the target's InstallPlan. */

import { OperationError } from '../errors.js';
import { readObject } from '../kube/write.js';
import { installPlanOf, OLM_API_VERSION, type OlmInstallPlan } from '../planning/olm.js';
import type { StepContext } from '../run/step.js';
import type { UpgradeDeps } from './deps.js';
import { oc } from '../planning/equivalent-commands.js';

/**
 * Approves `plan`, conditionally on the version read (a 409 if OLM changed it since), after
 * checking once more that it installs the target CSV and nothing newer.
 */
export async function approveExactly(
  ctx: StepContext<UpgradeDeps>,
  namespace: string,
  plan: OlmInstallPlan,
  targetCsv: string,
): Promise<void> {
  const { kube } = ctx.deps;
  const ref = { apiVersion: OLM_API_VERSION, kind: 'InstallPlan', name: plan.name, namespace };
  const live = await readObject(kube, ref);
  const now = live ? installPlanOf(live) : undefined;
  if (
    !now ||
    !now.csvs.includes(targetCsv) ||
    now.csvs.some((csv) => csv !== targetCsv && csv.startsWith(targetCsv.split('.v')[0] ?? ''))
  ) {
    throw new OperationError(`InstallPlan ${plan.name} no longer installs exactly ${targetCsv}`, {
      hint: `ctl approves only the plan of the target. Look at ${oc(ctx.deps.snapshot.kubeTarget, 'get', 'installplan', plan.name, '-n', namespace, '-o', 'yaml')}, then run ctl again.`,
    });
  }
  if (now.approved) return;
  await ctx.recordIntent({
    method: 'olm',
    from: ctx.deps.snapshot.operator?.version ?? null,
    to: ctx.deps.plan.target.operator,
    targetCsv,
    approve: plan.name,
  });
  ctx.progress(`approving InstallPlan ${plan.name} (${targetCsv})`);
  await ctx.deps.kubeWriter.mergePatch(ref, {
    metadata: { resourceVersion: live?.metadata?.resourceVersion },
    spec: { approved: true },
  });
}
