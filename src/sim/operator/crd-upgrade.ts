import { CRD_GROUP, crdsFor, declaresUserDefinedModules } from '../crds.js';
import type { KubeObject } from '../kube/types.js';
import type { SimDialect } from '../world/dialect.js';
import type { KubeAccess } from './kube-access.js';

const REC_CRD = `redisenterpriseclusters.${CRD_GROUP}`;

/**
 * A helm or OperatorHub upgrade brings the new operator's CRDs: the chart's pre-upgrade hook Job
 * applies them (RedisLabs/redis-enterprise-helm, `charts/redis-enterprise-operator/templates/jobs/install.yaml`:
 * `install-helper -action=applyCRD` on pre-install and pre-upgrade), and OLM installs those of
 * the CSV's bundle. The simulator runs neither, so the new operator's start does it, before any
 * later step can write a new field; a bundle's CRDs come with `kubectl apply` of the bundle.
 * Only ever forward: the REC CRD of an older operator is replaced by one that declares
 * spec.userDefinedModules (the one difference between versions here, src/sim/crds.ts).
 */
export function upgradeClusterCrd(kube: KubeAccess, dialect: SimDialect, operatorVersion: string): void {
  if (!declaresUserDefinedModules(operatorVersion)) return;
  const live = kube.get('apiextensions.k8s.io/v1', 'CustomResourceDefinition', undefined, REC_CRD);
  if (!live || declaresField(live)) return;
  const wanted = crdsFor(dialect, operatorVersion).find(
    (crd) => (crd as KubeObject).metadata?.name === REC_CRD,
  ) as KubeObject | undefined;
  if (wanted) kube.patch(live, { spec: wanted.spec as Record<string, unknown> });
}

type VersionSchema = { schema?: { openAPIV3Schema?: { properties?: { spec?: { properties?: object } } } } };

function declaresField(crd: KubeObject): boolean {
  const versions = (crd.spec as { versions?: unknown[] } | undefined)?.versions ?? [];
  return versions.some((version) => {
    const properties = (version as VersionSchema).schema?.openAPIV3Schema?.properties?.spec?.properties;
    return properties !== undefined && 'userDefinedModules' in properties;
  });
}
