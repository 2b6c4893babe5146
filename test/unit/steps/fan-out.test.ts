import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FanOutTally } from '../../../src/steps/fan-out.js';

describe('FanOutTally', () => {
  it('counts done, running, failed and waiting, and names the longest-running first', () => {
    let now = 1000;
    const tally = new FanOutTally(10, () => now);
    assert.deepEqual(tally.snapshot(), {
      total: 10,
      done: 0,
      running: 0,
      failed: 0,
      waiting: 10,
      slowest: [],
    });
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      tally.start(name);
      now += 100;
    }
    tally.finish('a', 'done');
    tally.finish('c', 'failed');
    tally.finish('c', 'done'); // not running any more: ignored
    const snapshot = tally.snapshot();
    assert.deepEqual(
      { ...snapshot, slowest: snapshot.slowest.map((s) => `${s.name}@${s.since}`) },
      { total: 10, done: 1, running: 3, failed: 1, waiting: 5, slowest: ['b@1100', 'd@1300', 'e@1400'] },
    );
  });
});
