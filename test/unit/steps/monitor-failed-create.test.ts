import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podCreationRefusal, refusalHint } from '../../../src/steps/monitor-failed-create.js';

describe('FailedCreate of the StatefulSet', () => {
  it('takes the newest FailedCreate warning, ignoring other events', () => {
    const message = podCreationRefusal([
      { type: 'Warning', reason: 'FailedCreate', message: 'old', lastTimestamp: '2026-01-01T00:00:01Z' },
      { type: 'Normal', reason: 'SuccessfulCreate', message: 'fine', lastTimestamp: '2026-01-01T00:00:05Z' },
      { type: 'Warning', reason: 'FailedCreate', message: 'new', lastTimestamp: '2026-01-01T00:00:03Z' },
    ]);
    assert.equal(message, 'new');
    assert.equal(podCreationRefusal([{ type: 'Warning', reason: 'UpgradeFrozen', message: 'x' }]), undefined);
  });

  it('explains an SCC refusal with the oc commands, and nothing else', () => {
    const hint = refusalHint(
      'pods "rec-2" is forbidden: unable to validate against any security context constraint: [...]',
      'rec',
      'redis',
      { context: 'prod' },
    );
    // The commands name the context chosen for ctl, so they act on the cluster ctl watched.
    assert.match(hint ?? '', /oc --context prod apply -f RELEASE_DIR\/openshift\/scc\.yaml/);
    assert.match(
      hint ?? '',
      /oc --context prod adm policy add-scc-to-user redis-enterprise-scc-v2 -z rec -n redis/,
    );
    assert.equal(refusalHint('exceeded quota: compute-resources', 'rec', 'redis', {}), undefined);
  });
});
