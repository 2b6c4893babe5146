/**
 * What the plan reads of the cluster resource's CustomResourceDefinition
 * (`redisenterpriseclusters.app.redislabs.com`), and only with `--user-defined-modules`: whether
 * its schema declares `spec.userDefinedModules`. The API server keeps a field of a custom
 * resource only where the CRD's structural schema declares it (or preserves unknown fields
 * there) and prunes the rest without an error (Kubernetes, "Extend the Kubernetes API with
 * CustomResourceDefinitions", "Field pruning"). The REC CRD declares its spec field by field:
 * `spec.userDefinedModules` appears in operator 8.0.6-8 (src/planning/module-fix.ts cites the
 * notes and the certified bundles' rec_crd.yaml), so on an older CRD the cluster step's patch
 * would set the versionTag and lose the list.
 *
 * ctl asks for the declaration itself, not for an open spec: the real REC CRD declares its spec
 * field by field (RedisLabs/redis-enterprise-k8s-docs `crds/rec_crd.yaml`: no
 * `x-kubernetes-preserve-unknown-fields` on spec), so "not declared" is "pruned" there. The
 * simulator's small CRDs keep their spec open (src/sim/crds.ts), and judged by openness an old
 * one would pass here where the real one fails.
 */

import type { KubeObject } from '../kube/reads.js';

/**
 * The CRD as read for the plan: per served version, whether it declares the field; or why it
 * could not be read (forbidden, not found, no answer).
 */
export type ClusterCrdFacts =
  { read: true; declaresUserDefinedModules: Record<string, boolean> } | { read: false; error: string };

type SchemaNode = { properties?: Record<string, SchemaNode> };

/** Whether each served version of the CRD declares `spec.userDefinedModules`. */
export function clusterCrdFacts(crd: KubeObject): ClusterCrdFacts {
  const versions = (crd.spec as { versions?: unknown } | undefined)?.versions;
  const declares: Record<string, boolean> = {};
  for (const version of Array.isArray(versions) ? versions : []) {
    const v = version as { name?: unknown; served?: unknown; schema?: { openAPIV3Schema?: SchemaNode } };
    if (typeof v.name !== 'string' || v.served === false) continue;
    declares[v.name] =
      v.schema?.openAPIV3Schema?.properties?.spec?.properties?.userDefinedModules !== undefined;
  }
  return { read: true, declaresUserDefinedModules: declares };
}

/** The facts for the version of `apiVersion` (`app.redislabs.com/v1`); undefined when the CRD does not serve it. */
export function declaresUserDefinedModulesAt(
  facts: Extract<ClusterCrdFacts, { read: true }>,
  apiVersion: string,
): boolean | undefined {
  const version = apiVersion.split('/').at(-1) ?? apiVersion;
  return facts.declaresUserDefinedModules[version];
}
