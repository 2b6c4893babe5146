/**
 * The one merge patch that starts a cluster upgrade, shared by the cluster step's plan and its
 * run (so the plan shows exactly what the run sends) and by the auto-upgrade-digest check.
 *
 * It sets the node image spec's `versionTag` to the target tag and every other image spec
 * pinned in the spec (services rigger, bootstrapper, usageMeter.callHomeClient) to the operator
 * version. An image spec with a `digestHash` pins the image by digest: a new tag next to the old
 * digest still runs the old image. So a pinned digest moves with its tag when ctl knows the
 * target's digest; when it does not (ctl has no digest catalogue: the usual case), the patch is
 * refused with the exact fix: remove digestHash, or set it to the target image's digest.
 * digestHash is "only supported for OLM deployments" (DOCS kubernetes/reference/
 * redis_enterprise_cluster_api.md, ImageSpec; redis-facts.md §12).
 */

import { dialectFields, type Dialect } from '../release/dialect.js';
import { type KubeTarget, kubectlMergePatch, mergeBodies, patchAt } from './equivalent-commands.js';
import { fromShellVariable } from './json-shell-variables.js';
import { type ClusterSnapshot, type ImageSpec, otherImageSpecPath } from './snapshot.js';

export interface ImageMove {
  /** The image spec's path under `spec`, dotted (`redisEnterpriseImageSpec`). */
  field: string;
  path: string[];
  from?: string | undefined;
  to: string;
  /** The digest the spec pins now, if any. */
  digestHash?: string | undefined;
  /** The node image spec (the first move). */
  node?: boolean | undefined;
}

/**
 * The digest of the image `move` goes to (`repository:tag`), when the caller knows it: under OLM,
 * the target CSV's relatedImages (src/steps/olm-digests.ts). `node` marks the node image spec.
 */
export type DigestLookup = (
  repository: string | undefined,
  tag: string,
  image: { field: string; node: boolean },
) => string | undefined;

export type ClusterPatch =
  | { kind: 'patch'; body: Record<string, unknown>; moves: ImageMove[] }
  | { kind: 'refuse'; message: string; fix: string; pinned: ImageMove[] };

const noDigests: DigestLookup = () => undefined;

/** Every image spec the upgrade moves: the node's to `tag`, the others set in the spec to the operator version. */
export function imageMoves(
  cluster: ClusterSnapshot,
  dialect: Dialect,
  tag: string,
  operatorVersion: string,
): ImageMove[] {
  const nodePath = [...dialectFields(dialect).imageSpecPath];
  const moves: ImageMove[] = [
    {
      field: nodePath.slice(1).join('.'),
      path: nodePath,
      from: cluster.image.versionTag,
      to: tag,
      digestHash: cluster.image.digestHash,
      node: true,
    },
  ];
  for (const [field, image] of Object.entries(cluster.otherImages) as [string, ImageSpec][]) {
    // A spec with neither tag nor digest follows the operator's default: nothing pins it.
    if (image.versionTag === undefined && image.digestHash === undefined) continue;
    moves.push({
      field,
      path: otherImageSpecPath(field),
      from: image.versionTag,
      to: operatorVersion,
      digestHash: image.digestHash,
    });
  }
  return moves;
}

export function buildClusterPatch(
  kube: KubeTarget,
  cluster: ClusterSnapshot,
  dialect: Dialect,
  tag: string,
  operatorVersion: string,
  digestOf: DigestLookup = noDigests,
): ClusterPatch {
  const moves = imageMoves(cluster, dialect, tag, operatorVersion);
  const repositoryOf = (move: ImageMove): string | undefined =>
    move.field === moves[0]?.field
      ? cluster.image.repository
      : (cluster.otherImages[move.field] as ImageSpec | undefined)?.repository;
  const bodies: Record<string, unknown>[] = [];
  const unknownDigests: ImageMove[] = [];
  for (const move of moves) {
    bodies.push(patchAt([...move.path, 'versionTag'], move.to));
    if (move.digestHash === undefined) continue;
    const digest = digestOf(repositoryOf(move), move.to, {
      field: move.field,
      node: move.field === moves[0]?.field,
    });
    if (digest === undefined) unknownDigests.push(move);
    else bodies.push(patchAt([...move.path, 'digestHash'], digest));
  }
  if (unknownDigests.length > 0) {
    const names = unknownDigests.map((m) => `${m.field}.digestHash`).join(', ');
    const remove = mergeBodies(...unknownDigests.map((m) => patchAt([...m.path, 'digestHash'], null)));
    // The digest the reader looks up goes in a shell variable the command reads (never a
    // `<placeholder>` inside the quoted JSON, which pasted would be sent as it is).
    const setBoth = mergeBodies(
      ...unknownDigests.map((m) =>
        mergeBodies(
          patchAt([...m.path, 'versionTag'], m.to),
          patchAt([...m.path, 'digestHash'], fromShellVariable(digestVariable(m.field))),
        ),
      ),
    );
    const lookups = unknownDigests.map(
      (m) =>
        `${digestVariable(m.field)} set to the digest (sha256:...) of ${repositoryOf(m) ?? `the ${m.field} image`}:${m.to}`,
    );
    return {
      kind: 'refuse',
      pinned: unknownDigests,
      message: `${names} pin${unknownDigests.length === 1 ? 's' : ''} the image by digest and ctl does not know the digest of the target image: a new tag with the old digest would keep the old image`,
      fix:
        `Remove the digest: ${kubectlMergePatch(kube, 'rec', cluster.name, cluster.namespace, remove)} — ` +
        `or set it to the target image's digest yourself: with the shell variable ${lookups.join(', and ')}, run ${kubectlMergePatch(kube, 'rec', cluster.name, cluster.namespace, setBoth)}; then run ctl again.`,
    };
  }
  return { kind: 'patch', body: mergeBodies(...bodies), moves };
}

/**
 * The shell variable a printed command takes an image spec's target digest from:
 * `redisEnterpriseImageSpec` -> `REDIS_ENTERPRISE_DIGEST`, `usageMeter.callHomeClient.imageSpec`
 * -> `USAGE_METER_CALL_HOME_CLIENT_DIGEST`.
 */
export function digestVariable(field: string): string {
  const words = field
    .replace(/\.?imageSpec$/i, '')
    .replaceAll('.', '_')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2');
  return `${words.toUpperCase()}_DIGEST`;
}

/** Every image spec of the cluster that carries a digestHash (the node's first). */
export function digestPinnedSpecs(cluster: ClusterSnapshot, dialect: Dialect): ImageMove[] {
  return imageMoves(cluster, dialect, cluster.image.versionTag ?? '', '').filter(
    (move) => move.digestHash !== undefined,
  );
}
