// The minimal OpenAPI v2 (Swagger 2.0) document at `/openapi/v2`. kubectl 1.27 and 1.28 read
// only this, and only as protobuf, to decide whether the server honours `fieldValidation` and
// `dryRun` before `apply` (feasibility §2): they look for the patch operation whose
// `x-kubernetes-group-version-kind` names the kind and check its query parameters. Without it
// their apply fails with "failed to download openapi". Definitions are left out: kubectl then
// falls back to its compiled-in types for strategic merge patches, and to merge patches for
// custom resources, exactly as it does with v3.
import { gvk, type PathOperation, type QueryParameter, resourcePaths } from './openapi.js';
import type { ResourceRegistry, ResourceType } from './registry.js';

// Clients ask with `...spec.v2@v1.0+protobuf`; the server answers with the dotted form because
// '@' is not a valid media-type character and Go's mime parser rejects it.
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

interface SwaggerParameter {
  name: string;
  in: 'query';
  description: string;
  type: QueryParameter['type'];
  uniqueItems: true;
}

export interface SwaggerOperation {
  operationId: string;
  parameters: SwaggerParameter[];
  responses: Record<string, { description: string }>;
  'x-kubernetes-action': string;
  'x-kubernetes-group-version-kind': Record<string, string>;
}

export interface SwaggerDocument {
  swagger: '2.0';
  info: { title: string; version: string };
  paths: Record<string, Record<string, SwaggerOperation>>;
}

function swaggerOperation(rt: ResourceType, { action, parameters }: PathOperation): SwaggerOperation {
  return {
    operationId: `${action}${rt.kind}`,
    parameters: parameters.map(({ name, description, type }) => ({
      name,
      in: 'query',
      description,
      type,
      uniqueItems: true,
    })),
    responses: { '200': { description: 'OK' } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk(rt),
  };
}

/** Every resource of every group version in one document, as the real `/openapi/v2` is. */
export function swaggerDocument(registry: ResourceRegistry, kubeVersion: string): SwaggerDocument {
  const paths: SwaggerDocument['paths'] = {};
  for (const rt of registry.all()) {
    for (const [path, operations] of resourcePaths(rt)) {
      paths[path] = Object.fromEntries(
        Object.entries(operations).map(([method, op]) => [method, swaggerOperation(rt, op)]),
      );
    }
  }
  return { swagger: '2.0', info: { title: 'Kubernetes', version: kubeVersion }, paths };
}
