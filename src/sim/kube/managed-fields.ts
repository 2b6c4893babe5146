import { isRecord, type KubeObject, type ManagedFieldsEntry } from './types.js';

/**
 * A simplified managedFields model (feasibility §5.10): field sets in the FieldsV1 shape
 * (`{"f:spec": {"f:replicas": {}}}`), lists treated as atomic leaves. It is enough for
 * kubectl to see who manages what and for server-side apply to drop fields a manager stopped
 * applying; ownership conflicts are not detected.
 */

export type FieldSet = Record<string, unknown>;

/** Metadata keys the server owns; they never appear in field sets. */
const SYSTEM_METADATA = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
  'generateName',
]);

export function fieldSetOf(object: unknown): FieldSet {
  if (!isRecord(object)) return {};
  const set: FieldSet = {};
  for (const [key, value] of Object.entries(object)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    if (key === 'metadata' && isRecord(value)) {
      const meta: FieldSet = {};
      for (const [metaKey, metaValue] of Object.entries(value)) {
        if (SYSTEM_METADATA.has(metaKey)) continue;
        meta[`f:${metaKey}`] = isRecord(metaValue) ? leafSet(metaValue) : {};
      }
      if (Object.keys(meta).length > 0) set['f:metadata'] = meta;
      continue;
    }
    set[`f:${key}`] = isRecord(value) ? leafSet(value) : {};
  }
  return set;
}

function leafSet(object: Record<string, unknown>): FieldSet {
  const set: FieldSet = {};
  for (const [key, value] of Object.entries(object)) {
    set[`f:${key}`] = isRecord(value) ? leafSet(value) : {};
  }
  return set;
}

/** Every leaf path of a field set, as plain keys (`['spec', 'replicas']`). */
export function leafPaths(set: unknown, prefix: string[] = []): string[][] {
  if (!isRecord(set)) return [];
  const paths: string[][] = [];
  for (const [key, child] of Object.entries(set)) {
    if (!key.startsWith('f:')) continue;
    const path = [...prefix, key.slice(2)];
    if (isRecord(child) && Object.keys(child).some((k) => k.startsWith('f:')))
      paths.push(...leafPaths(child, path));
    else paths.push(path);
  }
  return paths;
}

function setContains(set: unknown, path: string[]): boolean {
  let current: unknown = set;
  for (const key of path) {
    if (!isRecord(current)) return false;
    // A leaf on the way (an atomic list or map) owns everything below it.
    if (Object.keys(current).length === 0) return true;
    current = current[`f:${key}`];
    if (current === undefined) return false;
  }
  return true;
}

function deletePath(object: Record<string, unknown>, path: string[]): void {
  let current: unknown = object;
  for (const key of path.slice(0, -1)) {
    if (!isRecord(current)) return;
    current = current[key];
  }
  const last = path[path.length - 1];
  if (isRecord(current) && last !== undefined) delete current[last];
}

/**
 * Removes from `merged` the fields `manager` applied before but no longer applies, unless
 * another manager also manages them.
 */
export function dropFieldsNoLongerApplied(
  merged: KubeObject,
  entries: ManagedFieldsEntry[],
  manager: string,
  newSet: FieldSet,
): void {
  const previous = entries.find((e) => e.manager === manager && e.operation === 'Apply' && !e.subresource);
  if (!previous?.fieldsV1) return;
  const others = entries.filter((e) => e !== previous).map((e) => e.fieldsV1 ?? {});
  for (const path of leafPaths(previous.fieldsV1)) {
    if (setContains(newSet, path)) continue;
    if (others.some((set) => setContains(set, path))) continue;
    deletePath(merged as Record<string, unknown>, path);
  }
}

/** Inserts or replaces the entry of one manager and operation. */
export function upsertManagedFields(
  entries: ManagedFieldsEntry[] | undefined,
  entry: Required<Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'fieldsV1'>> & {
    subresource?: string;
  },
): ManagedFieldsEntry[] {
  const rest = (entries ?? []).filter(
    (e) =>
      !(
        e.manager === entry.manager &&
        e.operation === entry.operation &&
        e.subresource === entry.subresource
      ),
  );
  const full: ManagedFieldsEntry = {
    manager: entry.manager,
    operation: entry.operation,
    apiVersion: entry.apiVersion,
    time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    fieldsType: 'FieldsV1',
    fieldsV1: entry.fieldsV1,
  };
  if (entry.subresource) full.subresource = entry.subresource;
  return [...rest, full];
}
