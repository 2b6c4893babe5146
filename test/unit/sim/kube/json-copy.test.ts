import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { copyJson } from '../../../../src/sim/kube/json-copy.js';

/** What copyJson stands in for. */
function jsonRoundTrip(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

/** True when no object or array of `copy` is one of `original`'s. */
function sharesNothing(original: unknown, copy: unknown): boolean {
  const seen = new Set<object>();
  const collect = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    seen.add(value);
    for (const member of Object.values(value)) collect(member);
  };
  collect(original);
  const shared = (value: unknown): boolean =>
    typeof value === 'object' &&
    value !== null &&
    (seen.has(value) || Object.values(value).some((member) => shared(member)));
  return !shared(copy);
}

describe('copyJson: a JSON round trip without the text', () => {
  it('makes what JSON.parse(JSON.stringify(v)) makes of any JSON value, sharing nothing', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = copyJson(value);
        assert.deepStrictEqual(copy, jsonRoundTrip(value));
        assert.ok(sharesNothing(value, copy), 'the copy shares an object with the original');
      }),
      { numRuns: 300, seed: 39 },
    );
  });

  it('follows JSON for the values an object built in code may hold', () => {
    const date = new Date('2026-12-01T00:00:00.000Z');
    const value = {
      gone: undefined,
      fn: () => 1,
      symbol: Symbol('s'),
      list: [undefined, () => 1, Symbol('s'), 1],
      numbers: [Number.NaN, Number.POSITIVE_INFINITY, -0, 1.5],
      date,
      nested: { when: date, kept: 'yes' },
    };
    assert.deepStrictEqual(copyJson(value), jsonRoundTrip(value));
    assert.deepStrictEqual(Object.keys(copyJson(value)), ['list', 'numbers', 'date', 'nested']);
  });

  it('keeps a __proto__ member as an own member, as JSON.parse does, never as a prototype', () => {
    const value = jsonRoundTrip(JSON.parse('{"a":{"__proto__":{"polluted":true},"b":1}}')) as {
      a: Record<string, unknown>;
    };
    const copy = copyJson(value);
    assert.deepStrictEqual(copy, value);
    assert.equal(Object.getPrototypeOf(copy.a), Object.prototype);
    assert.ok(Object.hasOwn(copy.a, '__proto__'));
    assert.equal((copy.a as { polluted?: unknown }).polluted, undefined);
  });

  it('refuses a BigInt, as JSON.stringify does', () => {
    assert.throws(() => JSON.stringify({ n: 1n }), TypeError);
    assert.throws(() => copyJson({ n: 1n }), TypeError);
  });
});
