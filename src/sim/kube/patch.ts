// The three PATCH flavours of the Kubernetes API server: JSON merge patch (RFC 7386), JSON patch
// (RFC 6902) and strategic merge patch (built-in kinds only). Pure functions: inputs are never mutated.
import jsonpatch from 'fast-json-patch';
import { copyJson } from './json-copy.js';

type JsonObject = Record<string, unknown>;

/**
 * A patch the API server would refuse. `code` is the HTTP status it answers with; `causes` are the
 * detail lines it puts in `Status.details.causes[].message`.
 */
export class PatchError extends Error {
  readonly code: number;
  readonly causes: string[];

  constructor(message: string, code = 422, causes: string[] = []) {
    super(message);
    this.name = 'PatchError';
    this.code = code;
    this.causes = causes;
  }
}

/** The Status message kube-apiserver gives with every 422 built by NewGenericServerResponse. */
const REJECTED = 'the server rejected our request due to an error in our request';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Sets an own property, even `__proto__` (a legal JSON member name that plain assignment would
 * turn into a prototype change).
 */
function setMember(object: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

function clone<T>(value: T): T {
  return copyJson(value);
}

// ---------------------------------------------------------------------------------------------
// RFC 7386 JSON merge patch
// ---------------------------------------------------------------------------------------------

/** RFC 7386: objects merge recursively, `null` deletes a member, anything else (arrays too) replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const result: JsonObject = isObject(target) ? clone(target) : {};
  mergeInto(result, patch);
  return result;
}

function mergeInto(result: JsonObject, patch: JsonObject): void {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
    } else if (isObject(value)) {
      const current = Object.hasOwn(result, key) ? result[key] : undefined;
      const child: JsonObject = isObject(current) ? current : {};
      mergeInto(child, value);
      setMember(result, key, child);
    } else {
      setMember(result, key, clone(value));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// RFC 6902 JSON patch
// ---------------------------------------------------------------------------------------------

/** How Go's encoding/json names a JSON value's type in "cannot unmarshal X into ..." errors. */
function goJsonTypeName(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  return 'object';
}

/**
 * RFC 6902. A body that is not an array gets the 400 kube-apiserver gives (client-node's default
 * patch content type makes this a real-world mistake); a failing operation gets a 422.
 */
export function applyJsonPatch(target: unknown, ops: unknown): unknown {
  if (ops === null) return clone(target);
  if (!Array.isArray(ops)) {
    throw new PatchError(
      `json: cannot unmarshal ${goJsonTypeName(ops)} into Go value of type []handlers.jsonPatchOp`,
      400,
    );
  }
  for (const [index, op] of ops.entries()) {
    if (!isObject(op) || typeof op.op !== 'string') {
      throw new PatchError(REJECTED, 422, [`invalid operation at index ${index}: missing "op"`]);
    }
    if (!['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(op.op)) {
      throw new PatchError(REJECTED, 422, [`Unexpected kind: ${op.op}`]);
    }
  }
  try {
    const result = jsonpatch.applyPatch(clone(target), ops as jsonpatch.Operation[], true, true, true);
    return result.newDocument;
  } catch (error) {
    throw new PatchError(REJECTED, 422, [describeJsonPatchFailure(error)]);
  }
}

/** Rephrases fast-json-patch's failures the way evanphx/json-patch (used by the API server) says them. */
function describeJsonPatchFailure(error: unknown): string {
  if (!(error instanceof jsonpatch.JsonPatchError)) return String(error);
  const path = typeof error.operation?.path === 'string' ? error.operation.path : '';
  switch (error.name) {
    case 'TEST_OPERATION_FAILED':
      return `testing value ${path} failed: test failed`;
    case 'OPERATION_PATH_UNRESOLVABLE':
    case 'OPERATION_FROM_UNRESOLVABLE':
      return `doc is missing path: "${error.name === 'OPERATION_FROM_UNRESOLVABLE' ? (error.operation as { from?: string }).from : path}": missing value`;
    case 'OPERATION_VALUE_REQUIRED':
      return `missing value for operation on ${path}`;
    default:
      return error.message.split('\n')[0] ?? error.name;
  }
}

// ---------------------------------------------------------------------------------------------
// Strategic merge patch
// ---------------------------------------------------------------------------------------------

/**
 * Lists of objects that merge element by element, keyed by the field name, with the field that
 * identifies an element (the `patchMergeKey` struct tags of k8s.io/api). Field names are unique
 * enough across the built-in kinds this emulator stores; per-kind exceptions are below. Any
 * other list is replaced wholesale, as the real server does for lists without a patch strategy
 * (tolerations, rules, subjects, args, command ...).
 */
const MERGE_KEYS: Readonly<Record<string, string>> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  volumes: 'name',
  env: 'name',
  ports: 'containerPort',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  imagePullSecrets: 'name',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
  resourceClaims: 'name',
  schedulingGates: 'name',
  ownerReferences: 'uid',
  conditions: 'type',
  webhooks: 'name',
  secrets: 'name', // ServiceAccount.secrets
  addresses: 'type', // NodeStatus.addresses
};

const MERGE_KEYS_BY_KIND: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Service: { ports: 'port' },
};

