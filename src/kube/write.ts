/**
 * Every change ctl makes to Kubernetes objects goes through these writers, and dry-run lives
 * here (ARCHITECTURE.md: "Dry-run lives in the writers"): with `dryRun` they print
 * `would patch rec/rec: {...}` and change nothing, so the steps never branch on it for writes.
 *
 * All writes are absolute desired state (reliability.md §1.3): a merge patch to a value, a
 * server-side apply of whole objects, a delete by name. None is relative, so replaying one
 * after a crash is harmless.
 *
 * They go through `kube.objects` (objects.ts), which handles any kind generically and sends each
 * body as the JSON text logged with `-vv`, never through client-node's models (those dropped
 * `x-kubernetes-preserve-unknown-fields` and more from the CRDs ctl applied). Every call names
 * its patch strategy: custom resources refuse strategic merge with 415.
 */

import { OperationError } from '../errors.js';
import type { Io } from '../io/io.js';
import { dryRunMark, type ServerDryRun } from '../io/server-dry-run.js';
import type { KubeClients } from './client.js';
import { describeKubeError, isNotFound } from './errors.js';
import type { ObjectRef } from './objects.js';
import type { KubeObject } from './reads.js';
import { DEFAULT_KUBE_TARGET, type KubeTarget, kubectlCommand } from './kube-target.js';

export type { ObjectRef } from './objects.js';

export interface WriteOptions {
  dryRun: boolean;
  io: Io;
  /** `--dry-run=server`: also send each write with `dryRun=All` and keep the server's answer. */
  server?: ServerDryRun | undefined;
}

export interface ApplyOptions extends WriteOptions {
  /** The server-side apply field manager; ctl's is `ctl`. */
  fieldManager?: string;
}

export const FIELD_MANAGER = 'ctl';

/**
 * The writers bound to one run: built once by the command with the run's dry-run and Io, and
 * handed to the steps (UpgradeDeps.kubeWriter), which then never pass or test dry-run to write.
 */
export class KubeWriter {
  constructor(
    private readonly kube: KubeClients,
    private readonly options: WriteOptions,
  ) {}

  /** True when the writes only print what they would do (`--dry-run`). */
  get dryRun(): boolean {
    return this.options.dryRun;
  }

  mergePatch(ref: ObjectRef, patch: Record<string, unknown>): Promise<KubeObject | undefined> {
    return mergePatch(this.kube, ref, patch, this.options);
  }

  strategicMergePatch(ref: ObjectRef, patch: Record<string, unknown>): Promise<KubeObject | undefined> {
    return strategicMergePatch(this.kube, ref, patch, this.options);
  }

  apply(objects: readonly KubeObject[], fieldManager?: string): Promise<KubeObject[]> {
    return serverSideApply(this.kube, objects, { ...this.options, fieldManager });
  }

  deleteIfExists(ref: ObjectRef): Promise<boolean> {
    return deleteIfExists(this.kube, ref, this.options);
  }
}

/** The patch media types (client-node's PatchStrategy values). */
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';

