/**
 * The field paths set under a resource's `spec` (`spec.ldap`, `spec.ldap.protocol`): what release
 * rules of kind field-used read. Names only, never values (a value may be a secret).
 *
 * The snapshot asks for each of up to 10,000 database resources, which mostly share a few shapes.
 * Each path is made once (a map from the parent's path and the key to the path), and each
 * sequence of paths once (a tree of the paths in the order they are met, whose node keeps the
 * list that ends there): databases of the same shape share one frozen list, and reading one
 * allocates no strings. Before, every database held its own list of its own strings: 60,000
 * strings at 10,000 databases, each kept until the plan was written (docs/performance.md).
 */

/** Deeper nesting is not walked (no rule names a field that deep). */
const MAX_DEPTH = 6;

/** `<parent path>` -> `<key>` -> `<parent path>.<key>`. */
const paths = new Map<string, Map<string, string>>();

interface Sequence {
  /** The next path -> the sequence that goes on with it. */
  next: Map<string, Sequence>;
  /** The list of the paths that lead here, once a resource ends here. */
  list?: readonly string[];
}

const sequences: Sequence = { next: new Map() };

function pathOf(at: string, key: string): string {
  let children = paths.get(at);
  if (!children) {
    children = new Map();
    paths.set(at, children);
  }
  let path = children.get(key);
  if (path === undefined) {
    path = `${at}.${key}`;
    children.set(key, path);
  }
  return path;
}

/** The paths of the resource being read, reused: only a new shape's are copied. */
const scratch: string[] = [];

/**
 * The field paths set under `spec`, down through nested objects (not into lists), in the order
 * of the object's keys: `spec.ldap`, `spec.ldap.protocol`. The list is shared and frozen.
 */
export function specFieldsOf(object: { spec?: unknown }): readonly string[] {
  let at = sequences;
  scratch.length = 0;
  const walk = (value: unknown, parent: string, depth: number): void => {
    if (depth > MAX_DEPTH || value === null || typeof value !== 'object' || Array.isArray(value)) return;
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const child = record[key];
      if (child === undefined || child === null) continue;
      const path = pathOf(parent, key);
      let next = at.next.get(path);
      if (!next) {
        next = { next: new Map() };
        at.next.set(path, next);
      }
      at = next;
      scratch.push(path);
      walk(child, path, depth + 1);
    }
  };
  walk(object.spec, 'spec', 0);
  // The first resource of this shape makes the list.
  at.list ??= Object.freeze([...scratch]);
  return at.list;
}
