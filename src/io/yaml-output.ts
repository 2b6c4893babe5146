// `-o yaml`, loaded only when asked for. A static import: the bundled build turns a dynamic
// `import('yaml')` of this CommonJS package into a namespace with only `default` (scripts/bundle.mjs).
import { stringify } from 'yaml';

/** One value as a YAML document's body; no folding, so a long string stays one line. */
export function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0 });
}
