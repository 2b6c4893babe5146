import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  shouldRetryError,
  shouldRetryStatus,
} from '../../../src/api/retry.js';
import { seededRandom } from '../../../src/sim/rest/faults.js';

describe('retry policy', () => {
  it('retries 429 and 503 for any method, 500/502/504 only when idempotent', () => {
    for (const status of [429, 503]) {
      assert.equal(shouldRetryStatus(status, false), true);
      assert.equal(shouldRetryStatus(status, true), true);
    }
    for (const status of [500, 502, 504]) {
      assert.equal(shouldRetryStatus(status, false), false);
      assert.equal(shouldRetryStatus(status, true), true);
    }
    for (const status of [200, 400, 401, 403, 404, 409]) assert.equal(shouldRetryStatus(status, true), false);
  });

  it('retries errors where nothing was sent for any method, broken connections only when idempotent', () => {
    assert.equal(shouldRetryError('ECONNREFUSED', false), true);
    assert.equal(shouldRetryError('UND_ERR_CONNECT_TIMEOUT', false), true);
    assert.equal(shouldRetryError('ECONNRESET', false), false);
    assert.equal(shouldRetryError('ECONNRESET', true), true);
    assert.equal(shouldRetryError('UND_ERR_HEADERS_TIMEOUT', true), true);
    assert.equal(shouldRetryError(undefined, true), false);
    assert.equal(shouldRetryError('CERT_HAS_EXPIRED', true), false);
  });

  it('keeps every jittered delay within [0, min(cap, base * 2^n)]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20 }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        (retry, r) => {
          const delay = backoffDelay(retry, DEFAULT_RETRY_POLICY, () => r);
          const ceiling = Math.min(
            DEFAULT_RETRY_POLICY.maxDelayMs,
            DEFAULT_RETRY_POLICY.baseDelayMs * 2 ** retry,
          );
          return delay >= 0 && delay <= ceiling;
        },
      ),
    );
  });

  it('spreads clients out: 100 seeded clients do not all wait the same', () => {
    const delays = new Set(
      Array.from({ length: 100 }, (_, i) => backoffDelay(2, DEFAULT_RETRY_POLICY, seededRandom(i + 1))),
    );
    assert.ok(delays.size > 50);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    const now = Date.UTC(2026, 0, 1, 0, 0, 0);
    assert.equal(parseRetryAfter('3', now), 3000);
    assert.equal(parseRetryAfter('0', now), 0);
    assert.equal(parseRetryAfter(new Date(now + 10_000).toUTCString(), now), 10_000);
    assert.equal(parseRetryAfter(new Date(now - 10_000).toUTCString(), now), 0);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
    assert.equal(parseRetryAfter('', now), undefined);
  });
});
