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

/**
 * What a caller may pass along with a request: `signal` ends it, its credential wait included
 * (request.ts), as for Ctrl-C: the Lease's renewal that is given up on, or the release that must
 * not wait longer than its bound (src/run/state-store-configmap.ts).
 */
export interface RequestOptions {
  signal?: AbortSignal | undefined;
}

export interface KubeRest {
  /** GET: the parsed answer (an object, or a List with `items`). */
  get<T = unknown>(
    path: string,
    query?: Record<string, string | number | undefined>,
    options?: RequestOptions,
  ): Promise<T>;
  /** GET of a list, its objects without `metadata.managedFields` (managed-fields.ts). */
  list<T = unknown>(path: string, query?: Record<string, string | number | undefined>): Promise<T>;
  /** POST of a JSON body: the created (or reviewed) object. */
  create<T = unknown>(path: string, body: unknown): Promise<T>;
  /** PUT of a JSON body: the replaced object. */
  replace<T = unknown>(path: string, body: unknown, options?: RequestOptions): Promise<T>;
  /** DELETE, with an optional DeleteOptions body (preconditions). */
  delete(path: string, body?: unknown, options?: RequestOptions): Promise<void>;
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

/** The request's `signal` when one is given (KubeRequest's is optional, not undefined). */
function signalOf(options: RequestOptions | undefined): { signal?: AbortSignal } {
  return options?.signal ? { signal: options.signal } : {};
}

export function createKubeRest(config: KubeConfig): KubeRest {
  return {
    get: async <T>(
      path: string,
      query?: Record<string, string | number | undefined>,
      options?: RequestOptions,
    ) =>
      (await kubeRequest(config, { method: 'GET', path, query: queryOf(query), ...signalOf(options) })) as T,
    list: async <T>(path: string, query?: Record<string, string | number | undefined>) =>
      (await kubeRequest(config, {
        method: 'GET',
        path,
        query: queryOf(query),
        withoutManagedFields: true,
      })) as T,
    create: async <T>(path: string, body: unknown) =>
      (await kubeRequest(config, { method: 'POST', path, body: JSON.stringify(body) })) as T,
    replace: async <T>(path: string, body: unknown, options?: RequestOptions) =>
      (await kubeRequest(config, {
        method: 'PUT',
        path,
        body: JSON.stringify(body),
        ...signalOf(options),
      })) as T,
    delete: async (path: string, body?: unknown, options?: RequestOptions) => {
      await kubeRequest(config, {
        method: 'DELETE',
        path,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...signalOf(options),
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
