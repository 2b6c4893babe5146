/** Whether the operator's CRDs are there and served after the operator step's upgrade. */

import { OperationError } from '../errors.js';
import { array, record } from '../json-read.js';
import type { KubeClients } from '../kube/client.js';
import type { KubeObject } from '../kube/reads.js';
import { CLUSTER_CRD_NAME, CLUSTER_RESOURCE, DATABASE_RESOURCE, OPERATOR_GROUP } from '../kube/reads.js';
import { readObject } from '../kube/write.js';
import { type KubeTarget, kubectlApply } from '../planning/equivalent-commands.js';

const CRD_REF = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };

/**
 * Every CRD the bundle carries must exist and serve each version the bundle serves. After a
 * helm upgrade (the chart's CRDs are not visible to ctl) at least the cluster and database CRDs
 * must serve the versions ctl uses.
 */
export async function verifyCrds(
  kube: KubeClients,
  fromBundle: KubeObject[] | undefined,
  kubeTarget: KubeTarget,
): Promise<string[]> {
  const expected =
    fromBundle && fromBundle.length > 0
      ? fromBundle.map((crd) => ({ name: crd.metadata?.name ?? '', versions: servedVersions(crd) }))
      : [
          { name: CLUSTER_CRD_NAME, versions: [CLUSTER_RESOURCE.version] },
          { name: `${DATABASE_RESOURCE.plural}.${OPERATOR_GROUP}`, versions: [DATABASE_RESOURCE.version] },
        ];
  const verified: string[] = [];
  for (const { name, versions } of expected) {
    const live = await readObject(kube, { ...CRD_REF, name });
    if (!live) {
      throw new OperationError(`the CRD ${name} does not exist after the operator upgrade`, {
        hint: `Apply the release's CRDs (${kubectlApply(kubeTarget, 'BUNDLE_FILE')}, BUNDLE_FILE the release's bundle), then run ctl again to resume.`,
      });
    }
    const served = servedVersions(live);
    const missing = versions.filter((v) => !served.includes(v));
    if (missing.length > 0) {
      throw new OperationError(
        `the CRD ${name} does not serve ${missing.join(', ')} (it serves ${served.join(', ') || 'nothing'})`,
        {
          hint: `Apply the release's CRDs again (${kubectlApply(kubeTarget, 'BUNDLE_FILE')}, BUNDLE_FILE the release's bundle), then run ctl again to resume.`,
        },
      );
    }
    verified.push(name);
  }
  return verified;
}

function servedVersions(crd: KubeObject): string[] {
  return array(record(crd.spec).versions)
    .map(record)
    .filter((v) => v.served !== false && typeof v.name === 'string')
    .map((v) => v.name as string);
}
