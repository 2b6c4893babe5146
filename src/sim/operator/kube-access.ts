import type { ControllerManager } from '../kube/controllers/controller.js';
import type { ResourceType } from '../kube/registry.js';
import type { KubeStore } from '../kube/store.js';
import { isRecord, type KubeObject } from '../kube/types.js';

/** The kube emulator as the operator needs it: the store, and the controllers when they run. */
export interface KubeHandle {
  store: KubeStore;
  controllers?: ControllerManager;
}

/** Accepts the bare store or the server handle (`startKubeServer`'s result). */
export function toKubeHandle(value: KubeStore | KubeHandle): KubeHandle {
  return typeof (value as KubeStore).resolve === 'function'
    ? { store: value as KubeStore }
    : (value as KubeHandle);
}

/** The field manager the simulated operator writes as (shown in managedFields). */
export const OPERATOR_FIELD_MANAGER = 'redis-enterprise-operator';

/**
 * The operator's view of the in-process store: objects by apiVersion and kind, merge patches,
 * status writes. It talks to the store directly (no HTTP), as a controller inside the API
 * server would, but still through the store's write rules so watches see every change.
 */
export class KubeAccess {
  readonly store: KubeStore;

  constructor(store: KubeStore) {
    this.store = store;
  }

  type(apiVersion: string, kind: string): ResourceType | undefined {
    return this.store.registry.byKind(apiVersion, kind);
  }

  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const rt = this.type(apiVersion, kind);
    return rt ? this.store.get(rt, namespace, name) : undefined;
  }

  list(apiVersion: string, kind: string, namespace?: string): KubeObject[] {
    const rt = this.type(apiVersion, kind);
    return rt ? this.store.all(rt, namespace) : [];
  }

  /** The stored object, not a copy: only to look at, at once (KubeStore.peek). */
  peek(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    name: string,
  ): Readonly<KubeObject> | undefined {
    const rt = this.type(apiVersion, kind);
    return rt ? this.store.peek(rt, namespace, name) : undefined;
  }

  /** The stored objects, not copies: only to look at, at once (KubeStore.peekAll). */
  peekList(apiVersion: string, kind: string, namespace?: string): Readonly<KubeObject>[] {
    const rt = this.type(apiVersion, kind);
    return rt ? this.store.peekAll(rt, namespace) : [];
  }

  create(object: KubeObject): KubeObject {
    const rt = this.store.resolve(object.apiVersion ?? '', object.kind ?? '');
    return this.store.create(rt, object, {
      fieldManager: OPERATOR_FIELD_MANAGER,
      namespace: object.metadata.namespace,
    });
  }

  /** Creates the object unless one of that name exists; returns whichever is stored. */
  ensure(object: KubeObject): KubeObject {
    const existing = this.get(
      object.apiVersion ?? '',
      object.kind ?? '',
      object.metadata.namespace,
      object.metadata.name ?? '',
    );
    return existing ?? this.create(object);
  }

  /** RFC 7386 merge patch of the main resource. */
  patch(object: KubeObject, patch: Record<string, unknown>): KubeObject {
    const rt = this.store.resolve(object.apiVersion ?? '', object.kind ?? '');
    return this.store.patch(rt, object.metadata.namespace, object.metadata.name ?? '', 'merge', patch, {
      fieldManager: OPERATOR_FIELD_MANAGER,
    }).object;
  }

  /**
   * Merge patch of `.status` only, as a controller reports progress; `fieldManager` names the
   * controller (OLM's writes are OLM's, not the operator's).
   */
  patchStatus(
    object: KubeObject,
    status: Record<string, unknown>,
    fieldManager = OPERATOR_FIELD_MANAGER,
  ): KubeObject {
    const rt = this.store.resolve(object.apiVersion ?? '', object.kind ?? '');
    const subresource = rt.subresources.includes('status') ? 'status' : undefined;
    return this.store.patch(
      rt,
      object.metadata.namespace,
      object.metadata.name ?? '',
      'merge',
      { status },
      {
        fieldManager,
        subresource,
      },
    ).object;
  }

  delete(object: KubeObject): void {
    const rt = this.store.resolve(object.apiVersion ?? '', object.kind ?? '');
    this.store.delete(rt, object.metadata.namespace, object.metadata.name ?? '');
  }
}

// ---- reading plain JSON objects -----------------------------------------------------------

/** The value at `path` below `root`, or undefined when any step is missing. */
export function getPath(root: unknown, path: readonly string[]): unknown {
  let current: unknown = root;
  for (const key of path) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
}

/** A nested merge-patch object that sets `value` at `path`: `['spec','a']` -> `{spec:{a:value}}`. */
export function patchAt(path: readonly string[], value: unknown): Record<string, unknown> {
  let result: unknown = value;
  for (let i = path.length - 1; i >= 0; i--) result = { [path[i] as string]: result };
  return result as Record<string, unknown>;
}

/** Sets `value` at `path` inside `root`, creating objects on the way (for building manifests). */
export function setPath(root: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let current = root;
  path.forEach((key, index) => {
    if (index === path.length - 1) {
      current[key] = value;
      return;
    }
    if (!isRecord(current[key])) current[key] = {};
    current = current[key] as Record<string, unknown>;
  });
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function statusOf(object: KubeObject | undefined): Record<string, unknown> {
  return object && isRecord(object.status) ? object.status : {};
}

export function specOf(object: KubeObject | undefined): Record<string, unknown> {
  return object && isRecord(object.spec) ? object.spec : {};
}
