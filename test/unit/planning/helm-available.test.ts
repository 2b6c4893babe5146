import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runChecks } from '../../../src/planning/checks/index.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

/** A helm-installed operator (release redis-enterprise in redis) and what `helm version` answered. */
function helmInstalled(client: Snapshot['helmClient']) {
  return (s: Snapshot) => {
    if (s.operator) s.operator.helmRelease = { name: 'redis-enterprise', namespace: 'redis' };
    s.helmRelease = { name: 'redis-enterprise', namespace: 'redis', status: 'deployed', revision: 1 };
    s.helmClient = client;
  };
}

function helmAvailable(client: Snapshot['helmClient'], flags: Parameters<typeof makeTarget>[0] = {}) {
  const found = runChecks(makeSnapshot(helmInstalled(client)), makeTarget({ method: 'helm', ...flags }), {
    required: REQUIRED_PERMISSIONS,
  }).find((c) => c.id === 'helm-available');
  assert.ok(found);
  return found;
}

describe('helm-available', () => {
  it('no helm: fails naming helm, and the fix installs helm, never another method', () => {
    const check = helmAvailable({ binary: 'helm', found: false, error: 'not found' });
    assert.equal(check.status, 'fail');
    assert.match(check.message, /^helm was not found \(helm: not found\)/);
    assert.match(check.fix, /Install helm 3\.14 or later .*--helm-bin or CTL_HELM/);
    assert.doesNotMatch(`${check.message} ${check.fix}`, /--method|bundle/);
  });

  it('helm older than 3.10 fails; 3.10 to 3.13 warns; 3.14 passes', () => {
    assert.equal(helmAvailable({ binary: 'helm', found: true, version: 'v3.9.4' }).status, 'fail');
    const old = helmAvailable({ binary: '/opt/helm', found: true, version: 'v3.12.0' });
    assert.equal(old.status, 'warn');
    assert.match(old.message, /reset-then-reuse-values/);
    const ok = helmAvailable({ binary: 'helm', found: true, version: 'v3.16.1' });
    assert.equal(ok.status, 'pass');
    assert.match(ok.message, /helm v3\.16\.1 \(helm\)/);
  });

  it('an answer that names no version warns; a method other than helm passes without looking', () => {
    assert.equal(helmAvailable({ binary: 'helm', found: true, error: 'no answer' }).status, 'warn');
    const bundle = runChecks(makeSnapshot(), makeTarget(), { required: REQUIRED_PERMISSIONS }).find(
      (c) => c.id === 'helm-available',
    );
    assert.equal(bundle?.status, 'pass');
  });
});
