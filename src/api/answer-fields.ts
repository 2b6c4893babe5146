/**
 * The typed fields of one object in a management API answer (a database, a module, a shard):
 * each field ctl reads is held to the type the REST reference gives it. A field the server
 * leaves out, or answers null, is absent (null is dropped here, so the readers further on see one
 * case, not two); one of another type makes the answer not the management API's, and the caller
 * says which object and field (`MalformedAnswerError`), instead of a crash or a wrong verdict
 * further in.
 */

/** `integer` is a JSON number without a fraction (a uid); `object` a JSON object, not a list. */
export type FieldType = 'string' | 'boolean' | 'number' | 'integer' | 'object';

/** Each field's type, or the types it may have. */
export type FieldTypes = Readonly<Record<string, FieldType | readonly FieldType[]>>;

/**
 * Drops the fields of `item` answered null and returns what is wrong with the first field of
 * another type (`role is not a string (it is a number)`), or undefined when every field fits.
 */
export function mistypedField(item: Record<string, unknown>, fields: FieldTypes): string | undefined {
  for (const [field, allowed] of entriesOf(fields)) {
    const value = item[field];
    if (value === undefined) continue;
    if (value === null) {
      delete item[field];
      continue;
    }
    if (!allowed.some((type) => isOfType(value, type)))
      return `${field} is not ${allowed.map(article).join(' or ')} (it is ${kindOf(value)})`;
  }
  return undefined;
}

/**
 * Each FieldTypes' fields with their types as a list, made once: a plan of 10,000 databases
 * checks each database's fields, and their shards' (~19 ms of the plan's 600 when each call
 * listed the fields again).
 */
const listed = new WeakMap<FieldTypes, readonly (readonly [string, readonly FieldType[]])[]>();
function entriesOf(fields: FieldTypes): readonly (readonly [string, readonly FieldType[]])[] {
  let entries = listed.get(fields);
  if (!entries) {
    entries = Object.entries(fields).map(
      ([field, types]) => [field, typeof types === 'string' ? [types as FieldType] : types] as const,
    );
    listed.set(fields, entries);
  }
  return entries;
}

export function isOfType(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    default:
      return typeof value === type;
  }
}

/** What a JSON value is, in a few words: `a list`, `a number`, `an object`. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'boolean') return 'a boolean';
  return `a ${typeof value}`;
}

function article(type: FieldType): string {
  return type === 'integer' || type === 'object' ? `an ${type}` : `a ${type}`;
}

/**
 * The first uid listed twice in an answer's list, with the items that carry it, or undefined when
 * each is listed once. `uidOf` gives an item's uid as text (a uid answered as the integer 2 and
 * one answered as the text "2" are the same uid), or undefined when it has none.
 */
export function firstDuplicateUid<T>(
  items: readonly T[],
  uidOf: (item: T) => string | undefined,
): { uid: string; first: number; second: number } | undefined {
  const seen = new Map<string, number>();
  for (const [index, item] of items.entries()) {
    const uid = uidOf(item);
    if (uid === undefined) continue;
    const first = seen.get(uid);
    if (first !== undefined) return { uid, first, second: index };
    seen.set(uid, index);
  }
  return undefined;
}

/** An item's `uid` field as text when it is a number or a string; undefined otherwise. */
export function uidText(item: unknown): string | undefined {
  const uid = item !== null && typeof item === 'object' ? (item as { uid?: unknown }).uid : undefined;
  return typeof uid === 'number' || typeof uid === 'string' ? String(uid) : undefined;
}
