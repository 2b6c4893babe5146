import { randomUUID } from 'node:crypto';
import { copyJson } from './json-copy.js';
import { PodLogBook } from './pod-logs.js';
import { EventEmitter } from 'node:events';
import { dropFieldsNoLongerApplied, fieldSetOf, upsertManagedFields } from './managed-fields.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, PatchError } from './patch.js';
import { groupVersion, type ResourceRegistry, type ResourceType, storageKey } from './registry.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  KubeApiError,
  namespaceNotFound,
  notFound,
  unsupportedMediaType,
} from './status.js';
import { clone, isRecord, type KubeObject, type OwnerReference } from './types.js';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One change of one object, as watches and in-process controllers see it. */
export interface ChangeEvent {
  type: ChangeType;
  resource: ResourceType;
  /** The object after the change (for DELETED: its last state, with the deletion's resourceVersion). */
  object: KubeObject;
  oldObject?: KubeObject;
  resourceVersion: number;
}

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  /** `status` writes change only .status; the main resource keeps the old status. */
  subresource?: string;
  /** The namespace from the request path; must agree with the body's. */
  namespace?: string;
  /**
   * What to do with fields the schema does not know (custom resources): `Strict` refuses the
   * write (400), `Warn` (the server's default) adds a warning to `warnings`, `Ignore` only prunes.
   */
  fieldValidation?: FieldValidation;
  /** Collects the warnings of the write, for the `Warning` response header. */
  warnings?: string[];
}

export const FIELD_VALIDATIONS = ['Ignore', 'Warn', 'Strict'] as const;
export type FieldValidation = (typeof FIELD_VALIDATIONS)[number];

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

export interface PatchOptions extends WriteOptions {
  force?: boolean;
}

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface DeleteOptions {
  dryRun?: boolean;
  propagationPolicy?: PropagationPolicy;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

/** An object's JSON text (KubeStore.readText) and its size in UTF-8. */
export interface ObjectText {
  text: string;
  bytes: number;
}

/** A list's page as the JSON texts of its items (KubeStore.listTexts), with their UTF-8 sizes. */
export interface ListTexts extends Omit<ListResult, 'items'> {
  texts: string[];
  bytes: number;
}

export const PATCH_CONTENT_TYPES: Record<string, PatchType> = {
  'application/merge-patch+json': 'merge',
  'application/json-patch+json': 'json',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+cbor': 'apply',
};

const CUSTOM_PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/apply-patch+yaml',
];

/** How many events watches can replay at least; older resourceVersions get 410 Gone. */
const HISTORY_LIMIT = 10_000;
/**
 * The history is trimmed back to HISTORY_LIMIT when it holds this many more: trimmed at every
 * event, each change of a full history moved all 10,000 (a quarter of the CPU of starting
 * scale-10000, issue 39). An API server's own compaction is periodic too.
 */
const HISTORY_SLACK = 1_000;

/** Built-in kinds that carry metadata.generation (custom resources always do). */
const GENERATION_KINDS = new Set([
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'CustomResourceDefinition',
  'PodDisruptionBudget',
]);

