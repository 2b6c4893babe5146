/**
 * Every change ctl makes to Kubernetes objects goes through these writers, and dry-run lives
 * here (ARCHITECTURE.md: "Dry-run lives in the writers"): with `dryRun` they print
 * `would patch rec/rec: {...}` and change nothing, so the steps never branch on it for writes.
 *
 * All writes are absolute desired state (reliability.md §1.3): a merge patch to a value, a
 * server-side apply of whole objects, a delete by name. None is relative, so replaying one
 * after a crash is harmless.
 *
 * They go through client-node's KubernetesObjectApi, which handles any kind generically (one
 * discovery GET per API group version, cached per client). Its `patch` defaults to strategic
 * merge, which custom resources refuse with 415, so every call names its strategy.
 */

import type * as k8s from '@kubernetes/client-node';
import { OperationError } from '../errors.js';
import type { Io } from '../io/io.js';
import type { KubeClients } from './client.js';
import { describeKubeError, isNotFound } from './errors.js';
import type { KubeObject } from './reads.js';

/** Which object: enough to build its URL. `namespace` is left out for cluster-scoped kinds. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string | undefined;
}

export interface WriteOptions {
  dryRun: boolean;
  io: Io;
}

export interface ApplyOptions extends WriteOptions {
  /** The server-side apply field manager; ctl's is `ctl`. */
  fieldManager?: string;
}

export const FIELD_MANAGER = 'ctl';

const objectApis = new WeakMap<KubeClients, k8s.KubernetesObjectApi>();

/** One KubernetesObjectApi per set of clients, so its discovery cache is shared by the steps. */
export function objectApi(kube: KubeClients): k8s.KubernetesObjectApi {
  let api = objectApis.get(kube);
  if (!api) {
    api = kube.k8s.KubernetesObjectApi.makeApiClient(kube.config);
    objectApis.set(kube, api);
  }
  return api;
}

/** The object as it is now, or undefined when it does not exist. */
export async function readObject(kube: KubeClients, ref: ObjectRef): Promise<KubeObject | undefined> {
  try {
    return (await objectApi(kube).read(header(ref))) as unknown as KubeObject;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw kubeFailure('read', ref, error);
  }
}

/** Every object of a kind (in one namespace, or cluster-wide); an API that is not served gives []. */
export async function listObjects(
  kube: KubeClients,
  apiVersion: string,
  kind: string,
  namespace?: string,
): Promise<KubeObject[]> {
  try {
    const list = await objectApi(kube).list(apiVersion, kind, namespace);
    return (list.items ?? []) as unknown as KubeObject[];
  } catch (error) {
    if (isNotFound(error)) return [];
    throw kubeFailure('list', { apiVersion, kind, name: '', namespace }, error);
  }
}

/**
 * A JSON merge patch (RFC 7386): the fields in `patch` get exactly these values. Put
 * `metadata.resourceVersion` in the patch to make it conditional (409 when the object changed).
 */
export async function mergePatch(
  kube: KubeClients,
  ref: ObjectRef,
  patch: Record<string, unknown>,
  options: WriteOptions,
): Promise<KubeObject | undefined> {
  return patchWith(kube, ref, patch, options, kube.k8s.PatchStrategy.MergePatch);
}

/**
 * A strategic merge patch, for built-in kinds only: lists with a merge key (a webhook
 * configuration's `webhooks`, by `name`) merge by that key, as `kubectl patch` does.
 */
export async function strategicMergePatch(
  kube: KubeClients,
  ref: ObjectRef,
  patch: Record<string, unknown>,
  options: WriteOptions,
): Promise<KubeObject | undefined> {
  return patchWith(kube, ref, patch, options, kube.k8s.PatchStrategy.StrategicMergePatch);
}

async function patchWith(
  kube: KubeClients,
  ref: ObjectRef,
  patch: Record<string, unknown>,
  options: WriteOptions,
  strategy: k8s.PatchStrategy,
): Promise<KubeObject | undefined> {
  const body = JSON.stringify(patch);
  if (options.dryRun) {
    options.io.info(`would patch ${describeRef(ref)}: ${body}`);
    return undefined;
  }
  options.io.debug(1, `PATCH ${describeRef(ref)} (${strategy})`);
  options.io.debug(2, body);
  const spec = { ...patch, apiVersion: ref.apiVersion, kind: ref.kind, metadata: metadataOf(ref, patch) };
  // A patch without a resourceVersion precondition states absolute desired values, so it is
  // safely sent again after a 409 (the object changed under the server's read-modify-write) or a
  // transient server failure; a conditional one only after "not done, try later" answers.
  const conditional = spec.metadata.resourceVersion !== undefined;
  try {
    return (await retryTransient(conditional ? TRY_LATER : RETRIED_STATUSES, () =>
      objectApi(kube).patch(
        spec as k8s.KubernetesObject,
        undefined,
        undefined,
        FIELD_MANAGER,
        undefined,
        strategy,
      ),
    )) as unknown as KubeObject;
  } catch (error) {
    throw kubeFailure('patch', ref, error);
  }
}

