/**
 * Reading fields of Kubernetes objects and API answers, which arrive as untyped JSON: each
 * reader answers undefined (or empty) for a missing or mistyped value instead of throwing.
 */
export function getPath(root: unknown, path: readonly string[]): unknown {
  let value: unknown = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
export const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
export const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
export const array = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
