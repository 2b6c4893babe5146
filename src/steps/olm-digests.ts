/**
 * Under OLM the cluster's image specs may pin their images by `digestHash` ("only supported for
 * OLM deployments", DOCS kubernetes/reference/redis_enterprise_cluster_api.md). A new tag next to
 * the old digest keeps the old image, so the digests must follow the target release: they come
 * from the target CSV's `spec.relatedImages`, which a certified bundle names by digest
 * (`<repository>@sha256:...`; operator-framework/api `clusterserviceversion_types.go`
 * RelatedImage). The CSV exists only once OLM has installed it, so the plan names the source and
 * the cluster step (after the operator step) reads the digests.
 */

import { OperationError } from '../errors.js';
import type { KubeClients } from '../kube/client.js';
import { readObject } from '../kube/write.js';
import type { DigestLookup } from '../planning/cluster-patch.js';
import {
  CSV_RESOURCE,
  olmRoute,
  type OlmSnapshot,
  olmNodeReleaseTag,
  relatedDigest,
  relatedEntry,
  relatedImageLookup,
  relatedImagesOf,
} from '../planning/olm.js';
import type { Platform } from '../planning/snapshot.js';
import { parseImageReference } from '../release/image-reference.js';
import { type CtlTarget, ctlRunTo, oc } from '../planning/equivalent-commands.js';

export interface OlmDigestSource {
  olm: OlmSnapshot;
  namespace: string;
  operatorTarget: string;
  platform: Platform;
  currentTag: string | undefined;
  /**
   * The kubeconfig and context chosen for ctl, and the `-n`/`--cluster` given: the hint's oc and
   * ctl commands name them.
   */
  ctlTarget: CtlTarget;
  /**
   * On a hop before the last (Target.onTheWayTo), the run's final `--to`: the run the hint
   * proposes goes on through every hop, while one `--to operatorTarget` would end there.
   */
  onTheWayTo?: string | undefined;
}

/**
 * For the run: the digests the installed target CSV relates, by the rule the plan's printed
 * command follows too (planning/olm.ts relatedImageLookup): by the name Redis's bundle gives each
 * image, else by repository (the minimal node image by its name only). The node image's digest is
 * the CSV's only for the release's own tag:
 * another `--cluster-version` gets none (and the cluster patch is refused with the fix).
 */
export async function installedOlmDigests(
  kube: KubeClients,
  source: OlmDigestSource,
): Promise<{
  csv: string;
  releaseTag: string | undefined;
  digestOf: DigestLookup;
  /** The repository of the CSV's entry a digest comes from (same arguments as digestOf). */
  repositoryOf: (...args: Parameters<DigestLookup>) => string | undefined;
}> {
  const csv = olmRoute(source.olm, source.operatorTarget).targetCsv;
  const object = await readObject(kube, {
    apiVersion: `${CSV_RESOURCE.group}/${CSV_RESOURCE.version}`,
    kind: 'ClusterServiceVersion',
    name: csv,
    namespace: source.namespace,
  });
  if (!object) {
    throw new OperationError(
      `the target ClusterServiceVersion ${csv} is not installed, so the digests of the target images are unknown`,
      {
        hint: `Run the operator step first (${ctlRunTo(source.ctlTarget, source.onTheWayTo ?? source.operatorTarget, '--only', 'operator')}), or check ${oc(source.ctlTarget, 'get', 'csv', '-n', source.namespace)}; then run ctl again.`,
      },
    );
  }
  const related = relatedImagesOf(object);
  const releaseTag = olmNodeReleaseTag(source.operatorTarget, source.platform, source.currentTag);
  return {
    csv,
    releaseTag,
    digestOf: (repository, tag, image) => {
      const lookup = relatedImageLookup(repository, tag, image, releaseTag);
      return lookup && relatedDigest(related, lookup.repository, lookup.name);
    },
    repositoryOf: (repository, tag, image) => {
      const lookup = relatedImageLookup(repository, tag, image, releaseTag);
      const entry = lookup && relatedEntry(related, lookup.repository, lookup.name);
      return entry && parseImageReference(entry.image).repository;
    },
  };
}
