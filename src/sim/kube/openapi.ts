import { createHash } from 'node:crypto';
import type { ResourceRegistry, ResourceType } from './registry.js';

/**
 * The minimal OpenAPI v3 that `kubectl apply` (and helm) accept (feasibility §2): a root
 * index of group versions, and per group version one path per resource whose `patch`
 * operation names its GVK and carries the OPERATION-level parameters fieldValidation and
 * dryRun (kubectl's QueryParamVerifierV3 reads op.parameters only). Custom resources also
 * carry their schema, so `kubectl explain` has something to show.
 */

/** A query parameter of a write operation, shared by the OpenAPI v3 and v2 documents. */
export interface QueryParameter {
  name: string;
  description: string;
  type: 'string' | 'boolean';
}

const DRY_RUN: QueryParameter = {
  name: 'dryRun',
  description: 'When present, indicates that modifications should not be persisted.',
  type: 'string',
};

/** What kubectl's query-parameter verifiers look for on a patch operation. */
export const PATCH_QUERY_PARAMETERS: readonly QueryParameter[] = [
  DRY_RUN,
  {
    name: 'fieldManager',
    description: 'fieldManager is a name associated with the actor or entity that is making these changes.',
    type: 'string',
  },
  {
    name: 'fieldValidation',
    description: 'fieldValidation instructs the server on how to handle objects in the request.',
    type: 'string',
  },
  { name: 'force', description: 'Force is going to "force" Apply requests.', type: 'boolean' },
];

export const WRITE_QUERY_PARAMETERS = PATCH_QUERY_PARAMETERS.filter((p) => p.name !== 'force');
export const DELETE_QUERY_PARAMETERS: readonly QueryParameter[] = [DRY_RUN];

export type HttpMethod = 'get' | 'put' | 'post' | 'patch' | 'delete';

/** One operation on a path: its Kubernetes action (`x-kubernetes-action`) and query parameters. */
export interface PathOperation {
  action: string;
  parameters: readonly QueryParameter[];
}

export type PathOperations = Partial<Record<HttpMethod, PathOperation>>;

export function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** The API paths of one resource and the operations each offers, as both OpenAPI versions list them. */
export function resourcePaths(rt: ResourceType): Array<[string, PathOperations]> {
  const base = `/${gvPath(rt.group, rt.version)}`;
  const collection = rt.namespaced ? `${base}/namespaces/{namespace}/${rt.plural}` : `${base}/${rt.plural}`;
  const post = { action: 'post', parameters: WRITE_QUERY_PARAMETERS };
  if (rt.createOnly) return [[collection, { post }]];
  const item: PathOperations = {
    get: { action: 'get', parameters: [] },
    put: { action: 'put', parameters: WRITE_QUERY_PARAMETERS },
    patch: { action: 'patch', parameters: PATCH_QUERY_PARAMETERS },
  };
  const paths: Array<[string, PathOperations]> = [
    [collection, { get: { action: 'list', parameters: [] }, post }],
    [`${collection}/{name}`, { ...item, delete: { action: 'delete', parameters: DELETE_QUERY_PARAMETERS } }],
  ];
  if (rt.subresources.includes('status')) paths.push([`${collection}/{name}/status`, item]);
  return paths;
}

export function schemaName(rt: ResourceType): string {
  const reversedGroup = (rt.group || 'core').split('.').reverse().join('.');
  return `${reversedGroup}.${rt.version}.${rt.kind}`;
}

export function gvk(rt: ResourceType): Record<string, string> {
  return { group: rt.group, version: rt.version, kind: rt.kind };
}

function operation(rt: ResourceType, { action, parameters }: PathOperation): Record<string, unknown> {
  return {
    operationId: `${action}${rt.kind}`,
    parameters: parameters.map(({ name, description, type }) => ({
      name,
      in: 'query',
      description,
      schema: { type, uniqueItems: true },
    })),
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
  for (const rt of registry.inGroupVersion(group, version)) {
    for (const [path, operations] of resourcePaths(rt)) {
      paths[path] = Object.fromEntries(
        Object.entries(operations).map(([method, op]) => [method, operation(rt, op)]),
      );
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
