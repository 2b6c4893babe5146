import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { clusterStep } from '../../../src/steps/cluster.js';
import { REC_API, recObject, type StepBed, startStepBed, statefulSetObject, until } from './emulator-bed.js';

/**
 * The cluster step with auto-upgrade on, against the Kubernetes emulator (real watches): the
 * operator need not write versionTag into the spec (redis-facts.md §12), so the step sees the
 * upgrade start on the StatefulSet's node image as well as on the resource's state.
 */

const FROM = '7.4.6-22';
const TARGET = '7.8.2-60';

describe('cluster step with auto-upgrade (emulator)', () => {
  let bed: StepBed | undefined;
  afterEach(async () => {
    await bed?.close();
    bed = undefined;
  });

  async function autoUpgradeCluster(templateTag: string): Promise<StepBed> {
    bed = await startStepBed({ snapshot: (s) => (s.cluster!.autoUpgrade = true) });
    const e = bed.emulator;
    e.create(
      REC_API,
      'RedisEnterpriseCluster',
      recObject(FROM, { upgradeSpec: { autoUpgradeRedisEnterprise: true } }),
    );
    e.patch(REC_API, 'RedisEnterpriseCluster', 'rec', { status: { state: 'Running' } }, true);
    e.create('apps/v1', 'StatefulSet', statefulSetObject(templateTag));
    return bed;
  }

  it("sees the operator start when the pods' image moves, with no spec write and no Upgrade state seen", async () => {
    const b = await autoUpgradeCluster(FROM);
    const running = clusterStep.run(b.ctx());
    await until(
      () => b.progress().some((m) => m.includes('waiting for it to start')),
      'the step to wait for the operator',
    );
    assert.equal(
      await Promise.race([
        running.then(() => 'done'),
        new Promise((r) => setTimeout(() => r('waiting'), 150)),
      ]),
      'waiting',
      'nothing has moved yet',
    );
    const template = (statefulSetObject(TARGET).spec as { template: object }).template;
    b.emulator.patch('apps/v1', 'StatefulSet', 'rec', { spec: { template } });
    const result = await running;
    assert.match(
      String(result.skipped),
      /auto-upgrade is on: the operator upgrades the cluster \(it rolls the pods to redislabs\/redis:7\.8\.2-60\)/,
    );
    assert.deepEqual(b.kubeWrites(), [], 'ctl changed nothing');
  });

  it('finds an automatic upgrade that is already over (the template at the target) and returns at once', async () => {
    const b = await autoUpgradeCluster(TARGET);
    const result = await clusterStep.run(b.ctx());
    assert.match(String(result.skipped), /it rolls the pods to redislabs\/redis:7\.8\.2-60/);
    assert.deepEqual(b.warnings(), []);
    assert.deepEqual(b.kubeWrites(), []);
  });

  it('still answers to the state Upgrade on the resource', async () => {
    const b = await autoUpgradeCluster(FROM);
    const running = clusterStep.run(b.ctx());
    await until(
      () => b.progress().some((m) => m.includes('waiting for it to start')),
      'the step to wait for the operator',
    );
    b.emulator.patch(REC_API, 'RedisEnterpriseCluster', 'rec', { status: { state: 'Upgrade' } }, true);
    const result = await running;
    assert.match(String(result.skipped), /it has started: state Upgrade/);
  });
});
