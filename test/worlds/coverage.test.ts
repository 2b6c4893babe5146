import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type * as z from 'zod';
import { scenarioFileSchema } from '../helpers/simulator.js';
import { SCENARIO_KEY_COVERAGE } from './coverage.js';

/** The schema's key paths (`a.b`, `a[]`), through zod's wrappers (optional, default, pipe, ...). */
function keyPaths(schema: z.core.$ZodType, path: string, out: Set<string>): void {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  const inner = (key: string) => keyPaths(def[key] as z.core.$ZodType, path, out);
  switch (def.type) {
    case 'object':
      for (const [key, field] of Object.entries(def.shape as Record<string, z.core.$ZodType>)) {
        const at = path ? `${path}.${key}` : key;
        out.add(at);
        keyPaths(field, at, out);
      }
      return;
    case 'optional':
    case 'default':
    case 'prefault':
    case 'nullable':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return inner('innerType');
    case 'pipe':
      return inner('in');
    case 'array':
      return keyPaths(def.element as z.core.$ZodType, `${path}[]`, out);
    case 'union':
      for (const option of def.options as z.core.$ZodType[]) keyPaths(option, path, out);
      return;
    default:
      return;
  }
}

/** The leaves: keys no other key is inside of. */
function schemaLeaves(): string[] {
  const all = new Set<string>();
  keyPaths(scenarioFileSchema, '', all);
  return [...all].filter(
    (key) => ![...all].some((other) => other.startsWith(`${key}.`) || other.startsWith(`${key}[]`)),
  );
}

describe('the scenario keys the world generator covers (coverage.ts)', () => {
  const leaves = schemaLeaves();

  it('lists every key of schema.ts, and no key it does not have', () => {
    const listed = Object.keys(SCENARIO_KEY_COVERAGE);
    const missing = leaves.filter((key) => !listed.includes(key));
    assert.deepEqual(
      missing,
      [],
      'keys schema.ts has that coverage.ts neither draws nor leaves out with a reason',
    );
    assert.deepEqual(
      listed.filter((key) => !leaves.includes(key)),
      [],
      'keys coverage.ts lists that schema.ts does not have',
    );
    assert.ok(leaves.length > 100, `only ${leaves.length} keys: the schema walk lost its way`);
  });

  it('says why of each key it leaves out', () => {
    for (const [key, coverage] of Object.entries(SCENARIO_KEY_COVERAGE))
      if ('leftOut' in coverage) assert.ok(coverage.leftOut.length > 20, `${key}: say why it is left out`);
  });
});
// Whether the keys it says it draws are drawn: arbitrary.test.ts, over its sample of worlds.
