/**
 * Any kind of Kubernetes object, read and written as the JSON it is: what ctl sends is what the
 * API server receives, byte for byte, and what the server answers is what ctl reads.
 *
 * client-node's KubernetesObjectApi (which ctl used before) passes every body through its
 * generated models, both ways. A model keeps only the attributes it knows, under their
 * TypeScript names: a CustomResourceDefinition applied from a plain object lost
 * `x-kubernetes-preserve-unknown-fields`, every other `x-kubernetes-*` key, `enum`, `default`
 * and `$ref` of its schema, and a Deployment lost any field of a newer API than the model
 * (reliability.md, "Found and fixed"). So the bodies go through `request.ts` instead, with the
 * same kubeconfig credentials and TLS settings.
 *
 * Like KubernetesObjectApi, an object's URL comes from discovery (one GET per API group
 * version, cached per client, asked again when a kind is missing: a CRD may just have been
 * applied), and a namespaced object without a namespace goes to the kubeconfig context's one.
 */

import type * as k8s from '@kubernetes/client-node';
import type { KubeObject } from './reads.js';
import { KubeRequestError, kubeRequest } from './request.js';

/** Which object: enough to build its URL. `namespace` is left out for cluster-scoped kinds. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string | undefined;
}

export interface PatchOptions {
  /** The patch's media type: `application/apply-patch+yaml`, `application/merge-patch+json`, ... */
  contentType: string;
  fieldManager: string;
  /** Server-side apply only: take over conflicting fields. */
  force?: boolean;
  /** `dryRun=All`: judged by the API server, persisted by nothing (`--dry-run=server`). */
  dryRun?: boolean;
}

/**
 * The generic object access src/kube/write.ts builds on. Errors carry `code` (the HTTP status)
 * and a string `body` (the Kubernetes Status) as client-node's ApiException does, so
 * `describeKubeError` reads both alike.
 */
export interface ObjectClient {
  read(ref: ObjectRef): Promise<KubeObject>;
  /** Every object of a kind, in one namespace or (without one) cluster-wide. */
  list(apiVersion: string, kind: string, namespace?: string): Promise<KubeObject[]>;
  /** PATCH with `body`, JSON text sent exactly as given. */
  patch(ref: ObjectRef, body: string, options: PatchOptions): Promise<KubeObject>;
  delete(ref: ObjectRef, options?: { dryRun?: boolean }): Promise<void>;
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

export function createObjectClient(config: k8s.KubeConfig, defaultNamespace: string): ObjectClient {
  const discovered = new Map<string, ApiResource[]>();

  async function resourceOf(apiVersion: string, kind: string): Promise<ApiResource> {
    const find = () => discovered.get(apiVersion)?.find((r) => r.kind === kind && !r.name.includes('/'));
    let found = find();
    if (!found) {
      const list = (await kubeRequest(config, { method: 'GET', path: groupVersionPath(apiVersion) })) as
        { resources?: ApiResource[] } | undefined;
      discovered.set(apiVersion, list?.resources ?? []);
      found = find();
    }
    if (!found) {
      const message = `the server does not serve kind ${kind} in ${apiVersion}`;
      throw new KubeRequestError(
        message,
        404,
        JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'NotFound', message, code: 404 }),
      );
    }
    return found;
  }

  async function collectionPath(apiVersion: string, kind: string, namespace: string | undefined) {
    const resource = await resourceOf(apiVersion, kind);
    const parts = [groupVersionPath(apiVersion)];
    if (resource.namespaced && namespace !== '') {
      parts.push('namespaces', encodeURIComponent(namespace ?? defaultNamespace));
    }
    parts.push(resource.name);
    return parts.join('/');
  }

  async function objectPath(ref: ObjectRef): Promise<string> {
    return `${await collectionPath(ref.apiVersion, ref.kind, ref.namespace)}/${encodeURIComponent(ref.name)}`;
  }

  return {
    async read(ref) {
      return (await kubeRequest(config, { method: 'GET', path: await objectPath(ref) })) as KubeObject;
    },
    async list(apiVersion, kind, namespace) {
      // '' as namespace: every namespace (the collection path without /namespaces/<ns>).
      const path = await collectionPath(apiVersion, kind, namespace ?? '');
      const list = (await kubeRequest(config, { method: 'GET', path })) as
        { items?: KubeObject[] } | undefined;
      return list?.items ?? [];
    },
    async patch(ref, body, options) {
      const query: Record<string, string> = { fieldManager: options.fieldManager };
      if (options.force !== undefined) query.force = String(options.force);
      if (options.dryRun) query.dryRun = 'All';
      return (await kubeRequest(config, {
        method: 'PATCH',
        path: await objectPath(ref),
        query,
        contentType: options.contentType,
        body,
      })) as KubeObject;
    },
    async delete(ref, options = {}) {
      await kubeRequest(config, {
        method: 'DELETE',
        path: await objectPath(ref),
        ...(options.dryRun ? { query: { dryRun: 'All' } } : {}),
      });
    },
  };
}

/** `/api/v1` for the core group, `/apis/<group>/<version>` for the others. */
function groupVersionPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}