export function nowTimestamp(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

/** JSON with sorted keys: equality of objects regardless of key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    isRecord(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/**
 * Whether two values are the same JSON whatever the order of their keys, as comparing their
 * canonical() texts says, without building and sorting those texts: every update compares the
 * old object with the new twice (a no-op, a change of spec), and seeding 10,000 databases (a
 * create and a status patch each) made four canonical texts per database: starting `scale-10000`
 * took 2.0–2.3 s of CPU before, 1.8–2.1 s after (Node 22, a process's second and third start).
 * A key whose value is undefined counts as absent (JSON.stringify leaves it out). Anything but
 * plain objects, arrays and primitives (no stored object holds one: they are JSON) is compared by
 * its text.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return canonical(a) === canonical(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => sameJson(item, b[index]));
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return canonical(a) === canonical(b);
  let keys = 0;
  for (const [key, value] of Object.entries(a)) {
    if (value === undefined) continue;
    keys += 1;
    if (!sameJson(value, b[key])) return false;
  }
  for (const value of Object.values(b)) if (value !== undefined) keys -= 1;
  return keys === 0;
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function withoutVolatile(object: KubeObject): unknown {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = object.metadata;
  return { ...object, metadata };
}

function specPart(object: KubeObject): unknown {
  const { metadata: _m, status: _s, ...rest } = object;
  return rest;
}

const NAME_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function randomSuffix(length = 5): string {
  let suffix = '';
  for (let i = 0; i < length; i++)
    suffix += NAME_SUFFIX_ALPHABET[Math.floor(Math.random() * NAME_SUFFIX_ALPHABET.length)];
  return suffix;
}

/**
 * The emulator's etcd and the generic registry's semantics in one place: one global
 * resourceVersion counter, status subresource rules, generation, finalizers, owner-reference
 * garbage collection, the patch flavours and a simplified server-side apply. Emits 'change'
 * (ChangeEvent) synchronously after every persisted write, so watches and controllers see
 * every change in order.
 */
export class KubeStore extends EventEmitter {
  readonly registry: ResourceRegistry;
  /** What the pods' containers wrote (the `pods/log` subresource); a pod's lines go with it. */
  readonly podLogs = new PodLogBook();
  #rv = 0;
  readonly #objects = new Map<string, Map<string, KubeObject>>();
  #history: ChangeEvent[] = [];
  /** Each stored object's JSON text as a list or a GET serves it (#text), until the object is replaced. */
  readonly #texts = new WeakMap<
    KubeObject,
    { apiVersion: string; resourceVersion: string | undefined; text: string; bytes: number }
  >();
  /** Events at or below this resourceVersion can no longer be replayed. */
  #compactedRv = 0;

  constructor(registry: ResourceRegistry) {
    super();
    this.setMaxListeners(0);
    this.registry = registry;
    this.on('change', (event: ChangeEvent) => {
      if (event.type === 'DELETED' && event.object.kind === 'Pod') {
        this.podLogs.forgetPod(
          event.object.metadata.namespace ?? 'default',
          event.object.metadata.name ?? '',
        );
      }
    });
  }

  get resourceVersion(): string {
    return String(this.#rv);
  }

  /** The resource type of a manifest's apiVersion and kind; 404-style error when unknown. */
  resolve(apiVersion: string, kind: string): ResourceType {
    const rt = this.registry.byKind(apiVersion, kind);
    if (!rt)
      throw new KubeApiError(
        404,
        'NotFound',
        `the server could not find the requested resource (${kind} ${apiVersion})`,
      );
    return rt;
  }

  get(rt: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    const found = this.#table(rt).get(this.#key(rt, namespace, name));
    return found ? this.#present(rt, found) : undefined;
  }

  /**
   * The stored object itself, not a copy, for an in-process reader that only looks at it (never
   * changes it, never keeps it past the current tick): a reconcile pass reads a few objects for
   * each of thousands of database changes, and copying them was most of the emulator's time.
   */
  peek(rt: ResourceType, namespace: string | undefined, name: string): Readonly<KubeObject> | undefined {
    return this.#table(rt).get(this.#key(rt, namespace, name));
  }

  /** As peek, for every object of a resource in a namespace (unsorted). */
  peekAll(rt: ResourceType, namespace?: string): Readonly<KubeObject>[] {
    const all = [...this.#table(rt).values()];
    return rt.namespaced && namespace ? all.filter((o) => o.metadata.namespace === namespace) : all;
  }

  /** Like get, but throws the real 404 Status. */
  read(rt: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const found = this.get(rt, namespace, name);
    if (!found) throw notFound(rt, name);
    return found;
  }

  /**
   * As read, the JSON text `read` would make of the object, and its size in UTF-8 (for the HTTP
   * GET, which sends it as it is): the text listTexts keeps, with no copy of the object made.
   */
  readText(rt: ResourceType, namespace: string | undefined, name: string): ObjectText {
    const found = this.peek(rt, namespace, name);
    if (!found) throw notFound(rt, name);
    return this.#text(rt, found);
  }

  list(rt: ResourceType, options: ListOptions = {}): ListResult {
    const { page, ...rest } = this.#select(rt, options);
    return {
      items: page.map((o) => this.#present(rt, o)),
      ...rest,
    };
  }

  /**
   * As list, with each item as the JSON text `list` would make of it (for the HTTP list, which
   * joins them into the answer), and their size in UTF-8. A stored object is never changed in place (every
   * write stores a new object and gives it a new resourceVersion), so its text is made once and
   * kept until the object is replaced, as the API server's watch cache keeps each object's
   * serialised form (k8s.io/apiserver `cachingObject`): a list of 10,000 database resources
   * (15 MB) was serialised whole on every request.
   */
  listTexts(rt: ResourceType, options: ListOptions = {}): ListTexts {
    const { page, ...rest } = this.#select(rt, options);
    let bytes = 0;
    const texts = page.map((object) => {
      const cached = this.#text(rt, object);
      bytes += cached.bytes;
      return cached.text;
    });
    return { texts, bytes, ...rest };
  }

  /** A stored object's JSON text as a list or a GET serves it: made once, kept until it is replaced. */
  #text(rt: ResourceType, object: KubeObject): ObjectText {
    const apiVersion = groupVersion(rt);
    let cached = this.#texts.get(object);
    if (
      !cached ||
      cached.apiVersion !== apiVersion ||
      cached.resourceVersion !== object.metadata.resourceVersion
    ) {
      const text = JSON.stringify(this.#shallow(rt, object));
      cached = {
        apiVersion,
        resourceVersion: object.metadata.resourceVersion,
        text,
        bytes: Buffer.byteLength(text),
      };
      this.#texts.set(object, cached);
    }
    return cached;
  }

  /** The stored objects of a list's page, by key, with the page's resourceVersion and continuation. */
  #select(rt: ResourceType, options: ListOptions): Omit<ListResult, 'items'> & { page: KubeObject[] } {
    const labels = parseLabelSelector(options.labelSelector);
    const fields = parseFieldSelector(options.fieldSelector);
    const all = [...this.#table(rt).entries()]
      .filter(([, o]) => !rt.namespaced || !options.namespace || o.metadata.namespace === options.namespace)
      .filter(([, o]) => labels(o) && fields(o))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    let start = 0;
    if (options.continue) {
      const after = decodeContinue(options.continue);
      start = all.findIndex(([key]) => key > after);
      if (start < 0) start = all.length;
    }
    const limit = options.limit && options.limit > 0 ? options.limit : all.length;
    const page = all.slice(start, start + limit);
    const result: Omit<ListResult, 'items'> & { page: KubeObject[] } = {
      page: page.map(([, o]) => o),
      resourceVersion: this.resourceVersion,
    };
    const remaining = all.length - (start + page.length);
    if (remaining > 0 && page.length > 0) {
      result.continue = encodeContinue(page[page.length - 1]![0]);
      result.remainingItemCount = remaining;
    }
    return result;
  }

  /** Every stored object of a resource, for in-process readers that need no selectors. */
  all(rt: ResourceType, namespace?: string): KubeObject[] {
    return this.list(rt, { namespace }).items;
  }

  create(rt: ResourceType, input: KubeObject, options: WriteOptions = {}): KubeObject {
    if (!isRecord(input) || !isRecord(input.metadata)) throw badRequest('Object is missing metadata');
    const object = clone(input);
    const meta = object.metadata;
    object.apiVersion = groupVersion(rt);
    object.kind = rt.kind;
    if (rt.namespaced) {
      if (options.namespace && meta.namespace && meta.namespace !== options.namespace) {
        throw badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
      meta.namespace = options.namespace ?? meta.namespace ?? 'default';
    } else {
      delete meta.namespace;
    }
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${randomSuffix()}`;
    if (!meta.name) {
      throw invalid(rt, '', [
        {
          reason: 'FieldValueRequired',
          message: 'Required value: name or generateName is required',
          field: 'metadata.name',
        },
      ]);
    }
    if (rt.createOnly) return object;
    if (rt.namespaced && !this.#namespaceExists(meta.namespace as string))
      throw namespaceNotFound(meta.namespace as string);
    if (this.#table(rt).has(this.#key(rt, meta.namespace, meta.name))) throw alreadyExists(rt, meta.name);

    if (rt.subresources.includes('status')) delete object.status;
    this.#checkUnknownFields(rt, object, options);
    rt.applyDefaults?.(object);
    this.#validate(rt, object);
    rt.admit?.(object);

    meta.uid = randomUUID();
    meta.creationTimestamp = nowTimestamp();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.resourceVersion;
    if (this.#hasGeneration(rt)) meta.generation = 1;
    else delete meta.generation;
    if (!meta.managedFields && options.fieldManager) {
      meta.managedFields = upsertManagedFields(undefined, {
        manager: options.fieldManager,
        operation: 'Update',
        apiVersion: groupVersion(rt),
        fieldsV1: fieldSetOf(object),
      });
    }
    if (options.dryRun) return this.#present(rt, object);
    this.#persist(rt, 'ADDED', object, undefined);
    return this.#present(rt, object);
  }

  /** PUT: replaces the object (or only its status with subresource 'status'). */
  update(rt: ResourceType, input: KubeObject, options: WriteOptions = {}): KubeObject {
    if (!isRecord(input) || !isRecord(input.metadata)) throw badRequest('Object is missing metadata');
    const namespace = rt.namespaced
      ? (options.namespace ?? input.metadata.namespace ?? 'default')
      : undefined;
    const name = input.metadata.name;
    if (!name) throw badRequest('name is required');
    const existing = this.#table(rt).get(this.#key(rt, namespace, name));
    if (!existing) throw notFound(rt, name);
    const rv = input.metadata.resourceVersion;
    if (rv && rv !== existing.metadata.resourceVersion) throw conflict(rt, name);
    const clientManagedFields = input.metadata.managedFields !== undefined;
    const next = this.#prepareUpdate(rt, existing, clone(input), options);
    if (!clientManagedFields && options.fieldManager) {
      next.metadata.managedFields = upsertManagedFields(existing.metadata.managedFields, {
        manager: options.fieldManager,
        operation: 'Update',
        apiVersion: groupVersion(rt),
        fieldsV1:
          options.subresource === 'status' ? { 'f:status': fieldSetOf(input.status) } : fieldSetOf(input),
        subresource: options.subresource,
      });
    }
    return this.#commitUpdate(rt, existing, next, options.dryRun ?? false);
  }

  /** Status-only write, the way controllers report progress. */
  updateStatus(
    rt: ResourceType,
    input: KubeObject,
    options: Omit<WriteOptions, 'subresource'> = {},
  ): KubeObject {
    return this.update(rt, input, { ...options, subresource: 'status' });
  }

  patch(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    body: unknown,
    options: PatchOptions = {},
  ): { object: KubeObject; created: boolean } {
    const ns = rt.namespaced ? (namespace ?? 'default') : undefined;
    if (type === 'strategic' && !rt.builtin) throw unsupportedMediaType(CUSTOM_PATCH_TYPES);
    const existing = this.#table(rt).get(this.#key(rt, ns, name));
    if (type === 'apply') return this.#apply(rt, ns, name, existing, body, options);
    if (!existing) throw notFound(rt, name);
    const current = this.#present(rt, existing);
    let patched: unknown;
    try {
      if (type === 'merge') patched = applyMergePatch(current, body);
      else if (type === 'json') patched = applyJsonPatch(current, body);
      else patched = applyStrategicMergePatch(current, body, rt.kind);
    } catch (error) {
      throw patchFailure(error);
    }
    if (!isRecord(patched) || !isRecord(patched.metadata))
      throw badRequest('patch removed the object metadata');
    const result = patched as KubeObject;
    if (result.metadata.name !== name)
      throw badRequest('the name of the object cannot be changed by a patch');
    const rv = result.metadata.resourceVersion;
    if (rv && rv !== existing.metadata.resourceVersion) throw conflict(rt, name);
    const clientManagedFields = !sameJson(result.metadata.managedFields, existing.metadata.managedFields);
    const next = this.#prepareUpdate(rt, existing, result, options);
    if (clientManagedFields) {
      next.metadata.managedFields = result.metadata.managedFields;
    } else if (options.fieldManager) {
      next.metadata.managedFields = upsertManagedFields(existing.metadata.managedFields, {
        manager: options.fieldManager,
        operation: 'Update',
        apiVersion: groupVersion(rt),
        fieldsV1: type === 'json' ? {} : fieldSetOf(body),
        subresource: options.subresource,
      });
    }
    return { object: this.#commitUpdate(rt, existing, next, options.dryRun ?? false), created: false };
  }

  delete(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): { object: KubeObject; deleted: boolean } {
    const ns = rt.namespaced ? (namespace ?? 'default') : undefined;
    const existing = this.#table(rt).get(this.#key(rt, ns, name));
    if (!existing) throw notFound(rt, name);
    const pre = options.preconditions;
    if (pre?.uid && pre.uid !== existing.metadata.uid) {
      throw conflict(
        rt,
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${existing.metadata.uid}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== existing.metadata.resourceVersion) {
      throw conflict(
        rt,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${existing.metadata.resourceVersion}`,
      );
    }
    if (options.dryRun) return { object: this.#present(rt, existing), deleted: false };
    const policy = options.propagationPolicy ?? 'Background';
    const uid = existing.metadata.uid as string;
    if (policy === 'Orphan') this.#orphanDependents(uid);
    if (policy === 'Foreground') this.#deleteDependents(uid, 'Foreground');
    if (rt.kind === 'Namespace' && !rt.group) this.#emptyNamespace(name);
    if ((existing.metadata.finalizers ?? []).length > 0) {
      if (existing.metadata.deletionTimestamp) return { object: this.#present(rt, existing), deleted: false };
      const marked = clone(existing);
      marked.metadata.deletionTimestamp = nowTimestamp();
      marked.metadata.deletionGracePeriodSeconds = 0;
      this.#persist(rt, 'MODIFIED', marked, existing);
      return { object: this.#present(rt, marked), deleted: false };
    }
    const removed = this.#remove(rt, existing);
    if (policy === 'Background') this.#collectGarbage();
    return { object: removed, deleted: true };
  }

  /**
   * Events after `resourceVersion`, oldest first, or 'expired' when the history no longer
   * reaches back that far (the watch then gets 410 Gone).
   */
  eventsSince(resourceVersion: number): ChangeEvent[] | 'expired' {
    if (resourceVersion < this.#compactedRv) return 'expired';
    return this.#history.filter((e) => e.resourceVersion > resourceVersion);
  }

  /** Forgets the event history, like etcd compaction: older resourceVersions now get 410. */
  compact(): void {
    this.#history = [];
    this.#compactedRv = this.#rv;
  }

  // ----- internals -----

  #apply(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    existing: KubeObject | undefined,
    body: unknown,
    options: PatchOptions,
  ): { object: KubeObject; created: boolean } {
    if (!isRecord(body)) throw badRequest('apply patch must be an object');
    const applied = clone(body) as KubeObject;
    if (!isRecord(applied.metadata)) applied.metadata = {};
    if (applied.metadata.name && applied.metadata.name !== name) {
      throw badRequest(
        `the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`,
      );
    }
    const manager = options.fieldManager;
    if (!manager) throw badRequest('PATCH, application/apply-patch+yaml requires fieldManager to be set');
    const appliedSet = fieldSetOf(applied);
    const apiVersion = groupVersion(rt);
    if (!existing) {
      const created = this.create(
        rt,
        {
          ...applied,
          metadata: {
            ...applied.metadata,
            name,
            ...(namespace ? { namespace } : {}),
            managedFields: upsertManagedFields(undefined, {
              manager,
              operation: 'Apply',
              apiVersion,
              fieldsV1: appliedSet,
            }),
          },
        },
        { ...options, namespace },
      );
      return { object: created, created: !options.dryRun };
    }
    const rv = applied.metadata.resourceVersion;
    if (rv && rv !== existing.metadata.resourceVersion) throw conflict(rt, name);
    const current = this.#present(rt, existing);
    let merged: KubeObject;
    try {
      const { managedFields: _ignored, ...appliedMeta } = applied.metadata;
      const patch = { ...applied, metadata: appliedMeta };
      merged = (
        rt.builtin ? applyStrategicMergePatch(current, patch, rt.kind) : applyMergePatch(current, patch)
      ) as KubeObject;
    } catch (error) {
      throw patchFailure(error);
    }
    const entries = existing.metadata.managedFields ?? [];
    dropFieldsNoLongerApplied(merged, entries, manager, appliedSet);
    const next = this.#prepareUpdate(rt, existing, merged, options);
    next.metadata.managedFields = upsertManagedFields(entries, {
      manager,
      operation: 'Apply',
      apiVersion,
      fieldsV1: appliedSet,
      subresource: options.subresource,
    });
    return { object: this.#commitUpdate(rt, existing, next, options.dryRun ?? false), created: false };
  }

  /** The candidate object of an update: immutable metadata kept, status rules applied, defaulted, validated. */
  #prepareUpdate(
    rt: ResourceType,
    existing: KubeObject,
    input: KubeObject,
    options: WriteOptions,
  ): KubeObject {
    const { subresource } = options;
    let next: KubeObject;
    if (subresource === 'status') {
      next = clone(existing);
      if (input.status === undefined) delete next.status;
      else next.status = clone(input.status);
    } else {
      next = input;
      next.apiVersion = groupVersion(rt);
      next.kind = rt.kind;
      if (rt.subresources.includes('status')) {
        if (existing.status === undefined) delete next.status;
        else next.status = clone(existing.status);
      }
      const meta = next.metadata;
      const old = existing.metadata;
      meta.name = old.name;
      if (old.namespace) meta.namespace = old.namespace;
      else delete meta.namespace;
      meta.uid = old.uid;
      meta.creationTimestamp = old.creationTimestamp;
      if (old.deletionTimestamp) {
        meta.deletionTimestamp = old.deletionTimestamp;
        meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
      } else {
        delete meta.deletionTimestamp;
        delete meta.deletionGracePeriodSeconds;
      }
      if (meta.managedFields === undefined && old.managedFields)
        meta.managedFields = clone(old.managedFields);
      this.#checkUnknownFields(rt, next, options);
      rt.applyDefaults?.(next);
    }
    if (existing.metadata.generation !== undefined) {
      next.metadata.generation = !sameJson(specPart(next), specPart(existing))
        ? (existing.metadata.generation ?? 0) + 1
        : existing.metadata.generation;
    }
    next.metadata.resourceVersion = existing.metadata.resourceVersion;
    this.#validate(rt, next);
    const causes = subresource === 'status' ? [] : (rt.validateUpdate?.(next, existing) ?? []);
    if (causes.length > 0) throw invalid(rt, next.metadata.name ?? '', causes);
    return next;
  }

  #commitUpdate(rt: ResourceType, existing: KubeObject, next: KubeObject, dryRun: boolean): KubeObject {
    if (sameJson(withoutVolatile(next), withoutVolatile(existing)) && !managedFieldsChanged(existing, next)) {
      return this.#present(rt, existing);
    }
    if (dryRun) return this.#present(rt, next);
    if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0) {
      const removed = this.#remove(rt, next);
      this.#collectGarbage();
      return removed;
    }
    this.#persist(rt, 'MODIFIED', next, existing);
    return this.#present(rt, next);
  }

  /** `fieldValidation` for the fields pruning is about to drop (real server: the strict decoder). */
  #checkUnknownFields(rt: ResourceType, object: KubeObject, options: WriteOptions): void {
    const unknown = rt.unknownFields?.(object) ?? [];
    if (unknown.length === 0 || options.fieldValidation === 'Ignore') return;
    const problems = unknown.map((path) => `unknown field "${path}"`);
    if (options.fieldValidation === 'Strict') {
      throw badRequest(
        `${rt.kind} in version "${rt.version}" cannot be handled as a ${rt.kind}: strict decoding error: ${problems.join(', ')}`,
      );
    }
    options.warnings?.push(...problems);
  }

  #validate(rt: ResourceType, object: KubeObject): void {
    if (!rt.validate) return;
    const causes = rt.validate(object);
    if (causes.length > 0) throw invalid(rt, object.metadata.name ?? '', causes);
  }

  #hasGeneration(rt: ResourceType): boolean {
    return !rt.builtin || GENERATION_KINDS.has(rt.kind);
  }

  #persist(rt: ResourceType, type: ChangeType, object: KubeObject, oldObject: KubeObject | undefined): void {
    this.#rv += 1;
    object.metadata.resourceVersion = String(this.#rv);
    this.#table(rt).set(this.#key(rt, object.metadata.namespace, object.metadata.name ?? ''), object);
    this.#record(rt, type, object, oldObject);
  }

  #remove(rt: ResourceType, object: KubeObject): KubeObject {
    const key = this.#key(rt, object.metadata.namespace, object.metadata.name ?? '');
    const old = this.#table(rt).get(key);
    this.#table(rt).delete(key);
    this.#rv += 1;
    const last = clone(object);
    last.metadata.resourceVersion = String(this.#rv);
    this.#record(rt, 'DELETED', last, old);
    return this.#present(rt, last);
  }

  #record(rt: ResourceType, type: ChangeType, object: KubeObject, oldObject: KubeObject | undefined): void {
    const event: ChangeEvent = { type, resource: rt, object, resourceVersion: this.#rv };
    if (oldObject) event.oldObject = oldObject;
    this.#history.push(event);
    if (this.#history.length > HISTORY_LIMIT + HISTORY_SLACK) {
      const dropped = this.#history.splice(0, this.#history.length - HISTORY_LIMIT);
      this.#compactedRv = dropped[dropped.length - 1]?.resourceVersion ?? this.#compactedRv;
    }
    this.emit('change', event);
  }

  #namespaceExists(namespace: string): boolean {
    return this.#objects.get('/namespaces')?.has(`/${namespace}`) ?? false;
  }

  #emptyNamespace(namespace: string): void {
    for (const rt of this.#storedTypes()) {
      if (!rt.namespaced) continue;
      for (const object of [...this.#table(rt).values()]) {
        if (object.metadata.namespace === namespace) this.#remove(rt, object);
      }
    }
  }

  /** One served version per stored resource, to walk every stored object. */
  #storedTypes(): ResourceType[] {
    const seen = new Map<string, ResourceType>();
    for (const rt of this.registry.all()) if (!seen.has(storageKey(rt))) seen.set(storageKey(rt), rt);
    return [...seen.values()];
  }

  #everyObject(): Array<[ResourceType, KubeObject]> {
    const result: Array<[ResourceType, KubeObject]> = [];
    for (const rt of this.#storedTypes())
      for (const object of this.#table(rt).values()) result.push([rt, object]);
    return result;
  }

  #orphanDependents(uid: string): void {
    for (const [rt, object] of this.#everyObject()) {
      const refs = object.metadata.ownerReferences ?? [];
      if (!refs.some((r) => r.uid === uid)) continue;
      const next = clone(object);
      next.metadata.ownerReferences = refs.filter((r) => r.uid !== uid);
      if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
      this.#persist(rt, 'MODIFIED', next, object);
    }
  }

  #deleteDependents(uid: string, policy: PropagationPolicy): void {
    for (const [rt, object] of this.#everyObject()) {
      if (!(object.metadata.ownerReferences ?? []).some((r) => r.uid === uid)) continue;
      if (!this.#table(rt).has(this.#key(rt, object.metadata.namespace, object.metadata.name ?? '')))
        continue;
      this.delete(rt, object.metadata.namespace, object.metadata.name ?? '', { propagationPolicy: policy });
    }
  }

  /** The garbage collector, done at once: objects whose every owner is gone are deleted. */
  #collectGarbage(): void {
    for (let pass = 0; pass < 10; pass++) {
      const liveUids = new Set(this.#everyObject().map(([, o]) => o.metadata.uid));
      const orphans = this.#everyObject().filter(([, o]) => {
        const refs: OwnerReference[] = o.metadata.ownerReferences ?? [];
        return refs.length > 0 && refs.every((r) => !liveUids.has(r.uid)) && !o.metadata.deletionTimestamp;
      });
      if (orphans.length === 0) return;
      for (const [rt, object] of orphans) {
        if (!this.#table(rt).has(this.#key(rt, object.metadata.namespace, object.metadata.name ?? '')))
          continue;
        this.delete(rt, object.metadata.namespace, object.metadata.name ?? '', {
          propagationPolicy: 'Background',
        });
      }
    }
  }

  #table(rt: ResourceType): Map<string, KubeObject> {
    const key = storageKey(rt);
    let table = this.#objects.get(key);
    if (!table) {
      table = new Map();
      this.#objects.set(key, table);
    }
    return table;
  }

  #key(rt: ResourceType, namespace: string | undefined, name: string): string {
    return `${rt.namespaced ? (namespace ?? '') : ''}/${name}`;
  }

  /** A copy in the requested version's apiVersion (all versions share storage). */
  #present(rt: ResourceType, object: KubeObject): KubeObject {
    // Stored objects are JSON (they arrive as JSON or are written through the store): copyJson
    // makes what a JSON round trip makes, in a quarter of its time, and the operator reads the
    // store on every pass (thousands of passes when 1,000 databases upgrade).
    const { apiVersion: _apiVersion, kind: _kind, ...rest } = copyJson(object);
    return { apiVersion: groupVersion(rt), kind: rt.kind, ...rest };
  }

  /** As #present, without the copy: the nested objects are the stored ones (listTexts serialises it at once). */
  #shallow(rt: ResourceType, object: KubeObject): KubeObject {
    const { apiVersion: _apiVersion, kind: _kind, ...rest } = object;
    return { apiVersion: groupVersion(rt), kind: rt.kind, ...rest };
  }
}

function managedFieldsChanged(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject) => (o.metadata.managedFields ?? []).map(({ time: _t, ...rest }) => rest);
  return !sameJson(strip(a), strip(b));
}

function patchFailure(error: unknown): KubeApiError {
  if (error instanceof KubeApiError) return error;
  if (error instanceof PatchError) {
    if (error.code === 422) {
      return new KubeApiError(422, 'Invalid', error.message, {
        causes: error.causes.map((message) => ({ reason: 'FieldValueInvalid', message })),
      });
    }
    const message = error.causes.length > 0 ? error.causes.join('; ') : error.message;
    return new KubeApiError(error.code, error.code === 400 ? 'BadRequest' : 'Invalid', message);
  }
  return badRequest(error instanceof Error ? error.message : String(error));
}

function encodeContinue(lastKey: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', start: lastKey })).toString('base64url');
}

function decodeContinue(token: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { start?: unknown };
    if (typeof parsed.start === 'string') return parsed.start;
  } catch {
    // fall through to the 400 below
  }
  throw badRequest(
    'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  );
}
