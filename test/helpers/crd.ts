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
