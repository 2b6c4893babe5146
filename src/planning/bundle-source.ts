/**
 * Before any change: the release files the run will fetch (the bundle, the webhook, the
 * multi-namespace Role and RoleBinding) must have a trustworthy upstream git tag, or come from
 * `--bundle`. A missing tag found halfway through the operator step (after helm already ran)
 * would leave the upgrade half done, so the plan refuses it up front and names the way out.
 */

import { UsageError } from '../errors.js';
import { gitTagFor, missingTagReason, taggedNeighbourOf } from '../release/catalog.js';
import type { ResolvedVersions } from './resolve.js';
import type { Snapshot } from './snapshot.js';
import type { Target } from './target.js';

/** Why the run needs files of the release tree; `undefined` when it needs none. */
export function releaseFilesNeededFor(snapshot: Snapshot, resolved: ResolvedVersions): string | undefined {
  if (resolved.method === 'bundle') return 'the operator is upgraded from the release bundle';
  const watched = snapshot.watchedNamespaces.filter((n) => n !== snapshot.namespace);
  if (watched.length > 0)
    return `the Role and RoleBinding redb-role of the release are reapplied in ${watched.join(', ')}`;
  return undefined;
}

/** Throws the UsageError that names `--bundle` and the nearest tagged release. */
export function assertReleaseFilesLocatable(
  snapshot: Snapshot,
  target: Target,
  resolved: ResolvedVersions,
  operatorIsCurrent: boolean,
): void {
  if (operatorIsCurrent || target.bundle || gitTagFor(target.operator) !== undefined) return;
  const needed = releaseFilesNeededFor(snapshot, resolved);
  if (!needed) return;
  throw noReleaseFilesError(target.operator, snapshot.platform, needed);
}

/** No trustworthy upstream release files for `operator`: what to pass instead, or where to go. */
export function noReleaseFilesError(
  operator: string,
  platform: Snapshot['platform'],
  needed: string,
): UsageError {
  const neighbour = taggedNeighbourOf(operator);
  const file = platform === 'openshift' ? 'openshift.bundle.yaml' : 'bundle.yaml';
  return new UsageError(
    `no upstream release files for operator ${operator}: ${missingTagReason(operator) ?? 'no trustworthy git tag'}; ${needed}`,
    {
      hint:
        `Pass --bundle FILE_OR_URL with the ${file} of ${operator} (its admission/ and multi-namespace-redb/ files next to it)` +
        (neighbour ? `, or upgrade to --to ${neighbour}, the nearest release that has a tag.` : '.'),
    },
  );
}
