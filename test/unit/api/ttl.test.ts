import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseTtl } from '../../../src/api/ttl.js';
import { UsageError } from '../../../src/errors.js';

describe('parseTtl', () => {
  it('defaults to 300', () => {
    assert.equal(parseTtl(undefined), 300);
  });

  it('accepts every integer from 1 to 86400', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 86400 }), (ttl) => parseTtl(String(ttl)) === ttl));
  });

  for (const bad of [
    '0',
    '-1',
    '86401',
    '1.5',
    'abc',
    '',
    ' 300',
    '300 ',
    '300s',
    'NaN',
    '1e3',
    '+5',
    '0x10',
  ]) {
    it(`rejects ${JSON.stringify(bad)} as a usage error`, () => {
      assert.throws(() => parseTtl(bad), UsageError);
    });
  }

  it('rejects integers outside the range', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 86401 })), (ttl) => {
        assert.throws(() => parseTtl(String(ttl)), UsageError);
      }),
    );
  });
});
