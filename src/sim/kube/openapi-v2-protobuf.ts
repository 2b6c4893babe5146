// The `/openapi/v2` document (openapi-v2.ts) in gnostic's protobuf form, the one form kubectl 1.27
// and 1.28 ask for. Its own module, loaded by the API server on the first such request: no other
// client asks for it, and protobufjs cost every simulator start (and every test file that starts
// one) ~90 ms of CPU to load.
import protobuf from 'protobufjs';
import { stringify } from 'yaml';
import type { SwaggerDocument, SwaggerOperation } from './openapi-v2.js';

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
