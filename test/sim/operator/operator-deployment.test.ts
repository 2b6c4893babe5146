import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../../src/sim/kube/types.js';
import { logInfos, recState, setOperatorImage, settle, startSim, statusOf, waitFor } from './harness.js';

const NAME = 'redis-enterprise-operator';

/** READY as kubectl prints it, for every write of the operator Deployment. */
function readyColumn(deployment: KubeObject): string {
  const status = statusOf(deployment);
  const replicas = (deployment.spec as { replicas?: number }).replicas ?? 1;
  return `${status.readyReplicas ?? 0}/${replicas}`;
}

for (const withoutControllers of [false, true]) {
  const how = withoutControllers
    ? 'without the built-in controllers'
    : 'with the built-in Deployment controller';

  test(`a new operator image restarts it: READY 0/1, then 1/1 (${how})`, async () => {
    const sim = await startSim('happy-path', {
      withoutControllers,
      adjust: (scenario) => {
        scenario.timing.operatorStart = 0.3;
      },
    });
    try {
      await settle();
      const mark = sim.changes.length;
      setOperatorImage(sim, '7.8.2-6');
      await waitFor('the operator to be ready again', () => {
        const deployment = sim.get('apps/v1', 'Deployment', NAME);
        const status = statusOf(deployment);
        const progressing = ((status.conditions ?? []) as { type: string; reason: string }[]).find(
          (c) => c.type === 'Progressing',
        );
        return (
          status.observedGeneration === deployment?.metadata.generation &&
          status.readyReplicas === 1 &&
          status.replicas === 1 &&
          progressing?.reason === 'NewReplicaSetAvailable'
        );
      });
      const columns = sim.changes
        .slice(mark)
        .filter((change) => change.object.kind === 'Deployment' && change.object.metadata.name === NAME)
        .filter((change) => statusOf(change.object).observedGeneration === change.object.metadata.generation)
        .map((change) => readyColumn(change.object));
      assert.ok(columns.includes('0/1'), `READY went through 0/1: ${columns.join(' ')}`);
      assert.equal(columns.at(-1), '1/1');
      const status = statusOf(sim.get('apps/v1', 'Deployment', NAME));
      assert.equal(status.updatedReplicas, 1);
      const progressing = (status.conditions as { type: string; reason: string }[]).find(
        (c) => c.type === 'Progressing',
      );
      assert.equal(progressing?.reason, 'NewReplicaSetAvailable');
      await waitFor('the upgrade in the operator log', () => logInfos(sim, /^Operator upgraded/).length > 0);
      assert.equal(recState(sim), 'Running');
      assert.deepEqual(sim.errors, []);
    } finally {
      await sim.close();
    }
  });
}

test('the operator creates Secret admission-tls when it starts and it is missing', async () => {
  const sim = await startSim('happy-path');
  try {
    sim.store.delete(sim.store.resolve('v1', 'Secret'), 'redis', 'admission-tls');
    // A restart (kubectl rollout restart changes a template annotation).
    sim.strategicPatch('apps/v1', 'Deployment', NAME, {
      spec: {
        template: {
          metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:00Z' } },
        },
      },
    });
    const secret = await waitFor('admission-tls', () => sim.get('v1', 'Secret', 'admission-tls'));
    const data = secret.data as Record<string, string>;
    assert.deepEqual(Object.keys(data).sort(), ['cert', 'key']);
    assert.match(Buffer.from(data.cert ?? '', 'base64').toString(), /^-----BEGIN CERTIFICATE-----/);
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test('stop() ends all work: later changes get no answer', async () => {
  const sim = await startSim('happy-path');
  await sim.close();
  sim.mergePatch('app.redislabs.com/v1', 'RedisEnterpriseCluster', 'rec', {
    spec: { redisEnterpriseImageSpec: { versionTag: '7.4.6-102' } },
  });
  await settle();
  assert.equal(recState(sim), 'Running');
  assert.equal(sim.events.length, 0);
  assert.deepEqual(logInfos(sim, /^Upgrading/), []);
});
