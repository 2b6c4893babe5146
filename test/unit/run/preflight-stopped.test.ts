import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runThatStoppedInPreflight } from '../../../src/run/preflight-stopped.js';
import { newState, type UpgradeState } from '../../../src/run/state.js';

const identity = { context: 'kind-dev', namespace: 'shop', cluster: 'east' };
const steps = ['preflight', 'operator', 'admission', 'cluster'];

function stateWith(statuses: Record<string, UpgradeState['steps'][string]['status']>): UpgradeState {
  const state = newState(identity, { operator: '7.8.2-6' }, steps);
  for (const [id, status] of Object.entries(statuses)) state.steps[id] = { status };
  return { ...state, result: 'failed' };
}

describe('runThatStoppedInPreflight', () => {
  it('a failed or interrupted preflight with every later step pending changed nothing', () => {
    assert.match(runThatStoppedInPreflight(stateWith({ preflight: 'failed' }), steps) ?? '', /preflight/);
    assert.match(
      runThatStoppedInPreflight(stateWith({ preflight: 'in-progress' }), steps) ?? '',
      /preflight/,
    );
  });

  it('a run that got past preflight holds the state', () => {
    assert.equal(
      runThatStoppedInPreflight(stateWith({ preflight: 'done', operator: 'failed' }), steps),
      undefined,
    );
    assert.equal(runThatStoppedInPreflight(stateWith({ preflight: 'done' }), steps), undefined);
    // Even a failed preflight next to a step that ran (a resume with --only) is not "nothing changed".
    assert.equal(
      runThatStoppedInPreflight(stateWith({ preflight: 'failed', operator: 'done' }), steps),
      undefined,
    );
  });

  it('a later hop of a multi-hop run holds the state: the hops before it changed the cluster', () => {
    const state = stateWith({ preflight: 'failed' });
    const hops = [{ operator: '7.4.6-2', finishedAt: '2026-01-01T00:00:00Z' }, { operator: '7.8.2-6' }];
    assert.equal(runThatStoppedInPreflight({ ...state, hops, hop: 1 }, steps), undefined);
    assert.match(
      runThatStoppedInPreflight(
        { ...state, hops: [{ operator: '7.4.6-2' }, { operator: '7.8.2-6' }], hop: 0 },
        steps,
      ) ?? '',
      /preflight/,
    );
  });
});
