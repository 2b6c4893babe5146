import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runChecks } from '../../../src/planning/checks/index.js';
import { toCluster } from '../../../src/planning/snapshot.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';

const KEY = '----- LICENSE START -----CANARY-licence-key-9d1';

function licenceCheck(mutate: Parameters<typeof makeSnapshot>[0]) {
  const check = runChecks(makeSnapshot(mutate), makeTarget(), { required: REQUIRED_PERMISSIONS }).find(
    (c) => c.id === 'license-valid',
  );
  assert.ok(check);
  return check;
}

describe('license-valid fixes the licence where it lives', () => {
  it('the snapshot records that the licence is inline, never the key', () => {
    const cluster = toCluster(
      {
        apiVersion: 'app.redislabs.com/v1',
        kind: 'RedisEnterpriseCluster',
        metadata: { name: 'rec', namespace: 'redis' },
        spec: { nodes: 3, license: KEY, redisEnterpriseImageSpec: { versionTag: '7.4.6-22' } },
      },
      'redis',
      'redis',
    );
    assert.equal(cluster.licenseInline, true);
    assert.ok(!JSON.stringify(cluster).includes('CANARY'));
  });

  it('inline licence: replaced in spec.license, or moved to a Secret with spec.license emptied in the same patch', () => {
    const check = licenceCheck((s) => {
      s.cluster!.license = { state: 'Expired' };
      s.cluster!.licenseInline = true;
    });
    assert.equal(check.status, 'fail');
    assert.match(
      check.fix,
      /Replace the inline licence in spec\.license: jq -n --rawfile license LICENSE_FILE/,
    );
    assert.match(check.fix, /kubectl patch rec rec -n redis --type merge --patch-file license-patch\.json/);
    assert.match(check.fix, /'\{"spec":\{"license":null,"licenseSecretName":"rec-license"\}\}'/);
    // Never a spec with both: every patch that sets licenseSecretName empties license.
    for (const patch of check.fix.matchAll(/-p '([^']+)'/g)) {
      const spec = (JSON.parse(patch[1]!) as { spec: Record<string, unknown> }).spec;
      if ('licenseSecretName' in spec) assert.equal(spec.license, null);
    }
  });

  it('licence in a Secret: replace the Secret, never touch spec.license', () => {
    const check = licenceCheck((s) => {
      s.cluster!.license = { state: 'Invalid' };
      s.cluster!.licenseSecretName = 'my-licence';
    });
    assert.match(check.fix, /Secret my-licence/);
    assert.doesNotMatch(check.fix, /spec\.license|"license"/);
  });

  it('no licence anywhere: create the Secret and point licenseSecretName at it', () => {
    const check = licenceCheck((s) => {
      s.cluster!.license = { state: 'Invalid' };
    });
    assert.match(check.fix, /"licenseSecretName":"rec-license"/);
  });
});
