/**
 * A list read without managedFields (src/kube/managed-fields.ts) is JSON.parse of the whole
 * text with every member `managedFields` that holds a list (at most two deep) removed, and
 * nothing else changed: for the objects the API server writes, and for generated ones whose
 * strings and keys hold the member's own text, quotes, backslashes, brackets and braces.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseWithoutManagedFields } from '../../../src/kube/managed-fields.js';

/** How deep lists nest in a value (through objects too). */
function listDepth(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(listDepth));
  if (value !== null && typeof value === 'object') return Math.max(0, ...Object.values(value).map(listDepth));
  return 0;
}

/** What the cut must give: the value with each managedFields member holding a list of depth <= 2 removed. */
function expected(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(expected);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === 'managedFields' && Array.isArray(child) && listDepth(child) <= 2) continue;
    out[key] = expected(child);
  }
  return out;
}

/** A managedFields entry as the API server writes one (server-side apply's FieldsV1). */
const entry = (manager: string) => ({
  manager,
  operation: 'Update',
  apiVersion: 'app.redislabs.com/v1alpha1',
  time: '2026-11-29T03:24:44Z',
  fieldsType: 'FieldsV1',
  fieldsV1: {
    'f:metadata': { 'f:labels': { 'f:app': {} } },
    'f:spec': { 'k:{"name":"x"}': {}, 'f:redisVersion': {} },
  },
});

/** A small deterministic random source, so a failure is the same on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const TRICKY = [
  '',
  'managedFields',
  '"managedFields":[]',
  ',"managedFields":[1]}',
  '{"managedFields":[[1]]}',
  'a\\',
  '\\"',
  'x,',
  'x{',
  '[[[',
  ']]',
  '}{',
  'é\u2028\u0000',
];

function generate(next: () => number, depth: number): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const roll = next();
  if (depth <= 0 || roll < 0.3) return pick<unknown>([...TRICKY, 0, -1.5, true, false, null]);
  if (roll < 0.5) return Array.from({ length: Math.floor(next() * 4) }, () => generate(next, depth - 1));
  const object: Record<string, unknown> = {};
  for (let i = Math.floor(next() * 5); i > 0; i--) {
    const key = pick(['managedFields', 'managedFields', 'metadata', 'spec', ...TRICKY]);
    object[key] =
      key === 'managedFields' && next() < 0.7
        ? [entry('operator'), ...(next() < 0.5 ? [[generate(next, 1)]] : []), entry(pick(TRICKY))]
        : generate(next, depth - 1);
  }
  return object;
}

describe('parseWithoutManagedFields', () => {
  it('drops metadata.managedFields of every item of a list as the API server writes it', () => {
    const item = (name: string) => ({
      apiVersion: 'app.redislabs.com/v1alpha1',
      kind: 'RedisEnterpriseDatabase',
      metadata: {
        name,
        namespace: 'redis',
        uid: 'u',
        managedFields: [entry('a'), entry('b')],
        resourceVersion: '3',
      },
      spec: { redisVersion: '7.2', modulesList: [{ name: 'search', version: '2.8.4' }] },
      status: { status: 'active', internalEndpoints: [{ host: 'h', port: 1 }] },
    });
    const list = { kind: 'RedisEnterpriseDatabaseList', metadata: {}, items: [item('a'), item('b')] };
    const parsed = parseWithoutManagedFields(JSON.stringify(list)) as typeof list;
    assert.deepEqual(parsed, expected(list));
    assert.equal('managedFields' in parsed.items[0]!.metadata, false);
    assert.equal(parsed.items[1]!.metadata.resourceVersion, '3');
  });

  it('removes the member first, last, alone or in the middle, and keeps everything else', () => {
    for (const object of [
      { managedFields: [] },
      { managedFields: [entry('a')], b: 1 },
      { a: 1, managedFields: [entry('a')] },
      { a: 1, managedFields: [[1, '[', ']']], b: [2] },
      { a: { managedFields: 'a string stays' }, b: { managedFields: { an: 'object stays' } } },
      { deep: { managedFields: [[[1]]] } },
      { 'x"managedFields': [1], managedFields: [2], 'managedFields"': [3] },
    ]) {
      assert.deepEqual(
        parseWithoutManagedFields(JSON.stringify(object)),
        expected(object),
        JSON.stringify(object),
      );
    }
  });

  it('gives what JSON.parse gives, less the members, for 2,000 generated documents', () => {
    const next = random(39);
    for (let i = 0; i < 2000; i++) {
      const value = generate(next, 5);
      const text = JSON.stringify(value);
      assert.deepEqual(parseWithoutManagedFields(text), expected(JSON.parse(text)), text);
    }
  });

  it('parses text it does not cut as JSON.parse does, and fails where JSON.parse fails', () => {
    const spaced = '{ "managedFields" : [1], "a": 2 }';
    assert.deepEqual(parseWithoutManagedFields(spaced), JSON.parse(spaced));
    assert.throws(() => parseWithoutManagedFields('{"a":'), SyntaxError);
    assert.throws(() => parseWithoutManagedFields('{"managedFields":[1],"a":}'), SyntaxError);
  });
});
