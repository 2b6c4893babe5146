import { EventEmitter } from 'node:events';
import type { FieldCause, KubeObject, PrinterColumn } from './types.js';

/** Everything the emulator knows about one resource in one group version. */
export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  /** `status` (and `scale`) as the real server offers them; also non-CRUD ones like `portforward`. */
  subresources: string[];
  /** Built-in kinds accept strategic merge patches; custom resources answer 415. */
  builtin: boolean;
  /** Only the verb `create` and nothing stored (SelfSubjectAccessReview). */
  createOnly?: boolean;
  printerColumns?: PrinterColumn[];
  /** Field errors for a candidate object (CRD openAPIV3Schema). */
  validate?: (object: KubeObject) => FieldCause[];
  /** Admission on create (OpenShift's SCC admission of pods): may mutate, throws to refuse. */
  admit?: (object: KubeObject) => void;
  /** Field errors of an update against the stored object (immutable fields). */
  validateUpdate?: (next: KubeObject, existing: KubeObject) => FieldCause[];
  /** Server-side defaulting, run on every write of the main resource. */
  applyDefaults?: (object: KubeObject) => void;
  /** The fields of a candidate object that defaulting would prune (custom resources). */
  unknownFields?: (object: KubeObject) => string[];
  /** The openAPIV3Schema of a custom resource version, shown in OpenAPI v3. */
  schema?: Record<string, unknown>;
}

export const CRUD_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function groupVersion(rt: Pick<ResourceType, 'group' | 'version'>): string {
  return rt.group ? `${rt.group}/${rt.version}` : rt.version;
}

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** Storage is shared by all versions of one group and resource (conversion strategy None). */
export function storageKey(rt: Pick<ResourceType, 'group' | 'plural'>): string {
  return `${rt.group}/${rt.plural}`;
}

/**
 * Kubernetes version priority: GA > beta > alpha, higher numbers first, then non-kube-like
 * versions alphabetically. Decides the preferred version of a group, as the real server does.
 */
export function compareVersionPriority(a: string, b: string): number {
  const rank = (v: string): [number, number, number, string] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0, v];
    const major = Number(m[1]);
    if (!m[2]) return [0, -major, 0, v];
    return [m[2] === 'beta' ? 1 : 2, -major, -Number(m[3]), v];
  };
  const ra = rank(a);
  const rb = rank(b);
  for (let i = 0; i < 3; i++) {
    const d = (ra[i] as number) - (rb[i] as number);
    if (d !== 0) return d;
  }
  return ra[3].localeCompare(rb[3]);
}

export interface GroupInfo {
  name: string;
  /** Versions, highest priority first. */
  versions: string[];
}

/**
 * The resource types the server serves. Emits 'changed' when types come or go (CRDs), so
 * caches of discovery and OpenAPI documents can be dropped.
 */
export class ResourceRegistry extends EventEmitter {
  readonly #types = new Map<string, ResourceType>();
  /** Group order as registered: discovery lists groups in a stable order like the real one. */
  readonly #groupOrder: string[] = [];

  register(rt: ResourceType): void {
    this.#types.set(this.#key(rt.group, rt.version, rt.plural), rt);
    if (!this.#groupOrder.includes(rt.group)) this.#groupOrder.push(rt.group);
    this.emit('changed');
  }

  unregister(group: string, plural: string): void {
    let removed = false;
    for (const [key, rt] of this.#types) {
      if (rt.group === group && rt.plural === plural) {
        this.#types.delete(key);
        removed = true;
      }
    }
    if (removed) this.emit('changed');
  }

  find(group: string, version: string, plural: string): ResourceType | undefined {
    return this.#types.get(this.#key(group, version, plural));
  }

  /** By apiVersion and kind, as written in manifests. */
  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    const { group, version } = splitApiVersion(apiVersion);
    for (const rt of this.#types.values()) {
      if (rt.group === group && rt.version === version && rt.kind === kind) return rt;
    }
    return undefined;
  }

  /** Any served version of a group's resource; the preferred one first. */
  versionsOf(group: string, plural: string): ResourceType[] {
    return [...this.#types.values()]
      .filter((rt) => rt.group === group && rt.plural === plural)
      .sort((a, b) => compareVersionPriority(a.version, b.version));
  }

  all(): ResourceType[] {
    return [...this.#types.values()];
  }

  inGroupVersion(group: string, version: string): ResourceType[] {
    return this.all().filter((rt) => rt.group === group && rt.version === version);
  }

  hasGroupVersion(group: string, version: string): boolean {
    return this.all().some((rt) => rt.group === group && rt.version === version);
  }

  groups(): GroupInfo[] {
    const result: GroupInfo[] = [];
    for (const name of this.#groupOrder) {
      const versions = [
        ...new Set(
          this.all()
            .filter((rt) => rt.group === name)
            .map((rt) => rt.version),
        ),
      ];
      if (versions.length === 0) continue;
      versions.sort(compareVersionPriority);
      result.push({ name, versions });
    }
    return result;
  }

  #key(group: string, version: string, plural: string): string {
    return `${group}/${version}/${plural}`;
  }
}
