/**
 * The files of the target's release tree the run reads, by step (each declares its own,
 * StepPlanner.releaseFiles), read whenever that step acts:
 *
 * | step | method | when its plan acts | files |
 * |---|---|---|---|
 * | operator | bundle | the operator is not ready at the target | the bundle (`bundle.yaml`, `openshift.bundle.yaml`) |
 * | operator | any | the same, and it watches other namespaces | `multi-namespace-redb/role.yaml`, `role_binding.yaml` |
 * | admission | bundle; OLM with a webhook OLM does not own | this operator's webhook exists, even with the operator at the target (it compares, then applies only what differs) | `admission/webhook.yaml` |
 * | admission | helm; OLM owning the webhook | never (the chart, or OLM, manages it) | none |
 * | security-context | any, on OpenShift | the SCC is kept (target before 7.22.0-6, or allowAutoAdjustment), or re-applied until the roll | `openshift/scc.yaml` |
 *
 * The other steps read none. The plan refuses a target whose files it cannot locate when a step
 * that acts needs them (src/planning/bundle-source.ts); the `target-available` check asks whether
 * the files next to the bundle are there (src/planning/target-available.ts); and a step's run
 * never falls back to an upstream tag that holds another release's files (releaseFileToRead).
 */

import {
  noReleaseFilesError,
  releaseFilesLocatable,
  type ReleaseFileUse,
} from '../planning/bundle-source.js';
import { type PlanContext, releaseFile, type StepPlanner } from '../planning/plan.js';
import type { ResolvedVersions } from '../planning/resolve.js';
import type { Snapshot } from '../planning/snapshot.js';
import type { Target } from '../planning/target.js';
import type { UpgradeDeps } from './deps.js';

/**
 * The files next to a target's bundle that the run may read (the `target-available` probes,
 * src/planning/target-available.ts ArtifactProbes.answer): those of each step whose own plan acts,
 * the bundle itself apart (probed as the operator step's artifact). Asked before the path is
 * planned, for every hop's target: the steps that read release files plan from no database, so
 * their context carries none (deciding every database here would double the plan's cost, issue 39).
 */
export function releaseFilesReadBy(
  steps: readonly StepPlanner[],
): (snapshot: Snapshot, resolved: ResolvedVersions, target: Target) => string[] {
  return (snapshot, resolved, target) => {
    const cluster = snapshot.cluster;
    if (!cluster) return [];
    const context: PlanContext = { snapshot, target, resolved: { ...resolved, databases: [] }, checks: [] };
    const files = steps.flatMap((step) => {
      if (!step.releaseFiles) return [];
      const plan = step.plan(context, cluster);
      const acts = 'actions' in plan && plan.actions.length > 0;
      return acts ? step.releaseFiles(context).filter((use) => !use.bundle) : [];
    });
    return [...new Set(files.map((use) => use.file))];
  };
}

/**
 * Where a step's run reads a file of the release tree: next to the bundle (`--bundle`, or the
 * upstream tag's). A release without a trustworthy tag and no `--bundle` has no such place: the
 * plan refused it already (buildPlan), so this throws the same error rather than read the
 * `v<operator>` tag, which may hold another release's files.
 */
export function releaseFileToRead(
  deps: Pick<UpgradeDeps, 'resolved' | 'target' | 'snapshot'>,
  use: ReleaseFileUse,
): string {
  if (!releaseFilesLocatable(deps.target))
    throw noReleaseFilesError(deps.target.operator, deps.snapshot, [use]);
  return releaseFile(deps.resolved, deps.target, use.file);
}
