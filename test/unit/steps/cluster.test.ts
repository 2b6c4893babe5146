import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../src/kube/reads.js';
import { createClusterStep } from '../../../src/steps/cluster.js';
import { harness, stderrLines } from './fakes.js';

const REC = { apiVersion: 'app.redislabs.com/v1', kind: 'RedisEnterpriseCluster' };
const TAG = '7.8.2-34';

function rec(
  options: { tag?: string; state?: string; auto?: boolean; engine?: boolean; rigger?: string } = {},
): KubeObject {
  const imageSpec = {
    repository: 'redislabs/redis',
    versionTag: options.tag ?? '7.4.6-22',
    imagePullPolicy: 'IfNotPresent',
  };
  const spec: Record<string, unknown> = options.engine
    ? { nodes: 3, engineEnterpriseImageSpec: imageSpec, autoUpgradeEngineEnterprise: options.auto ?? false }
    : {
        nodes: 3,
        redisEnterpriseImageSpec: imageSpec,
        upgradeSpec: { autoUpgradeRedisEnterprise: options.auto ?? false },
      };
  if (options.rigger)
    spec.redisEnterpriseServicesRiggerImageSpec = {
      repository: 'redislabs/services-manager',
      versionTag: options.rigger,
    };
  return {
    ...REC,
    metadata: { name: 'rec', namespace: 'redis' },
    spec,
    status: { state: options.state ?? 'Running' },
  };
}

function setup(options: Parameters<typeof harness>[0] = {}) {
  const h = harness({ ...options, target: { clusterVersion: TAG, ...options.target } });
  return { h, step: createClusterStep({ wait: h.cluster.wait() }) };
}

function imageSpec(
  object: KubeObject | undefined,
  field = 'redisEnterpriseImageSpec',
): Record<string, unknown> {
  return (object?.spec as Record<string, Record<string, unknown>>)[field] ?? {};
}

describe('cluster step', () => {
  it('merge-patches only versionTag, after recording the intent, and verifies it', async () => {
    const { h, step } = setup();
    h.cluster.put(rec());
    const result = await h.run(step);
    assert.deepEqual(h.cluster.writes(), ['merge RedisEnterpriseCluster/rec -n redis']);
    assert.equal(
      h.log.findIndex((e) => e.type === 'intent') < h.log.findIndex((e) => e.type === 'write'),
      true,
    );
    const body = (h.log.find((e) => e.type === 'write')?.data as { body: Record<string, unknown> }).body;
    assert.deepEqual(body.spec, { redisEnterpriseImageSpec: { versionTag: TAG } });
    assert.deepEqual(imageSpec(h.cluster.get(REC.apiVersion, REC.kind, 'rec', 'redis')), {
      repository: 'redislabs/redis',
      versionTag: TAG,
      imagePullPolicy: 'IfNotPresent',
    });
    assert.equal(result.outcome?.versionTag, TAG);
    assert.equal(result.outcome?.previous, '7.4.6-22');
  });

  it('uses the dialect field path (engine) and moves pinned images to the operator version', async () => {
    const { h, step } = setup({ snapshot: (s) => (s.dialect = 'engine') });
    h.cluster.put(rec({ engine: true, rigger: '7.4.6-2' }));
    await h.run(step);
    const body = (h.log.find((e) => e.type === 'write')?.data as { body: Record<string, unknown> }).body;
    assert.deepEqual(body.spec, {
      engineEnterpriseImageSpec: { versionTag: TAG },
      redisEnterpriseServicesRiggerImageSpec: { versionTag: '7.8.2-6' },
    });
  });

  it('does not patch a cluster already upgrading to the target (resume after a crash)', async () => {
    const { h, step } = setup();
    h.cluster.put(rec({ tag: TAG, state: 'Upgrade' }));
    const result = await h.run(step);
    assert.deepEqual(result, {
      skipped: `redisEnterpriseImageSpec.versionTag is already ${TAG}: the upgrade is in progress`,
    });
    assert.deepEqual(h.cluster.writes(), []);
    assert.equal(h.log.filter((e) => e.type === 'intent').length, 0);
  });

  it('never sets an older versionTag, whatever the checks said (a downgrade with --ignore-check upgrade-path)', async () => {
    // The plan half skips a newer cluster (planCluster); the run half read it live and patched.
    for (const dryRun of [false, true]) {
      const { h, step } = setup();
      h.cluster.put(rec({ tag: '8.2.0-78.18' }));
      await assert.rejects(
        h.run(step, { dryRun }),
        (error: Error & { hint?: string }) =>
          /^not downgrading rec\/rec -n redis: it runs 8\.2\.0-78\.18, newer than 7\.8\.2-34/.test(
            error.message,
          ) && /--to/.test(error.hint ?? ''),
      );
      assert.deepEqual(h.cluster.writes(), [], `dry run ${dryRun}: nothing written`);
      assert.equal(h.log.filter((e) => e.type === 'intent').length, 0);
    }
  });

  it('refuses to patch during an upgrade to another version', async () => {
    const { h, step } = setup();
    h.cluster.put(rec({ tag: '7.4.6-30', state: 'Upgrade' }));
    await assert.rejects(h.run(step), /already upgrading \(to 7\.4\.6-30\)/);
    assert.deepEqual(h.cluster.writes(), []);
  });

  it('auto-upgrade: changes nothing and waits for the operator to start the upgrade', async () => {
    const { h, step } = setup({ snapshot: (s) => (s.cluster!.autoUpgrade = true) });
    h.cluster.put(rec({ auto: true }));
    let ticks = 0;
    h.cluster.onTick = (cluster) => {
      if (++ticks === 2) {
        cluster.update(REC.apiVersion, REC.kind, 'rec', 'redis', (o) => {
          imageSpec(o).versionTag = TAG;
          o.status = { state: 'Upgrade' };
        });
      }
    };
    const result = await h.run(step);
    assert.deepEqual(result, {
      skipped: `auto-upgrade is on: the operator upgrades the cluster (it has set versionTag ${TAG})`,
    });
    assert.deepEqual(h.cluster.writes(), []);
  });

  it('auto-upgrade: an InvalidUpgrade answer is left to the monitor step (which shows the events and the fix)', async () => {
    const { h, step } = setup({ snapshot: (s) => (s.cluster!.autoUpgrade = true) });
    h.cluster.put(rec({ auto: true, state: 'InvalidUpgrade' }));
    const result = await h.run(step);
    assert.match(String(result.skipped), /answered with state InvalidUpgrade/);
    assert.deepEqual(h.cluster.writes(), []);
  });

  it('dry-run prints the merge patch and changes nothing', async () => {
    const { h, step } = setup();
    h.cluster.put(rec());
    await h.run(step, { dryRun: true });
    assert.deepEqual(h.cluster.writes(), []);
    assert.deepEqual(stderrLines(h.test), [
      `would patch rec/rec -n redis: {"spec":{"redisEnterpriseImageSpec":{"versionTag":"${TAG}"}}}`,
    ]);
  });
});