/** The object as it is now, or undefined when it does not exist. */
export async function readObject(kube: KubeClients, ref: ObjectRef): Promise<KubeObject | undefined> {
  try {
    return await kube.objects.read(ref);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw kubeFailure('read', ref, error, kube.selection);
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
    return await kube.objects.list(apiVersion, kind, namespace);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw kubeFailure('list', { apiVersion, kind, name: '', namespace }, error, kube.selection);
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
  return patchWith(kube, ref, patch, options, MERGE_PATCH);
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
  return patchWith(kube, ref, patch, options, STRATEGIC_MERGE_PATCH);
}

async function patchWith(
  kube: KubeClients,
  ref: ObjectRef,
  patch: Record<string, unknown>,
  options: WriteOptions,
  strategy: string,
): Promise<KubeObject | undefined> {
  const body = JSON.stringify(patch);
  if (options.dryRun) {
    options.io.info(`would patch ${describeRef(ref)}: ${body}${dryRunMark(options.server)}`);
    await judge(options, `patch ${describeRef(ref)}`, () =>
      kube.objects.patch(ref, body, { contentType: strategy, fieldManager: FIELD_MANAGER, dryRun: true }),
    );
    return undefined;
  }
  options.io.debug(1, `PATCH ${describeRef(ref)} (${strategy})`);
  options.io.debug(2, body);
  // A patch without a resourceVersion precondition states absolute desired values, so it is
  // safely sent again after a 409 (the object changed under the server's read-modify-write) or a
  // transient server failure; a conditional one only after "not done, try later" answers.
  const conditional = resourceVersionOf(patch) !== undefined;
  try {
    return await retryTransient(conditional ? TRY_LATER : RETRIED_STATUSES, () =>
      kube.objects.patch(ref, body, { contentType: strategy, fieldManager: FIELD_MANAGER }),
    );
  } catch (error) {
    throw kubeFailure('patch', ref, error, kube.selection);
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
      options.io.info(`would apply ${describeRef(ref)}${dryRunMark(options.server)}`);
      const text = JSON.stringify(object);
      await judge(options, `apply ${describeRef(ref)}`, () =>
        kube.objects.patch(ref, text, {
          contentType: APPLY_PATCH,
          fieldManager: manager,
          force: true,
          dryRun: true,
        }),
      );
      continue;
    }
    options.io.debug(1, `APPLY ${describeRef(ref)} (server-side, field manager ${manager})`);
    // The body is the object's JSON text, sent as it is: apply-patch+yaml takes JSON (YAML's
    // subset), and no model in between may drop a field the server should see.
    const body = JSON.stringify(object);
    options.io.debug(2, body);
    try {
      // A forced apply of whole objects is absolute: safe to send again.
      const result = await retryTransient(RETRIED_STATUSES, () =>
        kube.objects.patch(ref, body, { contentType: APPLY_PATCH, fieldManager: manager, force: true }),
      );
      applied.push(result);
    } catch (error) {
      throw kubeFailure('apply', ref, error, kube.selection);
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
    if (exists) {
      options.io.info(`would delete ${describeRef(ref)}${dryRunMark(options.server)}`);
      await judge(options, `delete ${describeRef(ref)}`, () => kube.objects.delete(ref, { dryRun: true }));
    }
    return exists;
  }
  options.io.debug(1, `DELETE ${describeRef(ref)}`);
  try {
    await kube.objects.delete(ref);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw kubeFailure('delete', ref, error, kube.selection);
  }
}

/**
 * `--dry-run=server`: the write, sent with `dryRun=All`, judged by the API server (admission,
 * schema, RBAC) and kept by nothing. A kind the server does not serve yet (its CRD is applied by
 * this same run, and a dry run creates no CRD) cannot be judged: said so, not counted as refused.
 */
async function judge(options: WriteOptions, what: string, send: () => Promise<unknown>): Promise<void> {
  const server = options.server;
  if (!server) return;
  try {
    await send();
    server.accept(what);
  } catch (error) {
    const info = describeKubeError(error);
    if (info.code === 404 && /does not serve kind/.test(info.message)) {
      server.cannotJudge(what, info.message);
      return;
    }
    server.refuse(what, `${info.code ?? 'no answer'} ${info.message}`);
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

function resourceVersionOf(patch: Record<string, unknown>): unknown {
  const metadata = patch.metadata;
  return metadata !== null && typeof metadata === 'object'
    ? (metadata as Record<string, unknown>).resourceVersion
    : undefined;
}

/** A write or read that failed, as exit 1 with what to do next. */
export function kubeFailure(
  verb: string,
  ref: ObjectRef,
  error: unknown,
  target: KubeTarget = DEFAULT_KUBE_TARGET,
): OperationError {
  const info = describeKubeError(error);
  const what = ref.name ? describeRef(ref) : `${ref.kind} objects`;
  let hint: string | undefined;
  if (info.code === 403) {
    hint = `Ask for permission to ${verb} ${ref.kind} objects${ref.namespace ? ` in namespace ${ref.namespace}` : ''} (${kubectlCommand(target, 'auth', 'can-i', verb === 'apply' ? 'patch' : verb, ref.kind.toLowerCase(), ...(ref.namespace ? ['-n', ref.namespace] : []))}), then run ctl again.`;
  } else if (info.code === 409) {
    hint = 'The object changed while ctl was working on it. Run ctl again: it re-reads the cluster first.';
  } else if (info.code === undefined) {
    hint = 'Check that the Kubernetes API server is reachable, then run ctl again to resume.';
  }
  return new OperationError(`cannot ${verb} ${what}: ${info.message}`, { hint, cause: error });
}
