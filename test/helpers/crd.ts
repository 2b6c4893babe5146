import assert from 'node:assert/strict';

/**
 * The shape of a CustomResourceDefinition as the CRD tests read it, whether the simulator's own
 * (src/sim/crds.ts) or the operator's published ones (test/upstream/).
 */

export type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  enum?: unknown[];
};

export interface Version {
  name: string;
  served: boolean;
  storage: boolean;
  subresources?: { status?: object };
  additionalPrinterColumns?: { name: string; jsonPath: string }[];
  schema: { openAPIV3Schema: Schema };
}

export interface Crd {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; plural: string; shortNames: string[] };
    versions: Version[];
  };
}

/** Every property path a schema declares, with its type: `spec.modulesList[].name -> string`. */
export function declaredPaths(schema: Schema, prefix = ''): Map<string, string | undefined> {
  const paths = new Map<string, string | undefined>();
  const visit = (node: Schema, at: string) => {
    if (at !== '') paths.set(at, node.type);
    for (const [key, child] of Object.entries(node.properties ?? {})) visit(child, at ? `${at}.${key}` : key);
    if (node.items) visit(node.items, `${at}[]`);
    if (typeof node.additionalProperties === 'object') visit(node.additionalProperties, `${at}{}`);
  };
  visit(schema, prefix);
  return paths;
}

export function byKind(crds: object[], kind: string): Crd {
  const found = (crds as Crd[]).find((crd) => crd.spec.names.kind === kind);
  assert.ok(found, `CRD for ${kind}`);
  return found;
}

export function rootSchema(crd: Crd, version: string): Schema {
  const found = crd.spec.versions.find((v) => v.name === version);
  assert.ok(found, `${crd.metadata.name} has version ${version}`);
  return found.schema.openAPIV3Schema;
}
