/**
 * The release a refusal's hint may send a person to instead of a target without a trustworthy
 * upstream tag (src/planning/bundle-source.ts noReleaseFilesError): of the same RS line's tagged
 * releases, nearest first (taggedNeighboursOf, src/release/catalog.ts), the first that the plan of
 * `--to <it>` would neither refuse nor warn against for its release: no known advisory affects it
 * (the `release-advisories` check fails or warns on any, src/planning/advisories.ts), and the
 * `platform-supported` check passes it on this cluster's Kubernetes or OpenShift version
 * (src/planning/platform.ts; under OLM, OperatorHub's narrower range too). Before, the hint named
 * the nearest tagged release whatever it was: for 7.8.6-11, 7.8.6-13, which reaadb-empty-password
 * affects and which does not list Kubernetes 1.33.
 *
 * Where the cluster's platform version is unknown (an OpenShift version ctl may not read), every
 * target's platform check warns alike: the choice then judges tag and advisories only, and says so.
 */

import { isAffectedByAny } from '../release/advisories.js';
import { taggedNeighboursOf } from '../release/catalog.js';
import { formatRelease, parseOperatorVersion } from '../release/versions.js';
import { ctlPlanTargets, ctlTargetOf } from './equivalent-commands.js';
import { checkPlatformSupported, clusterPlatformVersion } from './platform.js';
import type { Snapshot } from './snapshot.js';

const PLATFORM_NAMES = { kubernetes: 'Kubernetes', openshift: 'OpenShift' } as const;

/** The release to name (`undefined`: none qualifies), what it was chosen for, and what was not judged. */
export interface NeighbourChoice {
  release: string | undefined;
  /** `a tag, no known advisory and support for Kubernetes 1.32` */
  qualities: string;
  /** Set when the cluster's platform version is unknown, so support was not judged. */
  caveat: string | undefined;
}

/** The nearest tagged release of `operator`'s line that this cluster's plan would take without a refusal or warning about it. */
export function neighbourToSuggest(operator: string, snapshot: Snapshot): NeighbourChoice {
  const { kind, version } = clusterPlatformVersion(snapshot);
  const name = PLATFORM_NAMES[kind];
  const platformAccepts = (release: string): boolean =>
    version === undefined || checkPlatformSupported(snapshot, { operator: release }).status === 'pass';
  return {
    release: taggedNeighboursOf(operator).find(
      (candidate) => !isAffectedByAny(candidate) && platformAccepts(candidate),
    ),
    qualities:
      version === undefined
        ? 'a tag and no known advisory'
        : `a tag, no known advisory and support for ${name} ${version}`,
    caveat:
      version === undefined
        ? `ctl could not read the cluster's ${name} version to judge support for it`
        : undefined,
  };
}

/**
 * The end of the refusal's hint after `Pass --bundle ...`: `, or upgrade to --to <release>, ...`,
 * or, when no release of the line qualifies, that none does and where to look instead (the target
 * list, which judges every target with its hops on this cluster).
 */
export function neighbourAdvice(operator: string, snapshot: Snapshot): string {
  const { release, qualities, caveat } = neighbourToSuggest(operator, snapshot);
  const note = caveat ? ` (${caveat})` : '';
  if (release) return `, or upgrade to --to ${release}, the nearest release with ${qualities}${note}.`;
  const parsed = parseOperatorVersion(operator);
  const line = parsed ? `${formatRelease(parsed.release)} release` : 'release of its line';
  return `. No other ${line} has ${qualities}${note}: \`${ctlPlanTargets(ctlTargetOf(snapshot))}\` lists the targets this cluster can take.`;
}
