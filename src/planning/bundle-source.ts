/**
 * Before any change: every file of the release tree the run will fetch (the bundle, the
 * admission webhook, the multi-namespace Role and RoleBinding, the OpenShift SCC) must have a
 * trustworthy upstream git tag, or come from `--bundle`. Without a tag the upstream URL would be
 * `v<operator>`, which for some releases holds ANOTHER release's files (src/release/catalog.ts
 * gitTagFor; redis-facts.md §1: tags `v7.4.6-9` and `v7.8.6-11` hold the 8.0.6-8 and 8.0.10-21
 * bundles; §12: `v7.4.6-6` does not exist), and a fetch that fails halfway (after helm or the
 * bundle already upgraded the operator) would leave the upgrade half done. So the plan refuses
 * it up front and names the way out.
 *
 * Which files: each step declares those its run reads when it acts (StepPlanner.releaseFiles;
 * src/steps/release-files.ts lists them by step, method and state), and the plan asks only the
 * steps that act and that the run selects (buildPlan, src/planning/plan.ts): a cluster already at
 * the target, where the run ends before any step, needs none.
 */

import { UsageError } from '../errors.js';
import { gitTagFor, missingTagReason } from '../release/catalog.js';
import { neighbourAdvice } from './release-neighbour.js';
import type { ResolvedVersions } from './resolve.js';
import type { Snapshot } from './snapshot.js';
import type { Target } from './target.js';

/** A file of the release tree a step's run reads, and why (said when it cannot be located). */
export interface ReleaseFileUse {
  /** Relative to the release tree: `bundle.yaml`, `admission/webhook.yaml`, ... */
  file: string;
  why: string;
  /** The bundle itself (the operator step's artifact, probed as such), not a file next to it. */
  bundle?: true;
}

/** The bundle's file name in the release tree of the platform (the install pages' names). */
export function bundleFileName(platform: Snapshot['platform']): string {
  return platform === 'openshift' ? 'openshift.bundle.yaml' : 'bundle.yaml';
}

/**
 * What the operator step's run reads of the release tree when it acts (src/steps/operator.ts):
 * the bundle with the bundle method (operator-bundle.ts); with any method, the Role and
 * RoleBinding redb-role in each other namespace the operator watches (operator-redb-roles.ts).
 * The helm chart and the OLM catalog are no files of the tree (their own checks:
 * target-available, helm-available).
 */
export function operatorReleaseFiles(
  snapshot: Pick<Snapshot, 'platform' | 'watchedNamespaces' | 'namespace'>,
  resolved: Pick<ResolvedVersions, 'method'>,
): ReleaseFileUse[] {
  const uses: ReleaseFileUse[] = [];
  if (resolved.method === 'bundle')
    uses.push({
      file: bundleFileName(snapshot.platform),
      why: 'the operator is upgraded from the release bundle',
      bundle: true,
    });
  const watched = snapshot.watchedNamespaces.filter((n) => n !== snapshot.namespace);
  if (watched.length > 0) {
    const why = `the Role and RoleBinding redb-role of the release are reapplied in ${watched.join(', ')}`;
    uses.push(
      { file: 'multi-namespace-redb/role.yaml', why },
      { file: 'multi-namespace-redb/role_binding.yaml', why },
    );
  }
  return uses;
}

/** True when the release's files can be found: `--bundle`, or a trustworthy upstream tag. */
export function releaseFilesLocatable(target: Pick<Target, 'bundle' | 'operator'>): boolean {
  return Boolean(target.bundle) || gitTagFor(target.operator) !== undefined;
}

/** Throws the UsageError that names `--bundle` and a tagged release to go to instead when `uses` cannot be located. */
export function assertReleaseFilesLocatable(
  snapshot: Snapshot,
  target: Pick<Target, 'bundle' | 'operator'>,
  uses: readonly ReleaseFileUse[],
): void {
  if (uses.length === 0 || releaseFilesLocatable(target)) return;
  throw noReleaseFilesError(target.operator, snapshot, uses);
}

/**
 * No trustworthy upstream release files for `operator`: what to pass instead, or where to go (a
 * tagged release the plan would take on this cluster, src/planning/release-neighbour.ts).
 * `needed`: why the run reads them (the files, or the reason in words).
 */
export function noReleaseFilesError(
  operator: string,
  snapshot: Snapshot,
  needed: string | readonly ReleaseFileUse[],
): UsageError {
  const bundle = bundleFileName(snapshot.platform);
  const uses = typeof needed === 'string' ? [] : needed;
  const reasons = typeof needed === 'string' ? [needed] : [...new Set(uses.map((u) => u.why))];
  const beside = [...new Set(uses.filter((u) => !u.bundle).map((u) => u.file))];
  const besideWords =
    typeof needed === 'string'
      ? 'its admission/, multi-namespace-redb/ and openshift/ files next to it'
      : beside.length > 0
        ? `its ${beside.join(', ')} next to it, as in the release tree`
        : undefined;
  return new UsageError(
    `no upstream release files for operator ${operator}: ${missingTagReason(operator) ?? 'no trustworthy git tag'}; ${reasons.join('; ')}`,
    {
      hint:
        `Pass --bundle FILE_OR_URL with the ${bundle} of ${operator}${besideWords ? ` (${besideWords})` : ''}` +
        neighbourAdvice(operator, snapshot),
    },
  );
}
