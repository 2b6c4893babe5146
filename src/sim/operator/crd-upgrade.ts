import { CRD_GROUP, crdsFor, recCrdRevision } from '../crds.js';
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
 * Only ever forward: the REC CRD is replaced when the new operator's is of a later revision
 * (recCrdRevision: its printer columns, then spec.userDefinedModules; src/sim/crds.ts).
 */
export function upgradeClusterCrd(kube: KubeAccess, dialect: SimDialect, operatorVersion: string): void {
  const live = kube.get('apiextensions.k8s.io/v1', 'CustomResourceDefinition', undefined, REC_CRD);
  if (!live || liveRevision(live) >= recCrdRevision(operatorVersion)) return;
  const wanted = crdsFor(dialect, operatorVersion).find(
    (crd) => (crd as KubeObject).metadata?.name === REC_CRD,
  ) as KubeObject | undefined;
  if (wanted) kube.patch(live, { spec: wanted.spec as Record<string, unknown> });
}

type VersionSchema = {
  additionalPrinterColumns?: { jsonPath?: string }[];
  schema?: { openAPIV3Schema?: { properties?: { spec?: { properties?: object } } } };
};

/** recCrdRevision of a CRD as it is served (whoever applied it). */
function liveRevision(crd: KubeObject): number {
  const versions = ((crd.spec as { versions?: unknown[] } | undefined)?.versions ?? []) as VersionSchema[];
  const declares = versions.some((version) => {
    const properties = version.schema?.openAPIV3Schema?.properties?.spec?.properties;
    return properties !== undefined && 'userDefinedModules' in properties;
  });
  if (declares) return 3;
  const paths = versions.flatMap((version) => version.additionalPrinterColumns ?? []).map((c) => c.jsonPath);
  if (paths.includes('.status.licenseStatus.shardsUsage')) return 2;
  return paths.length > 0 ? 1 : 0;
}
