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
    '300ms',
    '1.5m',
    '10m5h',
    '25h',
    '0m',
    'm',
    'NaN',
    '1e3',
    '+5',
    '0x10',
  ]) {
    it(`rejects ${JSON.stringify(bad)} as a usage error`, () => {
      assert.throws(() => parseTtl(bad), UsageError);
    });
  }

  it('accepts a duration as --timeout does: 10m, 1h30m, 90s, 24h (issue 38)', () => {
    assert.equal(parseTtl('10m'), 600);
    assert.equal(parseTtl('1h30m'), 5400);
    assert.equal(parseTtl('90s'), 90);
    assert.equal(parseTtl('300s'), 300);
    assert.equal(parseTtl('24h'), 86400);
    assert.equal(parseTtl('1m1s'), 61);
  });

  it('rejects integers outside the range', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 86401 })), (ttl) => {
        assert.throws(() => parseTtl(String(ttl)), UsageError);
      }),
    );
  });
});
