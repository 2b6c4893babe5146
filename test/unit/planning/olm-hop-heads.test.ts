import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { olmHeadForHop, type OlmSnapshot } from '../../../src/planning/olm.js';

const channels = (heads: Record<string, string>): OlmSnapshot => ({
  csv: 'redis-enterprise-operator.v7.2.4-12',
  installPlans: [],
  channels: Object.entries(heads).map(([name, currentCSV]) => ({ name, currentCSV, entries: [currentCSV] })),
});

describe('olmHeadForHop', () => {
  it('old-style channels: the head of the hop release line replaces a hop that is no head', () => {
    const olm = channels({
      production: 'redis-enterprise-operator.v8.2.0-13',
      '7.4.6': 'redis-enterprise-operator.v7.4.6-9',
      '7.8.6': 'redis-enterprise-operator.v7.8.6-19',
    });
    assert.equal(olmHeadForHop(olm, '7.4.6-7', '7.8.6-19'), '7.4.6-9');
    assert.equal(olmHeadForHop(olm, '7.4.6-9', '7.8.6-19'), '7.4.6-9');
  });

  it('per-CSV channels with rebuild suffixes: heads are read by their release, not by channel name', () => {
    const olm = channels({
      '7.4.6-9.0': 'redis-enterprise-operator.v7.4.6-9.0',
      '7.4.6-7.5': 'redis-enterprise-operator.v7.4.6-7.5',
      '7.22.2-43.0': 'redis-enterprise-operator.v7.22.2-43.0',
    });
    assert.equal(olmHeadForHop(olm, '7.4.6-7', '7.22.2-43'), '7.4.6-7');
    assert.equal(olmHeadForHop(olm, '7.4.6-6', '7.22.2-43'), '7.4.6-9');
  });

  it('no head of the line between the hop and the goal, or no channels read: undefined', () => {
    const olm = channels({ '7.4.6': 'redis-enterprise-operator.v7.4.6-2' });
    assert.equal(olmHeadForHop(olm, '7.4.6-7', '7.8.6-19'), undefined);
    assert.equal(olmHeadForHop(undefined, '7.4.6-7', '7.8.6-19'), undefined);
  });
});
