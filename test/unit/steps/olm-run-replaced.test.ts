/**
 * Which recorded OLM run a run to another --to may replace (olmRunThatChangedNothing): one that
 * stopped in its operator step having approved nothing. The OLM hint "Upgrade to X first: ctl
 * upgrade run --to X (it replaces this run ...)" is true only when this says so, on a multi-hop
 * run too (before, a multi-hop run was never replaced, and the hint's command was refused).
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newState, type UpgradeState } from '../../../src/run/state.js';
import { olmRunThatChangedNothing } from '../../../src/steps/operator-olm.js';

const STEPS = ['preflight', 'operator', 'admission', 'security-context', 'cluster', 'monitor', 'databases'];

/** A run to `to` through OLM that stopped in its operator step, having switched the channel only. */
function stoppedAtOperator(to: string, from: string, intent: Record<string, unknown> = {}): UpgradeState {
  const state = newState(
    { context: 'c', namespace: 'redis', cluster: 'rec' },
    { operator: to, method: 'olm' },
    STEPS,
  );
  return {
    ...state,
    result: 'failed',
    steps: {
      ...state.steps,
      preflight: { status: 'done' },
      operator: { status: 'failed', intent: { method: 'olm', from, to, channel: '6.2.10', ...intent } },
    },
  };
}

describe('olmRunThatChangedNothing', () => {
  it('one hop: replaced while the operator still runs the version it started from', () => {
    const state = stoppedAtOperator('6.2.10-45', '6.2.8-15');
    assert.equal(olmRunThatChangedNothing(state, '6.2.8-15', STEPS), 'the operator still runs 6.2.8-15');
    assert.equal(olmRunThatChangedNothing(state, '6.2.10-45', STEPS), undefined, 'the operator moved');
  });

  it('multi-hop, stopped in hop 1: replaced, and the reason names the hop', () => {
    const state: UpgradeState = {
      ...stoppedAtOperator('6.2.18-41', '6.2.8-15'),
      hops: [{ operator: '6.2.10-45' }, { operator: '6.2.18-41' }],
      hop: 0,
    };
    assert.equal(
      olmRunThatChangedNothing(state, '6.2.8-15', STEPS),
      'in hop 1 of 2, to 6.2.10-45; the operator still runs 6.2.8-15',
    );
  });

  it('multi-hop, stopped in hop 2 after hop 1 finished: replaced, saying hop 1 is done', () => {
    const state: UpgradeState = {
      ...stoppedAtOperator('6.2.18-41', '6.2.10-45'),
      hops: [{ operator: '6.2.10-45', finishedAt: '2026-12-01T04:00:00.000Z' }, { operator: '6.2.18-41' }],
      hop: 1,
    };
    assert.equal(
      olmRunThatChangedNothing(state, '6.2.10-45', STEPS),
      'in hop 2 of 2, to 6.2.18-41, after hop 1 of 2 finished; the operator still runs 6.2.10-45',
    );
  });

  it('never one that approved an InstallPlan, or whose later steps began', () => {
    const approved = stoppedAtOperator('6.2.10-45', '6.2.8-15', { approve: 'install-abc' });
    assert.equal(olmRunThatChangedNothing(approved, '6.2.8-15', STEPS), undefined);
    const later = stoppedAtOperator('6.2.10-45', '6.2.8-15');
    const begun: UpgradeState = { ...later, steps: { ...later.steps, admission: { status: 'done' } } };
    assert.equal(olmRunThatChangedNothing(begun, '6.2.8-15', STEPS), undefined);
    const bundle: UpgradeState = { ...later, target: { ...later.target, method: 'bundle' } };
    assert.equal(olmRunThatChangedNothing(bundle, '6.2.8-15', STEPS), undefined);
  });
});
