/**
 * A rolling upgrade that waits on an image the node's kubelet cannot pull: the new pod stays
 * Pending, its container waiting with reason ErrImagePull, then ImagePullBackOff (kubernetes
 * pkg/kubelet/images/types.go: ErrImagePull, ErrImagePullBackOff, ErrInvalidImageName
 * "InvalidImageName", ErrImageNeverPull), and the StatefulSet does not replace the next pod
 * until it is ready. `kubectl get pods` shows the reason; `kubectl describe pod` the registry's
 * error. A wrong digest (digestHash of another repository or of no image), a tag the registry
 * does not hold (a mirror without it), or a pinned bootstrapper image can each cause it.
 * (Kept apart from the monitor, which several people edit.)
 */

import { oneLine } from '../io/safe-text.js';
import { array, getPath, record, str } from '../json-read.js';
import type { KubeObject } from '../kube/reads.js';
import { type KubeTarget, kubectl, kubectlMergePatch, patchAt } from '../planning/equivalent-commands.js';
import { parseImageReference } from '../release/image-reference.js';
import type { DialectFields } from '../release/dialect.js';
import { compareNatural } from '../io/text-order.js';

/** The kubelet's waiting reasons for an image it could not (or may not) pull. */
const PULL_REASONS = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull']);

export interface ImagePullFailure {
  pod: string;
  container: string;
  image: string;
  reason: string;
}

/** The first pod (by name) with a container waiting on its image, if any. */
export function imagePullFailure(pods: Iterable<KubeObject>): ImagePullFailure | undefined {
  const sorted = [...pods].sort((a, b) => compareNatural(a.metadata?.name ?? '', b.metadata?.name ?? ''));
  for (const pod of sorted) {
    const images = new Map(
      array(getPath(pod, ['spec', 'containers'])).map((c) => [str(record(c).name), str(record(c).image)]),
    );
    const statuses = [
      ...array(getPath(pod, ['status', 'initContainerStatuses'])),
      ...array(getPath(pod, ['status', 'containerStatuses'])),
    ].map(record);
    for (const status of statuses) {
      const reason = str(getPath(status, ['state', 'waiting', 'reason']));
      if (reason === undefined || !PULL_REASONS.has(reason)) continue;
      const container = str(status.name) ?? '';
      const image = images.get(container) ?? str(status.image) ?? '';
      return { pod: pod.metadata?.name ?? '', container, image, reason };
    }
  }
  return undefined;
}

/** `pod rec-2 cannot pull the image "…" of its container bootstrapper (ImagePullBackOff)`. */
export function describeImagePullFailure(failure: ImagePullFailure): string {
  return `pod ${failure.pod} cannot pull the image "${oneLine(failure.image)}" of its container ${failure.container} (${failure.reason})`;
}

/**
 * What to do: read the registry's answer, then make the image pullable without changing the
 * version the roll goes to (a new versionTag while the state is Upgrade is not applied: the
 * operator logs "Upgrade Applied but will not start ...", RedisLabs/redis-enterprise-k8s-docs#89): a pinned digest set
 * to that tag's own digest, or removed; a missing tag pushed or mirrored where the nodes pull,
 * or the image spec's repository pointed at a registry that holds it.
 */
export function imagePullHint(
  failure: ImagePullFailure,
  target: { name: string; namespace: string },
  fields: DialectFields,
  kube: KubeTarget,
  waiting = false,
): string {
  const path = imageSpecPathOf(failure.container, fields);
  const { repository, tag, digest } = parseImageReference(failure.image);
  const named = tag === undefined ? repository : `${repository}:${tag}`;
  const field = path?.slice(1).join('.');
  let fix: string;
  if (digest !== undefined && path) {
    fix =
      `${field}.digestHash names no image of ${repository}: set it to the digest of ${named} in that repository, or remove it ` +
      `(${kubectlMergePatch(kube, 'rec', target.name, target.namespace, patchAt([...path, 'digestHash'], null))})`;
  } else if (path) {
    fix = `push or mirror ${named} to the registry the nodes pull from, or set ${field}.repository to one that holds it`;
  } else {
    fix = `push or mirror ${failure.image} to the registry the nodes pull from`;
  }
  return (
    `The registry does not serve that image: read its answer with ${kubectl(kube, 'describe', 'pod', failure.pod, '-n', target.namespace)}; ` +
    `${fix}. The roll goes on once the pod starts; ` +
    (waiting ? 'ctl keeps waiting for it (--stall-timeout).' : 'run ctl again to resume.')
  );
}

/** The path of the REC image spec that sets a node pod's container. */
function imageSpecPathOf(container: string, fields: DialectFields): readonly string[] | undefined {
  if (container === 'redis-enterprise-node') return fields.imageSpecPath;
  if (container === 'bootstrapper') return ['spec', 'bootstrapperImageSpec'];
  return undefined;
}
