import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../src/sim/kube/types.js';
import { describeRollout, deploymentState } from '../../../src/steps/operator-rollout.js';
import { summarize } from '../../../src/steps/outcome-summary.js';

describe('what a step says it did (issue 34)', () => {
  it("each step's last line states its verified outcome", () => {
    const said = (id: string, outcome: Record<string, unknown>) => summarize(id, { outcome }).summary;
    assert.equal(
      said('preflight', { checks: { pass: 18, warn: 1, fail: 0 }, backup: '/s/rec-backup.yaml' }),
      '18 checks passed, 1 warning; cluster resource saved to /s/rec-backup.yaml',
    );
    assert.equal(said('operator', { operatorVersion: '7.8.2-6' }), 'operator 7.8.2-6 running and ready');
    assert.equal(
      said('operator', { dryRun: true, from: '7.4.6-2', to: '7.8.2-6' }),
      'would upgrade from 7.4.6-2 to 7.8.2-6',
    );
    assert.equal(
      said('cluster', { versionTag: '7.8.2-60', previous: '7.4.6-22' }),
      'version set to 7.8.2-60 (was 7.4.6-22)',
    );
    assert.equal(
      said('monitor', { versionTag: '7.8.2-60', replicas: 3 }),
      'cluster Running 7.8.2-60 on 3 pods',
    );
    assert.equal(
      said('databases', { upgraded: ['a', 'b'], skipped: [{ name: 'c', reason: 'x' }], manual: ['d'] }),
      '2 upgraded, 1 left as they were, 1 to upgrade by hand',
    );
    assert.equal(summarize('databases', { outcome: { upgraded: ['a'] } }, true).summary, 'would upgrade 1');
    // A skip keeps its own words; a step's own summary wins; an unknown outcome says nothing more.
    assert.deepEqual(summarize('operator', { skipped: 'already 7.8.2-6' }), { skipped: 'already 7.8.2-6' });
    assert.equal(summarize('operator', { summary: 'mine', outcome: {} }).summary, 'mine');
    assert.equal(said('operator', {}), undefined);
  });

  it("the operator's readiness only goes forward: an old pod's readiness is never counted", () => {
    const deployment = (status: Record<string, number>): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'redis-enterprise-operator', generation: 2 },
      spec: {
        replicas: 1,
        template: {
          spec: { containers: [{ name: 'redis-enterprise-operator', image: 'r/operator:7.8.2-6' }] },
        },
      },
      status: { observedGeneration: 2, ...status },
    });
    const said = (status: Record<string, number>) => describeRollout(deploymentState(deployment(status))!);
    // The rollout as the Deployment controller reports it: new pod created, old one still ready.
    const rollout = [
      said({ replicas: 2, updatedReplicas: 1, readyReplicas: 1 }),
      said({ replicas: 1, updatedReplicas: 1, readyReplicas: 0 }),
      said({ replicas: 1, updatedReplicas: 1, readyReplicas: 1 }),
    ];
    assert.deepEqual(rollout, ['1 old replica ending', '0/1 ready', '1/1 ready']);
  });
});
