/**
 * The operator step from the release bundle: server-side apply (force) of every object of the
 * bundle, CRDs first.
 */

import { loadManifests, orderForApply } from '../kube/bundle.js';
import { displayLocation } from '../kube/download.js';
import type { KubeObject } from '../kube/reads.js';
import { noReleaseFilesError } from '../planning/bundle-source.js';
import type { StepContext } from '../run/step.js';
import type { UpgradeDeps } from './deps.js';

/** The bundle of the target release; the plan refuses a release without one before any run. */
function bundleToApply(deps: UpgradeDeps): string {
  if (deps.resolved.bundle) return deps.resolved.bundle;
  throw noReleaseFilesError(
    deps.resolved.operator.target,
    deps.snapshot,
    'the operator is upgraded from the release bundle',
  );
}

/** Applies the bundle of the target (recording the intent first); answers the CRDs it carries. */
export async function upgradeThroughBundle(
  ctx: StepContext<UpgradeDeps>,
  namespace: string,
  from: string | undefined,
  watched: string[],
): Promise<KubeObject[]> {
  const { deps, io } = ctx;
  const { kubeWriter } = deps;
  const target = deps.plan.target.operator;
  const location = bundleToApply(deps);
  const objects = orderForApply(await loadManifests(location, { namespace, signal: ctx.signal, io }));
  await ctx.recordIntent({
    method: 'bundle',
    from: from ?? null,
    to: target,
    // The state file holds no credential: the location as ctl prints it (user, password and
    // query values as ***).
    bundle: displayLocation(location),
    objects: objects.length,
    roleNamespaces: watched,
  });
  ctx.progress(`applying ${objects.length} objects of ${location}`);
  await kubeWriter.apply(objects);
  return objects.filter((o) => o.kind === 'CustomResourceDefinition');
}
