import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applySchemaDefaults,
  compileCrdValidator,
  pruneUnknownFields,
} from '../../../../src/sim/kube/schema.js';

type Json = Record<string, unknown>;

describe('compileCrdValidator with small schemas', () => {
  const schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          name: { type: 'string', maxLength: 5, minLength: 2 },
          replicas: { type: 'integer', format: 'int32', minimum: 1, maximum: 9 },
          when: { type: 'string', format: 'date-time' },
          note: { type: 'string', nullable: true },
          tags: { type: 'array', maxItems: 2, items: { type: 'string' } },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
    },
  };
  const validate = compileCrdValidator(schema);

  it('accepts valid values, null for nullable fields, and tolerates int32/int64 formats', () => {
    assert.deepEqual(
      validate({
        spec: { name: 'ab', replicas: 3, when: '2026-11-21T12:00:00Z', note: null, labels: { a: 'b' } },
      }),
      [],
    );
  });

  it('maps bounds, formats and lengths to Kubernetes causes', () => {
    const causes = validate({
      spec: {
        name: 'toolong',
        replicas: 10,
        when: 'yesterday',
        tags: ['a', 'b', 'c'],
        labels: { 'x.y/z': 1 },
      },
    });
    assert.deepEqual(causes, [
      { field: 'spec.name', reason: 'FieldValueTooLong', message: 'Too long: may not be more than 5 bytes' },
      {
        field: 'spec.replicas',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: 10: spec.replicas in body should be less than or equal to 9',
      },
      {
        field: 'spec.when',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
      },
      { field: 'spec.tags', reason: 'FieldValueTooMany', message: 'Too many: 3: must have at most 2 items' },
      {
        field: 'spec.labels.x.y/z',
        reason: 'FieldValueTypeInvalid',
        message: 'Invalid value: "integer": spec.labels.x.y/z in body must be of type string: "integer"',
      },
    ]);
  });
});

describe('pruneUnknownFields', () => {
  // test/upstream/schema.test.ts prunes with the upstream REC schema.
  it('prunes inside list items and map values, and keeps embedded resources whole', () => {
    const schema = {
      type: 'object',
      properties: {
        list: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
        map: {
          type: 'object',
          additionalProperties: { type: 'object', properties: { b: { type: 'string' } } },
        },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { c: { type: 'string' } } } },
        },
        open: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { known: { type: 'object', properties: { d: { type: 'string' } } } },
        },
      },
    };
    const value = {
      list: [{ a: '1', z: 1 }],
      map: { k: { b: '2', z: 2 } },
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { c: '3', z: 3 }, z: 3 },
      open: { unknown: 4, known: { d: '4', z: 4 } },
    };
    pruneUnknownFields(schema, value);
    assert.deepEqual(value, {
      list: [{ a: '1' }],
      map: { k: { b: '2' } },
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { c: '3' } },
      open: { unknown: 4, known: { d: '4' } },
    });
  });
});

describe('applySchemaDefaults', () => {
  // test/upstream/schema.test.ts fills the defaults of the upstream REDB schema.
  it('fills nested defaults of defaulted objects, replaces non-nullable nulls, keeps nullable ones', () => {
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          default: {},
          properties: {
            policy: { type: 'string', default: 'latest' },
            strategy: {
              type: 'object',
              default: { type: 'Rolling' },
              properties: { type: { type: 'string' }, max: { type: 'integer', default: 1 } },
            },
            note: { type: 'string', nullable: true, default: 'n' },
            dropped: { type: 'string' },
          },
        },
      },
    };
    const value: Json = {};
    applySchemaDefaults(schema, value);
    assert.deepEqual(value, { spec: { policy: 'latest', strategy: { type: 'Rolling', max: 1 }, note: 'n' } });

    const withNulls: Json = { spec: { policy: null, note: null, dropped: null } };
    applySchemaDefaults(schema, withNulls);
    assert.deepEqual(withNulls, {
      spec: { policy: 'latest', note: null, strategy: { type: 'Rolling', max: 1 } },
    });
    assert.notEqual((value.spec as Json).strategy, (withNulls.spec as Json).strategy, 'defaults are copied');
  });
});
