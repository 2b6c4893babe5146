import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FaultInjector, seededRandom } from '../../../../src/sim/rest/faults.js';

describe('FaultInjector', () => {
  it('matches method and path globs, "*" and path-only rules', () => {
    const faults = new FaultInjector([
      { match: 'POST /v1/bdbs/*/upgrade', status: 503 },
      { match: '/v1/nodes', status: 500 },
    ]);
    assert.equal(faults.decide('POST', '/v1/bdbs/7/upgrade')?.kind, 'status');
    assert.equal(faults.decide('GET', '/v1/bdbs/7/upgrade'), undefined);
    assert.equal(faults.decide('POST', '/v1/bdbs/7'), undefined);
    assert.deepEqual(faults.decide('GET', '/v1/nodes?x=1'), {
      kind: 'status',
      status: 500,
      retryAfter: undefined,
      rule: { match: '/v1/nodes', status: 500 },
    });
    const all = new FaultInjector([{ match: '*', kind: 'reset' }]);
    assert.equal(all.decide('DELETE', '/anything')?.kind, 'reset');
  });

  it('fires `times` times, then lets requests through', () => {
    const faults = new FaultInjector([{ match: '*', status: 503, times: 2 }]);
    const statuses = [1, 2, 3, 4].map(() => faults.decide('GET', '/v1/bdbs'));
    assert.deepEqual(
      statuses.map((a) => a?.kind),
      ['status', 'status', undefined, undefined],
    );
    assert.deepEqual(faults.firedCounts, [2]);
  });

  it('draws `rate` from a seeded PRNG: the same seed gives the same sequence', () => {
    const run = (seed: number) => {
      const faults = new FaultInjector([{ match: '*', rate: 0.2, kind: 'reset', seed }]);
      return Array.from({ length: 200 }, () => (faults.decide('GET', '/v1/bdbs') ? 1 : 0)).join('');
    };
    assert.equal(run(7), run(7));
    assert.notEqual(run(7), run(8));
    const fired = [...run(7)].filter((c) => c === '1').length;
    assert.ok(fired > 15 && fired < 70, `about 20% of 200 should fire, got ${fired}`);
  });

  it('keeps only the rules of its api', () => {
    const faults = new FaultInjector(
      [
        { api: 'kube', match: '*', status: 500 },
        { api: 'rest', match: '*', status: 502 },
      ],
      'rest',
    );
    assert.equal((faults.decide('GET', '/') as { status: number }).status, 502);
  });

  it('seededRandom stays in [0, 1)', () => {
    const random = seededRandom(42);
    for (let i = 0; i < 1000; i += 1) {
      const value = random();
      assert.ok(value >= 0 && value < 1);
    }
  });
});
