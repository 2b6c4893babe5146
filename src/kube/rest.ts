/**
 * The Kubernetes requests ctl makes by API path, as plain JSON both ways (request.ts): the
 * snapshot's reads, the state's ConfigMap and Lease, the operator's log.
 *
 * client-node's typed clients (CoreV1Api, CustomObjectsApi, ...) would do the same requests, but
 * they come with the generated models and their serializer: a 14 MB chunk that every command
 * talking to a cluster compiled before its first request (docs/performance.md). ctl only reads
 * plain fields, so it asks for the JSON and reads it as JSON; the kubeconfig's credentials, TLS
 * and proxy still come from client-node's KubeConfig (request.ts).
 */

import type { KubeConfig } from '@kubernetes/client-node';
import { kubeRequest } from './request.js';

export interface KubeRest {
  /** GET: the parsed answer (an object, or a List with `items`). */
  get<T = unknown>(path: string, query?: Record<string, string | number | undefined>): Promise<T>;
  /** GET of a list, its objects without `metadata.managedFields` (managed-fields.ts). */
  list<T = unknown>(path: string, query?: Record<string, string | number | undefined>): Promise<T>;
  /** POST of a JSON body: the created (or reviewed) object. */
  create<T = unknown>(path: string, body: unknown): Promise<T>;
  /** PUT of a JSON body: the replaced object. */
  replace<T = unknown>(path: string, body: unknown): Promise<T>;
  /** DELETE, with an optional DeleteOptions body (preconditions). */
  delete(path: string, body?: unknown): Promise<void>;
  /** GET of a text answer (a pod's log), refused past `limit` when given (else MAX_ANSWER_BYTES). */
  text(
    path: string,
    query?: Record<string, string | number | undefined>,
    limit?: { bytes: number; what: string },
  ): Promise<string>;
}

/** The query without its unset values, as strings. */
function queryOf(query: Record<string, string | number | undefined> = {}): Record<string, string> {
  const set: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) if (value !== undefined) set[key] = String(value);
  return set;
}

export function createKubeRest(config: KubeConfig): KubeRest {
  return {
    get: async <T>(path: string, query?: Record<string, string | number | undefined>) =>
      (await kubeRequest(config, { method: 'GET', path, query: queryOf(query) })) as T,
    list: async <T>(path: string, query?: Record<string, string | number | undefined>) =>
      (await kubeRequest(config, {
        method: 'GET',
        path,
        query: queryOf(query),
        withoutManagedFields: true,
      })) as T,
    create: async <T>(path: string, body: unknown) =>
      (await kubeRequest(config, { method: 'POST', path, body: JSON.stringify(body) })) as T,
    replace: async <T>(path: string, body: unknown) =>
      (await kubeRequest(config, { method: 'PUT', path, body: JSON.stringify(body) })) as T,
    delete: async (path: string, body?: unknown) => {
      await kubeRequest(config, {
        method: 'DELETE',
        path,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    },
    text: async (
      path: string,
      query?: Record<string, string | number | undefined>,
      limit?: { bytes: number; what: string },
    ) =>
      String(
        (await kubeRequest(config, { method: 'GET', path, query: queryOf(query), text: true, limit })) ?? '',
      ),
  };
}

/** `/api/v1/...` (the core group) or `/apis/<group>/<version>/...`. */
function groupPrefix(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

/**
 * The path of a collection or of one object: `namespace` undefined for a cluster-scoped kind,
 * `name` undefined for the collection. Every segment is URI-encoded.
 */
export function resourcePath(
  group: string,
  version: string,
  plural: string,
  namespace?: string,
  name?: string,
): string {
  const at = namespace === undefined ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
  const one = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  return `${groupPrefix(group, version)}${at}/${encodeURIComponent(plural)}${one}`;
}