/** Primitive lists with `patchStrategy:"merge"`: union instead of replace. */
const MERGED_PRIMITIVE_LISTS: ReadonlySet<string> = new Set(['finalizers']);

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ELEMENT_ORDER = '$setElementOrder/';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';

function isDirectiveKey(key: string): boolean {
  return (
    key === DIRECTIVE ||
    key === RETAIN_KEYS ||
    key.startsWith(SET_ELEMENT_ORDER) ||
    key.startsWith(DELETE_FROM_PRIMITIVE_LIST)
  );
}

/**
 * Kubernetes strategic merge patch for a built-in `kind`: like a merge patch, except that known
 * lists merge by key, and the directives `$patch`, `$retainKeys`, `$setElementOrder/<field>` and
 * `$deleteFromPrimitiveList/<field>` are honoured. None of them survives into the result.
 */
export function applyStrategicMergePatch(target: unknown, patch: unknown, kind: string): unknown {
  if (patch === null) return clone(target);
  if (!isObject(patch)) {
    throw new PatchError(
      `json: cannot unmarshal ${Array.isArray(patch) ? 'array' : goJsonTypeName(patch)} into Go value of type map[string]interface {}`,
      400,
    );
  }
  const mergeKeys = { ...MERGE_KEYS, ...MERGE_KEYS_BY_KIND[kind] };
  const original = isObject(target) ? clone(target) : {};
  return mergeMap(original, patch, mergeKeys);
}

function mergeMap(original: JsonObject, patch: JsonObject, mergeKeys: Record<string, string>): JsonObject {
  const directive = patch[DIRECTIVE];
  if (directive === 'replace') return withoutDirectives(patch) as JsonObject;
  if (directive === 'delete') return {};
  if (directive !== undefined && directive !== 'merge') {
    throw new PatchError(REJECTED, 400, [
      `Unknown patch type: ${String(directive)} in map: ${JSON.stringify(patch)}`,
    ]);
  }

  const retainKeys = patch[RETAIN_KEYS];
  if (retainKeys !== undefined) {
    if (!Array.isArray(retainKeys)) throw new PatchError(REJECTED, 400, ['$retainKeys must be a list']);
    for (const key of Object.keys(original)) if (!retainKeys.includes(key)) delete original[key];
  }

  for (const [key, value] of Object.entries(patch)) {
    if (!key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) continue;
    const field = key.slice(DELETE_FROM_PRIMITIVE_LIST.length);
    const current = original[field];
    if (Array.isArray(current) && Array.isArray(value)) {
      original[field] = current.filter((item) => !value.some((gone) => deepEqual(gone, item)));
    }
  }

  // The live lists, before merging, decide where elements that $setElementOrder omits end up.
  const liveLists = new Map<string, unknown[]>();
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const live = original[key.slice(SET_ELEMENT_ORDER.length)];
    liveLists.set(key, Array.isArray(live) ? live : []);
  }

  for (const [key, value] of Object.entries(patch)) {
    if (isDirectiveKey(key)) continue;
    if (value === null) {
      delete original[key];
      continue;
    }
    const current = Object.hasOwn(original, key) ? original[key] : undefined;
    if (isObject(value)) {
      setMember(original, key, mergeMap(isObject(current) ? current : {}, value, mergeKeys));
    } else if (Array.isArray(value)) {
      setMember(original, key, mergeList(key, Array.isArray(current) ? current : [], value, mergeKeys));
    } else {
      setMember(original, key, clone(value));
    }
  }

  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const field = key.slice(SET_ELEMENT_ORDER.length);
    const merged = original[field];
    if (!Array.isArray(order)) throw new PatchError(REJECTED, 400, [`${key} must be a list`]);
    if (Array.isArray(merged)) {
      original[field] = applyElementOrder(merged, order, liveLists.get(key) ?? [], mergeKeys[field]);
    }
  }
  return original;
}