/** Answers after which a write is sent again: the server did not act, or acting twice is harmless. */
const TRY_LATER = new Set([429, 503]);
const RETRIED_STATUSES = new Set([409, 429, 500, 502, 503, 504]);
/** client-go's RetryOnConflict makes 5 attempts; the delays here grow from 50 to 400 ms. */
const WRITE_ATTEMPTS = 5;

async function retryTransient<T>(statuses: ReadonlySet<number>, call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      const code = describeKubeError(error).code;
      if (attempt >= WRITE_ATTEMPTS || code === undefined || !statuses.has(code)) throw error;
      await new Promise((resolve) =>
        setTimeout(resolve, 50 * 2 ** (attempt - 1) * (0.5 + Math.random() / 2)),
      );
    }
  }
}

/**
 * Server-side apply of whole objects, in the order given, with `force: true`: ctl takes over
 * the fields it sets from whoever set them before (a client-side `kubectl apply`, an older
 * ctl), exactly as `kubectl apply --server-side --force-conflicts` would.
 */
export async function serverSideApply(
  kube: KubeClients,
  objects: readonly KubeObject[],
  options: ApplyOptions,
): Promise<KubeObject[]> {
  const manager = options.fieldManager ?? FIELD_MANAGER;
  const applied: KubeObject[] = [];
  for (const object of objects) {
    const ref = refOf(object);
    if (options.dryRun) {
      options.io.info(`would apply ${describeRef(ref)}`);
      continue;
    }
    options.io.debug(1, `APPLY ${describeRef(ref)} (server-side, field manager ${manager})`);
    options.io.debug(2, JSON.stringify(object));
    try {
      // A forced apply of whole objects is absolute: safe to send again.
      const result = await retryTransient(RETRIED_STATUSES, () =>
        objectApi(kube).patch(
          object as k8s.KubernetesObject,
          undefined,
          undefined,
          manager,
          true,
          kube.k8s.PatchStrategy.ServerSideApply,
        ),
      );
      applied.push(result as unknown as KubeObject);
    } catch (error) {
      throw kubeFailure('apply', ref, error);
    }
  }
  return applied;
}

/** Deletes the object; true when it existed (and was deleted, or would be in dry-run). */
export async function deleteIfExists(
  kube: KubeClients,
  ref: ObjectRef,
  options: WriteOptions,
): Promise<boolean> {
  if (options.dryRun) {
    const exists = (await readObject(kube, ref)) !== undefined;
    if (exists) options.io.info(`would delete ${describeRef(ref)}`);
    return exists;
  }
  options.io.debug(1, `DELETE ${describeRef(ref)}`);
  try {
    await objectApi(kube).delete(header(ref));
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw kubeFailure('delete', ref, error);
  }
}

/** `rec/rec -n redis`: the short form people know from kubectl. */
export function describeRef(ref: ObjectRef): string {
  const kind = SHORT_KINDS[ref.kind] ?? ref.kind.toLowerCase();
  return `${kind}/${ref.name}${ref.namespace ? ` -n ${ref.namespace}` : ''}`;
}

const SHORT_KINDS: Record<string, string> = {
  RedisEnterpriseCluster: 'rec',
  RedisEnterpriseDatabase: 'redb',
  RedisEnterpriseActiveActiveDatabase: 'reaadb',
  CustomResourceDefinition: 'crd',
  SecurityContextConstraints: 'scc',
  ValidatingWebhookConfiguration: 'validatingwebhookconfiguration',
};

export function refOf(object: KubeObject): ObjectRef {
  return {
    apiVersion: object.apiVersion ?? '',
    kind: object.kind ?? '',
    name: object.metadata?.name ?? '',
    namespace: object.metadata?.namespace,
  };
}

function header(ref: ObjectRef): {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
} {
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    metadata: ref.namespace ? { name: ref.name, namespace: ref.namespace } : { name: ref.name },
  };
}

function metadataOf(ref: ObjectRef, patch: Record<string, unknown>): Record<string, unknown> {
  const given = patch.metadata;
  const extra = given !== null && typeof given === 'object' ? (given as Record<string, unknown>) : {};
  return { ...extra, ...header(ref).metadata };
}

/** A write or read that failed, as exit 1 with what to do next. */
export function kubeFailure(verb: string, ref: ObjectRef, error: unknown): OperationError {
  const info = describeKubeError(error);
  const what = ref.name ? describeRef(ref) : `${ref.kind} objects`;
  let hint: string | undefined;
  if (info.code === 403) {
    hint = `Ask for permission to ${verb} ${ref.kind} objects${ref.namespace ? ` in namespace ${ref.namespace}` : ''} (kubectl auth can-i ${verb === 'apply' ? 'patch' : verb} ${ref.kind.toLowerCase()}${ref.namespace ? ` -n ${ref.namespace}` : ''}), then run ctl again.`;
  } else if (info.code === 409) {
    hint = 'The object changed while ctl was working on it. Run ctl again: it re-reads the cluster first.';
  } else if (info.code === undefined) {
    hint = 'Check that the Kubernetes API server is reachable, then run ctl again to resume.';
  }
  return new OperationError(`cannot ${verb} ${what}: ${info.message}`, { hint, cause: error });
}
