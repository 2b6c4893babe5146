/**
 * What the monitor reads from each pod and node to judge a roll, whatever the StatefulSet's
 * update strategy: a pod is upgraded when it carries the StatefulSet's update revision
 * (`controller-revision-hash`), is ready, and its node container runs the target image (./image-at-target.ts);
 * a node is upgraded when the management API reports the target's Redis Software version
 * (`GET /v1/nodes`, `software_version`). Never `status.currentRevision`: Kubernetes does not
 * promote it under `OnDelete` (kubernetes/kubernetes #73492, #106055; redis-facts.md §12).
 * Shared by the monitor step (./monitor-view.ts, ./monitor-follower.ts, ./monitor-verify-nodes.ts)
 * and the cluster step.
 */

import type { ApiNode } from '../api/types.js';
import type { KubeObject } from '../kube/reads.js';
import { getPath } from '../json-read.js';

export const NODE_CONTAINER = 'redis-enterprise-node';

/** The image of a pod's (or a pod template's) node container, the first container when none is named so. */
export function nodeImageOf(
  podSpecOwner: KubeObject | undefined,
  specPath: readonly string[],
): string | undefined {
  const containers = getPath(podSpecOwner, [...specPath, 'containers']);
  if (!Array.isArray(containers)) return undefined;
  const list = containers as { name?: string; image?: string }[];
  return (list.find((c) => c.name === NODE_CONTAINER) ?? list[0])?.image;
}

/** The StatefulSet's update strategy is OnDelete: status.currentRevision never catches up. */
export function isOnDelete(sts: KubeObject | undefined): boolean {
  return getPath(sts, ['spec', 'updateStrategy', 'type']) === 'OnDelete';
}

/** The Redis Software version of a cluster image tag (`7.8.2-60` -> `7.8.2-60`, `8.0.18-36.14` -> `8.0.18-36`). */
export function rsVersionOfTag(tag: string): string {
  return /^\d+\.\d+\.\d+-\d+/.exec(tag)?.[0] ?? tag;
}

export interface NodeVersions {
  /** Every node reports the target version (and there is at least one node). */
  atTarget: boolean;
  /** `uid (version)` of the nodes that do not, yet. */
  behind: string[];
  versions: string[];
}

/** The nodes of `GET /v1/nodes` against the target tag. */
export function judgeNodes(nodes: readonly ApiNode[], tag: string): NodeVersions {
  const expected = rsVersionOfTag(tag);
  const behind = nodes
    .filter((node) => !(node.software_version ?? '').startsWith(expected))
    .map((node) => `${node.uid} (${node.software_version ?? 'unknown'})`);
  return {
    atTarget: nodes.length > 0 && behind.length === 0,
    behind,
    versions: nodes.map((node) => node.software_version),
  };
}
