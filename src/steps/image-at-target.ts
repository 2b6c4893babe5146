/**
 * Whether the StatefulSet's node image is the target image. A reference pinned by digest
 * (`repo@sha256:...` or `repo:tag@sha256:...`) runs the image of its digest, whatever its tag
 * says, so a digest-pinned template counts as upgraded only when its digest is not the one the
 * cluster pinned before the upgrade, and (when it names a tag) that tag is the target.
 * (Used by the monitor; kept apart because the monitor module is edited by several people.)
 */

import { parseImageReference } from '../release/image-reference.js';

export interface ImageTargetFacts {
  /** The target versionTag. */
  tag: string;
  /** The digestHash the cluster pinned before its upgrade started, when that was another tag. */
  oldDigest?: string | undefined;
  /** The digestHash the cluster resource pins now. */
  specDigest?: string | undefined;
}

export function imageAtTarget(image: string | undefined, facts: ImageTargetFacts): boolean {
  if (image === undefined) return true; // no template to judge: the rollout decides
  const { tag, digest } = parseImageReference(image);
  if (digest === undefined) return tag === facts.tag;
  if (facts.oldDigest !== undefined && sameDigest(digest, facts.oldDigest)) return false;
  if (tag !== undefined) return tag === facts.tag;
  // Digest only, not the old pin. When the resource pins no digest (OLM resolves images to
  // digests itself) ctl cannot tell the image from the reference: the rollout decides. When it
  // pins one, the template must carry exactly that digest.
  return facts.specDigest === undefined || sameDigest(digest, facts.specDigest);
}

/** `sha256:abc` and `abc` name the same digest (digestHash may be written without the algorithm). */
function sameDigest(a: string, b: string): boolean {
  const bare = (d: string): string => d.replace(/^sha256:/, '').toLowerCase();
  return bare(a) === bare(b);
}
