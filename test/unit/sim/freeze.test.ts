import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { upgradeBlockers } from '../../../src/sim/operator/freeze.js';
import { RestModel } from '../../../src/sim/rest/model.js';

/**
 * What the simulated operator logs when a module in use freezes the upgrade to RHEL9 images: the
 * upload of the RHEL9 build of the version in use where one exists (upgrade-os.md: "The module
 * version matches the version currently used by databases"), never an upload for RedisGraph, which
 * has no RHEL9 build at all (RS 7.4.2 notes, "RedisGraph prevents upgrade to RHEL 9").
 */
describe('simulated operator: the freeze line of a module without a rhel9 build', () => {
  const model = (module: { name: string; version: string }) =>
    new RestModel({
      serverVersion: '7.4.6-22',
      modules: [{ ...module, platforms: ['rhel8/x86_64'] }],
      bdbs: [{ name: 'profiles', namespace: 'redis', version: '7.2', modules: [module] }],
    });

  it('a module with a RHEL9 build elsewhere: install the rhel9 build of that version (POST /v2/modules)', () => {
    const [blocker, ...rest] = upgradeBlockers(
      model({ name: 'ReJSON', version: '2.6.10' }),
      '7.8.2-60',
      '7.8.2-6',
    );
    assert.deepEqual(rest, []);
    assert.equal(blocker?.reason, 'UnsupportedModule');
    assert.match(
      blocker?.message ?? '',
      /^database profiles \(uid \d+\) uses module ReJSON 2\.6\.10, which has no rhel9 build \(platforms: rhel8\/x86_64\); cluster version 7\.8\.2-60 runs RHEL9 images: the upgrade cannot continue until the rhel9 build of ReJSON 2\.6\.10 is installed \(POST \/v2\/modules\)$/,
    );
  });

  it('RedisGraph: no build to install, so no upload is named', () => {
    const [blocker] = upgradeBlockers(model({ name: 'graph', version: '2.10.12' }), '7.8.2-60', '7.8.2-6');
    assert.equal(blocker?.reason, 'UnsupportedModule');
    assert.match(blocker?.message ?? '', /uses module graph 2\.10\.12, which has no rhel9 build/);
    assert.match(blocker?.message ?? '', /RedisGraph is end of life and has no rhel9 build/);
    assert.doesNotMatch(blocker?.message ?? '', /POST \/v2\/modules|is installed/);
  });

  it('a RHEL8 target freezes nothing', () => {
    assert.deepEqual(
      upgradeBlockers(model({ name: 'ReJSON', version: '2.6.10' }), '7.4.6-22', '7.4.6-2'),
      [],
    );
  });

  // The remedy is the cluster's own: RS 8.0.2 and later add a custom module through the
  // user-defined requests (add-module-to-cluster.md, "Redis Software v8.0.x and later"), and an
  // operator from 8.0.6-8 also fetches a module listed in spec.userDefinedModules.
  const rs8 = (serverVersion: string) =>
    new RestModel({
      serverVersion,
      modules: [{ name: 'custom', version: '1.2.3', platforms: ['rhel8/x86_64'] }],
      bdbs: [
        {
          name: 'graphs',
          namespace: 'redis',
          version: '7.4',
          modules: [{ name: 'custom', version: '1.2.3' }],
        },
      ],
    });

  it('an RS 8.0.2 cluster: the user-defined module requests, not POST /v2/modules', () => {
    const [blocker] = upgradeBlockers(rs8('8.0.2-17'), '8.0.6-54', '8.0.2-2');
    assert.equal(blocker?.reason, 'UnsupportedModule');
    assert.match(
      blocker?.message ?? '',
      /is installed \(POST \/v2\/modules\/user-defined, then POST \/v2\/local\/modules\/user-defined\/artifacts on each node\)$/,
    );
    assert.doesNotMatch(blocker?.message ?? '', /POST \/v2\/modules\)|userDefinedModules/);
  });

  it('an operator from 8.0.6-8 also names the REC’s spec.userDefinedModules', () => {
    const [blocker] = upgradeBlockers(rs8('8.0.6-54'), '8.0.10-64', '8.0.6-8');
    assert.match(blocker?.message ?? '', /POST \/v2\/modules\/user-defined/);
    assert.match(blocker?.message ?? '', /or listed in the cluster resource's spec\.userDefinedModules$/);
  });

  it('an RS 7.22 cluster under an 8.0.6-8 operator: POST /v2/modules, or spec.userDefinedModules', () => {
    const [blocker] = upgradeBlockers(rs8('7.22.2-133'), '8.0.6-54', '8.0.6-8');
    assert.match(blocker?.message ?? '', /is installed \(POST \/v2\/modules\), or listed in/);
  });
});
