/**
 * Which operator release shipped a Redis Software build: the catalog's cluster tags read
 * backwards (`8.0.20-96` is the RS of tag `8.0.20-96.26`, which operator 8.0.20-26 lists). A
 * remote Active-Active participant reports only its RS build (`/v1/nodes` software_version), so
 * this is how its operator is known (src/planning/participant-judgment.ts).
 *
 * A build re-published by a later maintenance release (7.4.6-102 is listed by 7.4.6-2 and
 * 7.4.6-6; RS 8.2.0-78 by 8.2.0-15 and 8.2.0-18) maps to every release that lists it, oldest
 * first: the participant runs one of them. A full tag's operator build (`8.2.0-78.18`) narrows it.
 */

import { clusterTagsFor, knownOperatorVersions, releaseEntryFor } from './catalog.js';
import { compareReleases, parseImageTag, parseRelease, type Release } from './versions.js';

/** `8.0.20-96`, `8.0.20-96.26` or `7.4.6-232.rhel8-openshift` -> its RS release and build. */
export function rsBuildOf(
  text: string,
): { rs: Release; build: number; operatorBuild?: number | undefined } | undefined {
  const tag = parseImageTag(text.trim());
  if (tag) return { rs: tag.rs, build: tag.build, operatorBuild: tag.operatorBuild };
  const bare = /^(\d+\.\d+\.\d+)-(\d+)$/.exec(text.trim());
  const rs = bare ? parseRelease(bare[1]!) : undefined;
  return rs && bare ? { rs, build: Number(bare[2]) } : undefined;
}

/**
 * The operator releases whose cluster tags (Kubernetes or OpenShift) hold this RS build, oldest
 * first; empty when the catalog lists no release with it (or the text has no build number).
 */
export function operatorsShipping(rsBuild: string): string[] {
  const wanted = rsBuildOf(rsBuild);
  if (!wanted) return [];
  return knownOperatorVersions().filter((operator) => {
    const tags = [...(clusterTagsFor(operator) ?? [])];
    const openshift = releaseEntryFor(operator)?.openshiftClusterTag;
    if (openshift) tags.push(openshift);
    return tags.some((tag) => {
      const parsed = parseImageTag(tag);
      if (
        parsed === undefined ||
        compareReleases(parsed.rs, wanted.rs) !== 0 ||
        parsed.build !== wanted.build
      )
        return false;
      // `8.2.0-78.18`: the operator build tells 8.2.0-18 from 8.2.0-15, which share RS build 78.
      return wanted.operatorBuild === undefined || parsed.operatorBuild === wanted.operatorBuild;
    });
  });
}
