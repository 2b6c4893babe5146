/**
 * The files of the release tree, next to the bundle, that the run reads for a target, by the
 * steps' own plans (asked by the plan's `target-available` check, src/planning/target-available.ts):
 * those planning can tell (`admission/webhook.yaml`, the `multi-namespace-redb/` files), and
 * `openshift/scc.yaml` where the security-context step applies it before the roll (its plan,
 * src/steps/security-context-plan.ts: the target still runs privileged pods, auto adjustment is
 * on, or the SCC is missing or deleted by the helm upgrade while the pods still need it).
 */

import { releaseTreeFilesRead } from '../planning/target-available.js';
import type { ResolvedVersions } from '../planning/resolve.js';
import { resolveUpgrade } from '../planning/resolve.js';
import type { Snapshot } from '../planning/snapshot.js';
import type { Target } from '../planning/target.js';
import { planSccBeforeRoll, sccPlanInput } from './security-context-plan.js';

export function releaseFilesRead(snapshot: Snapshot, resolved: ResolvedVersions, target: Target): string[] {
  const files = releaseTreeFilesRead(snapshot, resolved);
  const cluster = snapshot.cluster;
  if (snapshot.platform === 'openshift' && cluster) {
    const context = { snapshot, target, resolved: resolveUpgrade(snapshot, target), checks: [] };
    // Every plan of the step that acts applies the release's SCC first.
    if ('actions' in planSccBeforeRoll(sccPlanInput(context, cluster))) files.push('openshift/scc.yaml');
  }
  return files;
}