function mergeList(
  field: string,
  original: unknown[],
  patch: unknown[],
  mergeKeys: Record<string, string>,
): unknown[] {
  // Like mergeSliceWithSpecialElements: one `$patch: replace` element makes the list the patch's
  // ordinary elements.
  if (patch.some((item) => isObject(item) && item[DIRECTIVE] === 'replace')) {
    return patch.filter((item) => !(isObject(item) && Object.hasOwn(item, DIRECTIVE))).map(withoutDirectives);
  }
  const mergeKey = mergeKeys[field];
  if (mergeKey !== undefined && patch.every(isObject)) {
    return mergeObjectList(original, patch, mergeKey, mergeKeys);
  }
  if (MERGED_PRIMITIVE_LISTS.has(field)) {
    const result = [...original];
    for (const item of patch)
      if (!result.some((kept) => deepEqual(kept, item))) result.push(withoutDirectives(item));
    return result;
  }
  return patch.map(withoutDirectives);
}

function mergeObjectList(
  original: unknown[],
  patch: JsonObject[],
  mergeKey: string,
  mergeKeys: Record<string, string>,
): unknown[] {
  const result = [...original];
  const indexOfKey = (key: unknown) =>
    result.findIndex((item) => isObject(item) && deepEqual(item[mergeKey], key));
  for (const element of patch) {
    if (!Object.hasOwn(element, mergeKey)) {
      throw new PatchError(REJECTED, 422, [
        `map: ${JSON.stringify(element)} does not contain declared merge key: ${mergeKey}`,
      ]);
    }
    const at = indexOfKey(element[mergeKey]);
    if (element[DIRECTIVE] === 'delete') {
      if (at >= 0) result.splice(at, 1);
      continue;
    }
    const current = at >= 0 ? result[at] : undefined;
    const merged = mergeMap(isObject(current) ? current : {}, element, mergeKeys);
    if (at >= 0) result[at] = merged;
    else result.push(merged);
  }
  return result;
}

/**
 * `$setElementOrder/<field>` (sent by `kubectl apply`): elements named in `order` come in that
 * order; elements it does not name keep their place relative to the live list, as
 * k8s.io/apimachinery's normalizeElementOrder + mergeSortedSlice arrange them.
 */
function applyElementOrder(
  merged: unknown[],
  order: unknown[],
  serverOrder: unknown[],
  mergeKey: string | undefined,
): unknown[] {
  const identity = (item: unknown): unknown =>
    mergeKey !== undefined && isObject(item) ? item[mergeKey] : item;
  const orderKeys = order.map(identity);
  const indexIn = (list: unknown[], item: unknown) => list.findIndex((key) => deepEqual(key, identity(item)));
  const serverKeys = serverOrder.map(identity);

  const named = merged
    .filter((item) => indexIn(orderKeys, item) >= 0)
    .sort((a, b) => indexIn(orderKeys, a) - indexIn(orderKeys, b));
  const unnamed = merged.filter((item) => indexIn(orderKeys, item) < 0);

  const result: unknown[] = [];
  let left = 0;
  let right = 0;
  while (left < unnamed.length || right < named.length) {
    if (right >= named.length) {
      result.push(unnamed[left++]);
    } else if (left >= unnamed.length) {
      result.push(named[right++]);
    } else {
      const leftIndex = indexIn(serverKeys, unnamed[left]);
      const rightIndex = indexIn(serverKeys, named[right]);
      if (leftIndex >= 0 && rightIndex >= 0 && leftIndex < rightIndex) result.push(unnamed[left++]);
      else result.push(named[right++]);
    }
  }
  return result;
}

/** A copy of a patch value with every strategic-merge directive removed, at any depth. */
function withoutDirectives(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value
      .filter(
        (item) =>
          !(isObject(item) && Object.keys(item).every(isDirectiveKey) && Object.hasOwn(item, DIRECTIVE)),
      )
      .map(withoutDirectives);
  }
  if (!isObject(value)) return clone(value);
  const result: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (!isDirectiveKey(key)) setMember(result, key, withoutDirectives(item));
  }
  return result;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]))
    );
  }
  return false;
}
