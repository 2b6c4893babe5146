import { createHash } from 'node:crypto';
import type { ResourceRegistry, ResourceType } from './registry.js';

/**
 * The minimal OpenAPI v3 that `kubectl apply` (and helm) accept (feasibility §2): a root
 * index of group versions, and per group version one path per resource whose `patch`
 * operation names its GVK and carries the OPERATION-level parameters fieldValidation and
 * dryRun (kubectl's QueryParamVerifierV3 reads op.parameters only). Custom resources also
 * carry their schema, so `kubectl explain` has something to show.
 */

function queryParameter(name: string, description: string, type = 'string'): Record<string, unknown> {
  return { name, in: 'query', description, schema: { type, uniqueItems: true } };
}

const PATCH_PARAMETERS = [
  queryParameter('dryRun', 'When present, indicates that modifications should not be persisted.'),
  queryParameter(
    'fieldManager',
    'fieldManager is a name associated with the actor or entity that is making these changes.',
  ),
  queryParameter(
    'fieldValidation',
    'fieldValidation instructs the server on how to handle objects in the request.',
  ),
  queryParameter('force', 'Force is going to "force" Apply requests.', 'boolean'),
];

const WRITE_PARAMETERS = PATCH_PARAMETERS.filter((p) => p.name !== 'force');

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

function schemaName(rt: ResourceType): string {
  const reversedGroup = (rt.group || 'core').split('.').reverse().join('.');
  return `${reversedGroup}.${rt.version}.${rt.kind}`;
}

function gvk(rt: ResourceType): Record<string, string> {
  return { group: rt.group, version: rt.version, kind: rt.kind };
}

function operation(rt: ResourceType, action: string, parameters: unknown[]): Record<string, unknown> {
  return {
    operationId: `${action}${rt.kind}`,
    parameters,
    responses: {
      '200': {
        description: 'OK',
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemaName(rt)}` } } },
      },
    },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk(rt),
  };
}

export function groupVersionDocument(
  registry: ResourceRegistry,
  group: string,
  version: string,
  kubeVersion: string,
): unknown {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  const base = `/${gvPath(group, version)}`;
  for (const rt of registry.inGroupVersion(group, version)) {
    const collection = rt.namespaced ? `${base}/namespaces/{namespace}/${rt.plural}` : `${base}/${rt.plural}`;
    if (rt.createOnly) {
      paths[collection] = { post: operation(rt, 'post', WRITE_PARAMETERS) };
    } else {
      paths[collection] = {
        get: operation(rt, 'list', []),
        post: operation(rt, 'post', WRITE_PARAMETERS),
      };
      paths[`${collection}/{name}`] = {
        get: operation(rt, 'get', []),
        put: operation(rt, 'put', WRITE_PARAMETERS),
        patch: operation(rt, 'patch', PATCH_PARAMETERS),
        delete: operation(rt, 'delete', [
          queryParameter('dryRun', 'When present, indicates that modifications should not be persisted.'),
        ]),
      };
      if (rt.subresources.includes('status')) {
        paths[`${collection}/{name}/status`] = {
          get: operation(rt, 'get', []),
          put: operation(rt, 'put', WRITE_PARAMETERS),
          patch: operation(rt, 'patch', PATCH_PARAMETERS),
        };
      }
    }
    schemas[schemaName(rt)] = {
      ...(rt.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
      'x-kubernetes-group-version-kind': [gvk(rt)],
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: kubeVersion },
    paths,
    components: { schemas },
  };
}

/** The `/openapi/v3` index; each hash changes whenever that group version's document does. */
export function openApiIndex(registry: ResourceRegistry, kubeVersion: string): unknown {
  const paths: Record<string, unknown> = {};
  for (const g of registry.groups()) {
    for (const v of g.versions) {
      const key = gvPath(g.name, v);
      const hash = documentHash(groupVersionDocument(registry, g.name, v, kubeVersion));
      paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
    }
  }
  return { paths };
}

export function documentHash(document: unknown): string {
  return createHash('sha512').update(JSON.stringify(document)).digest('hex').slice(0, 128).toUpperCase();
}
