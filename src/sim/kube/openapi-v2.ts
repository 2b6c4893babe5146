// The minimal OpenAPI v2 (Swagger 2.0) document at `/openapi/v2`. kubectl 1.27 and 1.28 read
// only this, and only as protobuf, to decide whether the server honours `fieldValidation` and
// `dryRun` before `apply` (feasibility §2): they look for the patch operation whose
// `x-kubernetes-group-version-kind` names the kind and check its query parameters. Without it
// their apply fails with "failed to download openapi". Definitions are left out: kubectl then
// falls back to its compiled-in types for strategic merge patches, and to merge patches for
// custom resources, exactly as it does with v3.
import protobuf from 'protobufjs';
import { stringify } from 'yaml';
import { gvk, type PathOperation, type QueryParameter, resourcePaths } from './openapi.js';
import type { ResourceRegistry, ResourceType } from './registry.js';

// Clients ask with `...spec.v2@v1.0+protobuf`; the server answers with the dotted form because
// '@' is not a valid media-type character and Go's mime parser rejects it.
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/**
 * The subset of gnostic's openapiv2/OpenAPIv2.proto (package openapi.v2, message Document)
 * the document uses, with its field numbers. protobufjs omits unset fields, as Go does.
 */
const root = protobuf.Root.fromJSON({
  nested: {
    Document: {
      fields: {
        swagger: { type: 'string', id: 1 },
        info: { type: 'Info', id: 2 },
        paths: { type: 'Paths', id: 8 },
      },
    },
    Info: { fields: { title: { type: 'string', id: 1 }, version: { type: 'string', id: 2 } } },
    Paths: { fields: { path: { rule: 'repeated', type: 'NamedPathItem', id: 2 } } },
    NamedPathItem: { fields: { name: { type: 'string', id: 1 }, value: { type: 'PathItem', id: 2 } } },
    PathItem: {
      fields: {
        get: { type: 'Operation', id: 2 },
        put: { type: 'Operation', id: 3 },
        post: { type: 'Operation', id: 4 },
        delete: { type: 'Operation', id: 5 },
        patch: { type: 'Operation', id: 8 },
      },
    },
    Operation: {
      fields: {
        operationId: { type: 'string', id: 5 },
        parameters: { rule: 'repeated', type: 'ParametersItem', id: 8 },
        responses: { type: 'Responses', id: 9 },
        vendorExtension: { rule: 'repeated', type: 'NamedAny', id: 13 },
      },
    },
    ParametersItem: { fields: { parameter: { type: 'Parameter', id: 1 } } },
    Parameter: { fields: { nonBodyParameter: { type: 'NonBodyParameter', id: 2 } } },
    NonBodyParameter: { fields: { queryParameterSubSchema: { type: 'QueryParameterSubSchema', id: 3 } } },
    QueryParameterSubSchema: {
      fields: {
        in: { type: 'string', id: 2 },
        description: { type: 'string', id: 3 },
        name: { type: 'string', id: 4 },
        type: { type: 'string', id: 6 },
        uniqueItems: { type: 'bool', id: 20 },
      },
    },
    Responses: { fields: { responseCode: { rule: 'repeated', type: 'NamedResponseValue', id: 1 } } },
    NamedResponseValue: {
      fields: { name: { type: 'string', id: 1 }, value: { type: 'ResponseValue', id: 2 } },
    },
    ResponseValue: { fields: { response: { type: 'Response', id: 1 } } },
    Response: { fields: { description: { type: 'string', id: 1 } } },
    NamedAny: { fields: { name: { type: 'string', id: 1 }, value: { type: 'Any', id: 2 } } },
    // gnostic keeps every vendor extension's value as YAML text.
    Any: { fields: { yaml: { type: 'string', id: 2 } } },
  },
});
const DocumentMessage = root.lookupType('Document');

interface SwaggerParameter {
  name: string;
  in: 'query';
  description: string;
  type: QueryParameter['type'];
  uniqueItems: true;
}

interface SwaggerOperation {
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

function protobufOperation(op: SwaggerOperation): Record<string, unknown> {
  return {
    operationId: op.operationId,
    parameters: op.parameters.map(({ name, in: where, description, type, uniqueItems }) => ({
      parameter: {
        nonBodyParameter: { queryParameterSubSchema: { name, in: where, description, type, uniqueItems } },
      },
    })),
    responses: {
      responseCode: Object.entries(op.responses).map(([code, response]) => ({
        name: code,
        value: { response },
      })),
    },
    vendorExtension: (['x-kubernetes-action', 'x-kubernetes-group-version-kind'] as const).map((name) => ({
      name,
      value: { yaml: stringify(op[name]) },
    })),
  };
}

/** The document in gnostic's protobuf form, which is what kubectl 1.27/1.28 ask for. */
export function encodeSwaggerProtobuf(document: SwaggerDocument): Uint8Array {
  const message = {
    swagger: document.swagger,
    info: document.info,
    paths: {
      path: Object.entries(document.paths).map(([name, item]) => ({
        name,
        value: Object.fromEntries(
          Object.entries(item).map(([method, op]) => [method, protobufOperation(op)]),
        ),
      })),
    },
  };
  return DocumentMessage.encode(DocumentMessage.fromObject(message)).finish();
}
