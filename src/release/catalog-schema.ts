/**
 * docs/catalog.schema.json as a validator, loaded lazily (src/release/catalog-data.ts says why).
 * Ajv is imported statically here: in the split bundle a dynamic import of a CommonJS package
 * yields only its default (scripts/bundle.mjs), and this whole module is the lazy part.
 */

import { Ajv, type ValidateFunction } from 'ajv';
import schema from '../../docs/catalog.schema.json' with { type: 'json' };

let validate: ValidateFunction | undefined;

export function validateAgainstSchema(document: unknown): string[] {
  // strict: false: the schema's "description" next to "$ref" is documentation, not a keyword error.
  validate ??= new Ajv({ allErrors: true, strict: false }).compile(schema);
  if (validate(document)) return [];
  return (validate.errors ?? []).map(
    (error) => `${error.instancePath || '/'}: ${error.message ?? 'is not valid'}`,
  );
}
