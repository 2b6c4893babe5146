/**
 * Which field names the live operator speaks (SIMULATOR.md "Dialects"): first from the cluster
 * resource itself (which image-spec field it carries), else from the installed CRD's schema,
 * else the real product's names.
 */

import { DIALECTS, type Dialect, detectDialect, dialectFields } from '../release/dialect.js';
import { CLUSTER_CRD_NAME, type ClusterReads, type KubeObject } from './reads.js';

export type DialectSource = 'cluster' | 'crd' | 'default';

export interface DetectedDialect {
  dialect: Dialect;
  source: DialectSource;
}

/** The default when nothing tells: the real product's CRDs. */
export const DEFAULT_DIALECT: Dialect = 'redis';

/**
 * `crdRead`: the CRD, when the caller reads it anyway (src/planning/snapshot.ts, for
 * --user-defined-modules): asked once, not twice.
 */
export async function detectLiveDialect(
  cluster: KubeObject | undefined,
  reads: Pick<ClusterReads, 'getCustomResourceDefinition'>,
  crdRead?: Promise<KubeObject | undefined>,
): Promise<DetectedDialect> {
  const fromCluster = detectDialect(cluster);
  if (fromCluster) return { dialect: fromCluster, source: 'cluster' };
  // A cluster resource without an image spec (the operator's defaults) says nothing; the CRD does.
  const crd = await (crdRead ?? reads.getCustomResourceDefinition(CLUSTER_CRD_NAME)).catch(() => undefined);
  const fromCrd = dialectFromCrd(crd);
  if (fromCrd) return { dialect: fromCrd, source: 'crd' };
  return { dialect: DEFAULT_DIALECT, source: 'default' };
}

/** The dialect whose image-spec field the CRD's schema (any served version) declares. */
export function dialectFromCrd(crd: KubeObject | undefined): Dialect | undefined {
  const versions = (crd?.spec as { versions?: unknown[] } | undefined)?.versions ?? [];
  for (const version of versions) {
    const specProperties = (
      version as {
        schema?: { openAPIV3Schema?: { properties?: { spec?: { properties?: Record<string, unknown> } } } };
      }
    ).schema?.openAPIV3Schema?.properties?.spec?.properties;
    if (!specProperties) continue;
    for (const dialect of DIALECTS) {
      const key = dialectFields(dialect).imageSpecPath[1];
      if (key !== undefined && key in specProperties) return dialect;
    }
  }
  return undefined;
}
