import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPodReady } from '../../../src/kube/pod-ready.js';

const pod = (conditions: unknown) => ({
  metadata: { name: 'rec-0' },
  status: { phase: 'Running', conditions },
});

describe('isPodReady', () => {
  it('ready when the Ready condition is True, whatever the other conditions say', () => {
    assert.equal(isPodReady(pod([{ type: 'Ready', status: 'True' }])), true);
    assert.equal(
      isPodReady(
        pod([
          { type: 'PodScheduled', status: 'True' },
          { type: 'ContainersReady', status: 'False' },
          { type: 'Ready', status: 'True' },
        ]),
      ),
      true,
    );
  });

  it('not ready when Ready is False or Unknown, or only another condition is True', () => {
    assert.equal(isPodReady(pod([{ type: 'Ready', status: 'False' }])), false);
    assert.equal(isPodReady(pod([{ type: 'Ready', status: 'Unknown' }])), false);
    assert.equal(isPodReady(pod([{ type: 'ContainersReady', status: 'True' }])), false);
    // The API's values are case-sensitive strings: not a boolean, not another spelling.
    assert.equal(isPodReady(pod([{ type: 'Ready', status: true }])), false);
    assert.equal(isPodReady(pod([{ type: 'ready', status: 'True' }])), false);
  });

  it('not ready without a status or a list of conditions: a pod just created, or a malformed answer', () => {
    for (const value of [
      undefined,
      null,
      'rec-0',
      {},
      { status: null },
      { status: {} },
      pod(undefined),
      pod({ type: 'Ready', status: 'True' }),
      pod([]),
      pod([null, 'Ready', 7]),
    ]) {
      assert.equal(isPodReady(value), false, JSON.stringify(value));
    }
  });
});
