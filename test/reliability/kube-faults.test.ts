/**
 * The Kubernetes emulator's per-request fault injector (src/sim/kube/faults.ts), which the fault
 * matrix relies on: which requests a rule matches, how often it fires, what it answers.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isWatchRequest, KubeFaultInjector } from '../helpers/simulator.js';

const url = (path: string): URL => new URL(path, 'https://127.0.0.1');
const REC = '/apis/app.redislabs.com/v1/namespaces/redis/redisenterpriseclusters/rec';

describe('kube fault injector', () => {
  test('watch requests: ?watch=true, ?watch=1 and the old /watch/ prefix; GET only', () => {
    assert.ok(isWatchRequest('GET', url('/api/v1/namespaces/redis/pods?watch=true')));
    assert.ok(isWatchRequest('GET', url('/api/v1/namespaces/redis/pods?watch=1&resourceVersion=5')));
    assert.ok(isWatchRequest('GET', url('/api/v1/watch/namespaces/redis/pods')));
    assert.ok(!isWatchRequest('GET', url('/api/v1/namespaces/redis/pods')));
    assert.ok(!isWatchRequest('POST', url('/api/v1/namespaces/redis/pods?watch=true')));
  });

  test('"watch" rules fire on watches only, "times" bounds them, paths narrow them', () => {
    const faults = new KubeFaultInjector([
      { api: 'kube', match: 'watch', status: 410, times: 2 },
      { api: 'kube', match: 'watch /apis/app.redislabs.com/*', status: 500 },
    ]);
    assert.equal(faults.decide('GET', url('/api/v1/namespaces/redis/pods')), undefined);
    assert.deepEqual(faults.decide('GET', url('/api/v1/namespaces/redis/pods?watch=true'))?.kind, 'status');
    const second = faults.decide('GET', url('/api/v1/watch/namespaces/redis/pods'));
    assert.equal(second?.kind === 'status' ? second.status : undefined, 410);
    assert.equal(faults.decide('GET', url('/api/v1/namespaces/redis/pods?watch=true')), undefined);
    const rec = faults.decide('GET', url(`${REC.replace('/rec', '')}?watch=true`));
    assert.equal(rec?.kind === 'status' ? rec.status : undefined, 500);
    assert.deepEqual(faults.firedCounts, [2, 1]);
  });

  test('method and path rules: a 409 on the first PATCH of the cluster resource only', () => {
    const faults = new KubeFaultInjector([
      {
        api: 'kube',
        match: 'PATCH /apis/app.redislabs.com/*/namespaces/*/redisenterpriseclusters/*',
        status: 409,
        times: 1,
      },
    ]);
    assert.equal(faults.decide('GET', url(REC)), undefined);
    const first = faults.decide('PATCH', url(`${REC}?fieldManager=ctl`));
    assert.equal(first?.kind === 'status' ? first.status : undefined, 409);
    assert.equal(faults.decide('PATCH', url(REC)), undefined);
  });

  test('rules of the other emulator and periodic drops are left out; rates are seeded', () => {
    const rules = [
      { api: 'rest' as const, match: '*', status: 503 },
      { api: 'kube' as const, match: 'watch', dropAfterSeconds: 3 },
      { api: 'kube' as const, match: '*', rate: 0.5, kind: 'delay' as const, delayMs: 10, seed: 9 },
    ];
    const a = new KubeFaultInjector(rules);
    const b = new KubeFaultInjector(rules);
    const draws = (f: KubeFaultInjector): string =>
      Array.from({ length: 40 }, () => (f.decide('GET', url('/api/v1/pods')) ? '1' : '0')).join('');
    const sequence = draws(a);
    assert.equal(sequence, draws(b));
    assert.ok(sequence.includes('1') && sequence.includes('0'));
    assert.equal(a.firedCounts.length, 1);
  });
});
