/**
 * The simulated image registry's answer to a pull of a cluster node image, as the kubelet gets
 * it: which image (which RS tag) the pod then runs, or why the pull fails.
 *
 * An image reference is `name[:tag][@digest]` (distribution/reference, reference.go: `reference
 * := name [ ":" tag ] [ "@" digest ]`). With both, the digest wins and the tag is only a label:
 * the pod runs the image the digest names, whichever tag that image has (moby reference/store.go
 * Get: "If reference contains both tag and digest, only lookup by digest as it takes precedence
 * over tag"; the REC CRD's ImageSpec.digestHash: "the container image is pulled according to the digest hash
 * instead of the image tag. The versionTag field must also be specified with the image tag
 * matching this digest hash", K8S `crds/rec_crd.yaml`). A digest the repository does not hold
 * fails to pull: the kubelet reports ErrImagePull, then ImagePullBackOff (kubernetes
 * pkg/kubelet/images/types.go ErrImagePull, ErrImagePullBackOff).
 *
 * The simulated registry's digest of `repository:tag` is imageDigest(`repository:tag`) (the one
 * the simulated OperatorHub's relatedImages name, src/sim/olm/objects.ts): one repository's
 * digests are its own, so a digest from another repository names nothing in this one.
 */

import { imageDigest } from '../olm/objects.js';
import type { SimWorld } from './world.js';

export type ImagePull =
  { pulled: true; tag: string } | { pulled: false; reason: 'ErrImagePull'; message: string };

export interface ImageReference {
  repository: string;
  tag: string | undefined;
  digest: string | undefined;
}

/** `name[:tag][@digest]`; a colon before the last slash belongs to a registry port, not to a tag. */
export function parseImageReference(image: string): ImageReference {
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const digest = at >= 0 ? image.slice(at + 1) : undefined;
  const colon = name.lastIndexOf(':');
  const tagged = colon > name.lastIndexOf('/');
  return {
    repository: tagged ? name.slice(0, colon) : name,
    tag: tagged ? name.slice(colon + 1) : undefined,
    digest,
  };
}

/** The node image reference the operator writes: `repository:versionTag`, plus `@digestHash` when pinned. */
export function nodeImageReference(repository: string, versionTag: string, digestHash?: string): string {
  return digestHash ? `${repository}:${versionTag}@${digestHash}` : `${repository}:${versionTag}`;
}

/**
 * What pulling `image` gives. By tag: the tag, when the registry holds it (SimWorld
 * clusterTagPublished). By digest: the tag of the image in that repository whose digest it is,
 * among the tags this world published and the reference's own tag; none: ErrImagePull with the
 * message containerd gives for a manifest the registry does not have ("failed to resolve
 * reference ...: not found", containerd remotes/docker/resolver.go ErrNotFound).
 */
export function pullNodeImage(image: string, world: SimWorld): ImagePull {
  const reference = parseImageReference(image);
  if (reference.digest === undefined) {
    if (reference.tag !== undefined && world.clusterTagPublished(reference.tag))
      return { pulled: true, tag: reference.tag };
    return notFound(image);
  }
  const candidates = [...(reference.tag === undefined ? [] : [reference.tag]), ...world.knownClusterTags()];
  const tag = candidates.find(
    (candidate) =>
      world.clusterTagPublished(candidate) &&
      imageDigest(`${reference.repository}:${candidate}`) === reference.digest,
  );
  return tag === undefined ? notFound(image) : { pulled: true, tag };
}

/**
 * What pulling an image of the operator's own release gives: the operator, the bootstrapper
 * (the operator's image), the services rigger and the call-home client are tagged with the
 * operator version (redis-facts.md §1: `redislabs/operator:<version>`, DOCS deployment/helm.md
 * `redislabs/k8s-controller`; §12: `re-call-home-client:<operator-version>`). `releases` are the
 * operator versions whose images the registry holds (the world's, and the scenario's own). By
 * tag: one of them. By digest: the one whose `repository:version` has that digest in this
 * repository (the digest decides, as for the node image above); none: ErrImagePull.
 */
export function pullReleaseImage(image: string, releases: readonly string[]): ImagePull {
  const reference = parseImageReference(image);
  if (reference.digest === undefined) {
    if (reference.tag !== undefined && releases.includes(reference.tag))
      return { pulled: true, tag: reference.tag };
    return notFound(image);
  }
  const candidates = [...(reference.tag === undefined ? [] : [reference.tag]), ...releases];
  const tag = candidates.find(
    (candidate) =>
      releases.includes(candidate) &&
      imageDigest(`${reference.repository}:${candidate}`) === reference.digest,
  );
  return tag === undefined ? notFound(image) : { pulled: true, tag };
}

function notFound(image: string): ImagePull {
  return {
    pulled: false,
    reason: 'ErrImagePull',
    message: `failed to pull and unpack image "${image}": failed to resolve reference "${image}": ${image}: not found`,
  };
}
