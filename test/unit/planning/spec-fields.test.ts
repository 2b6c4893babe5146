import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { specFieldsOf } from '../../../src/planning/spec-fields.js';

/** The walk as the snapshot made it before the paths were shared: a new list of new strings. */
function reference(object: { spec?: unknown }): string[] {
  const paths: string[] = [];
  const walk = (value: unknown, at: string, depth: number) => {
    if (depth > 6 || value === null || typeof value !== 'object' || Array.isArray(value)) return;
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      if (child === undefined || child === null) continue;
      const path = `${at}.${key}`;
      paths.push(path);
      walk(child, path, depth + 1);
    }
  };
  walk(object.spec, 'spec', 0);
  return paths;
}

/** A small deterministic generator: specs of mixed shapes, nesting, lists, nulls and depth. */
function specs(count: number): { spec?: unknown }[] {
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const keys = ['ldap', 'protocol', 'name', 'modulesList', 'a', 'b', 'memorySize', 'tls', 'x.y', ''];
  const value = (depth: number): unknown => {
    const kind = next(depth > 8 ? 3 : 6);
    if (kind === 0) return 'text';
    if (kind === 1) return next(2) === 0 ? null : 3;
    if (kind === 2) return [{ inside: 'a list' }];
    const object: Record<string, unknown> = {};
    for (let i = next(4); i > 0; i--) object[keys[next(keys.length)]!] = value(depth + 1);
    return object;
  };
  const out: { spec?: unknown }[] = [{}, { spec: null }, { spec: [] }, { spec: 'x' }, { spec: {} }];
  for (let i = 0; i < count; i++) out.push({ spec: value(0) });
  return out;
}

describe('spec fields', () => {
  it('are the paths the walk finds, in its order, for every shape and depth', () => {
    for (const object of specs(2000)) assert.deepEqual(specFieldsOf(object), reference(object));
  });

  it('are one frozen list for resources of one shape, and a list of its own for another shape', () => {
    const one = specFieldsOf({ spec: { redisEnterpriseCluster: { name: 'rec' }, memorySize: '1GB' } });
    const same = specFieldsOf({ spec: { redisEnterpriseCluster: { name: 'other' }, memorySize: '2GB' } });
    const other = specFieldsOf({ spec: { memorySize: '1GB', redisEnterpriseCluster: { name: 'rec' } } });
    assert.equal(one, same);
    assert.ok(Object.isFrozen(one));
    assert.deepEqual(one, [
      'spec.redisEnterpriseCluster',
      'spec.redisEnterpriseCluster.name',
      'spec.memorySize',
    ]);
    assert.deepEqual(other, [
      'spec.memorySize',
      'spec.redisEnterpriseCluster',
      'spec.redisEnterpriseCluster.name',
    ]);
    // A prefix of a known shape is a shape of its own.
    assert.deepEqual(specFieldsOf({ spec: { redisEnterpriseCluster: { name: 'rec' } } }), [
      'spec.redisEnterpriseCluster',
      'spec.redisEnterpriseCluster.name',
    ]);
  });
});
