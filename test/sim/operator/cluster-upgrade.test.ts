import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultClusterTag, releasedOperatorVersions } from '../../../src/sim/world/releases.js';
import {
  logErrors,
  logInfos,
  REC,
  recState,
  setClusterTag,
  setOperatorImage,
  startSim,
  statusOf,
  waitFor,
  warnings,
} from './harness.js';

const TARGET_OPERATOR = '7.8.2-6';
const TARGET_TAG = defaultClusterTag(TARGET_OPERATOR, 'kubernetes') ?? '';

function operatorReady(sim: Awaited<ReturnType<typeof startSim>>, version: string): boolean {
  const deployment = sim.get('apps/v1', 'Deployment', 'redis-enterprise-operator');
  const containers = ((deployment?.spec ?? {}) as { template: { spec: { containers: { image: string }[] } } })
    .template.spec.containers;
  const status = statusOf(deployment);
  return (
    containers[0]?.image === `redislabs/operator:${version}` &&
    status.observedGeneration === deployment?.metadata.generation &&
    status.readyReplicas === 1 &&
    status.updatedReplicas === 1 &&
    status.replicas === 1
  );
}

test('happy upgrade: operator, then the cluster, pods replaced in reverse ordinal order', async () => {
  const sim = await startSim('happy-path');
  try {
    setOperatorImage(sim, TARGET_OPERATOR);
    await waitFor('the new operator to be ready', () => operatorReady(sim, TARGET_OPERATOR));
    // The operator upgrade alone does not touch the cluster.
    assert.equal(recState(sim), 'Running');

    const before = statusOf(sim.get('apps/v1', 'StatefulSet', 'rec'));
    const mark = sim.changes.length;
    setClusterTag(sim, TARGET_TAG);
    await waitFor('the upgrade to start', () => recState(sim) === 'Upgrade');
    await waitFor('the cluster to be Running again', () => recState(sim) === 'Running');

    // The node pods (the services rigger's pod is replaced too: its own Deployment, below).
    const pods = sim.changes
      .slice(mark)
      .filter(
        (change) => change.resource.kind === 'Pod' && /^rec-\d+$/.test(change.object.metadata.name ?? ''),
      );
    const deleted = pods
      .filter((change) => change.type === 'DELETED')
      .map((change) => change.object.metadata.name);
    assert.deepEqual(deleted, ['rec-2', 'rec-1', 'rec-0']);
    // One at a time: each pod's successor is ready before the next pod goes.
    const sequence = pods.map((change) => `${change.type}:${change.object.metadata.name}`);
    const firstDeleteOfRec1 = sequence.indexOf('DELETED:rec-1');
    const lastTouchOfRec2 = sequence.lastIndexOf('MODIFIED:rec-2');
    assert.ok(lastTouchOfRec2 < firstDeleteOfRec1, 'rec-2 was ready before rec-1 went');

    const sts = sim.get('apps/v1', 'StatefulSet', 'rec');
    const after = statusOf(sts);
    assert.notEqual(after.updateRevision, before.updateRevision);
    assert.equal(after.currentRevision, after.updateRevision);
    assert.equal(after.readyReplicas, 3);
    assert.equal(after.updatedReplicas, 3);
    assert.equal(after.currentReplicas, 3);
    assert.equal(after.observedGeneration, sts?.metadata.generation);
    for (const ordinal of [0, 1, 2]) {
      const pod = sim.get('v1', 'Pod', `rec-${ordinal}`);
      const containers = ((pod?.spec ?? {}) as { containers: { name: string; image: string }[] }).containers;
      assert.equal(
        containers.find((c) => c.name === 'redis-enterprise-node')?.image,
        `redislabs/redis:${TARGET_TAG}`,
      );
      assert.equal(
        containers.find((c) => c.name === 'bootstrapper')?.image,
        `redislabs/operator:${TARGET_OPERATOR}`,
      );
      assert.equal(pod?.metadata.labels?.['controller-revision-hash'], after.updateRevision);
    }
    // The services rigger moved to the operator's release with the cluster.
    const rigger = sim.get('apps/v1', 'Deployment', 'rec-services-rigger');
    const riggerContainers = (
      (rigger?.spec ?? {}) as { template: { spec: { containers: { image: string }[] } } }
    ).template.spec.containers;
    assert.equal(riggerContainers[0]?.image, `redislabs/k8s-controller:${TARGET_OPERATOR}`);
    // The StatefulSet status never claimed a finished rollout before the last pod was ready.
    const stsChanges = sim.changes
      .slice(mark)
      .filter((change) => change.resource.kind === 'StatefulSet')
      .map((change) => statusOf(change.object));
    const firstComplete = stsChanges.findIndex(
      (status) =>
        status.updateRevision === after.updateRevision &&
        status.updatedReplicas === 3 &&
        status.readyReplicas === 3,
    );
    assert.ok(firstComplete >= 0);
    assert.ok(
      stsChanges.slice(0, firstComplete).every((status) => status.currentRevision === before.currentRevision),
    );

    for (const node of sim.rest.nodes) assert.equal(node.software_version, TARGET_TAG);
    assert.equal(sim.rest.serverVersion, TARGET_TAG);
    const rec = sim.get(...REC, 'rec');
    assert.ok(
      (statusOf(rec).bundledDatabaseVersions as { version: string }[]).some((v) => v.version === '7.4'),
    );
    assert.equal(logInfos(sim, /^Upgrade completed$/).length, 1);
    assert.deepEqual(logErrors(sim), []);
    // The operator says what it does in its log, not through Events of its own invention.
    assert.deepEqual(sim.events, []);
    assert.deepEqual(sim.list('v1', 'Event', sim.scenario.namespace), []);
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test("the operator's log lines are zap JSON in its pod's log, with the controller's logger", async () => {
  const sim = await startSim('happy-path');
  try {
    setClusterTag(sim, '7.4.6-102');
    await waitFor('the upgrade to complete', () => logInfos(sim, /^Upgrade completed$/).length > 0);
    const pod = sim
      .list('v1', 'Pod', sim.scenario.namespace)
      .find((p) => p.metadata.labels?.name === 'redis-enterprise-operator');
    assert.ok(pod, 'the operator pod');
    const lines = sim.store.podLogs
      .read(sim.scenario.namespace, pod.metadata.name ?? '', 'redis-enterprise-operator')
      .map((line) => JSON.parse(line.text) as Record<string, unknown>);
    const completed = lines.find((line) => line.msg === 'Upgrade completed');
    assert.equal(completed?.logger, 'controller_redisenterprisecluster');
    assert.equal(completed?.level, 'info');
    assert.equal(completed?.['Request.Namespace'], 'redis');
    assert.equal(completed?.['Request.Name'], 'rec');
    assert.equal(typeof completed?.ts, 'number');
    assert.deepEqual(
      sim.store.podLogs.read(sim.scenario.namespace, pod.metadata.name ?? '', 'admission'),
      [],
    );
  } finally {
    await sim.close();
  }
});

test('a second upgrade is refused while the state is Upgrade', async () => {
  const sim = await startSim('happy-path', {
    adjust: (scenario) => {
      // Slow pods keep the first upgrade in progress for the whole test.
      scenario.timing.podRestart = 600;
    },
  });
  try {
    setClusterTag(sim, '7.4.6-77');
    await waitFor('the upgrade to start', () => recState(sim) === 'Upgrade');
    setClusterTag(sim, '7.4.6-102');
    const [line] = await waitFor('the refusal in the operator log', () => {
      const found = logErrors(sim, /will not start/);
      return found.length > 0 ? found : undefined;
    });
    // The real operator's words (RedisLabs/redis-enterprise-k8s-docs issue #89).
    assert.equal(line?.msg, 'Upgrade Error');
    assert.equal(line?.logger, 'controller_redisenterprisecluster');
    assert.equal(
      line?.error,
      "Upgrade Applied but will not start since REC Status.State is 'Upgrade' and not one of: 'Running', 'InvalidUpgrade'",
    );
    assert.equal(recState(sim), 'Upgrade');
    assert.equal(logErrors(sim, /will not start/).length, 1);
    assert.deepEqual(sim.list('v1', 'Event', sim.scenario.namespace), []);
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test('license-invalid: the upgrade fails with InvalidUpgrade and an error in the operator log', async () => {
  const sim = await startSim('license-invalid');
  try {
    const license = sim.scenario.cluster.license;
    assert.notEqual(license, 'Valid');
    const before = statusOf(sim.get('apps/v1', 'StatefulSet', 'rec')).updateRevision;
    setClusterTag(sim, '7.4.6-102');
    await waitFor('InvalidUpgrade', () => recState(sim) === 'InvalidUpgrade');
    const [line] = logErrors(sim, /license/);
    assert.match(String(line?.error), new RegExp(`license is ${license}`));
    // Nothing rolled.
    assert.equal(statusOf(sim.get('apps/v1', 'StatefulSet', 'rec')).updateRevision, before);
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test('invalid-upgrade: autoUpgrade with a digestHash answers the new operator with InvalidUpgrade', async () => {
  const sim = await startSim('invalid-upgrade');
  try {
    setOperatorImage(sim, TARGET_OPERATOR);
    await waitFor('InvalidUpgrade', () => recState(sim) === 'InvalidUpgrade');
    const rec = sim.get(...REC, 'rec');
    assert.equal(statusOf(rec).specStatus, 'Invalid');
    // The docs: InvalidUpgrade "and a warning event is raised" (RED-188354).
    const [warning] = warnings(sim, 'InvalidUpgrade');
    assert.match(warning?.message ?? '', /digestHash/);
    assert.equal(logErrors(sim, /digestHash/).length, 1);
    assert.match(warning?.message ?? '', /autoUpgradeRedisEnterprise/);
    assert.equal(
      ((rec?.spec ?? {}) as { redisEnterpriseImageSpec: { versionTag: string } }).redisEnterpriseImageSpec
        .versionTag,
      '7.4.6-22',
    );

    // Removing the digest makes the spec valid: the automatic upgrade goes ahead.
    sim.mergePatch(...REC, 'rec', { spec: { redisEnterpriseImageSpec: { digestHash: null } } });
    await waitFor('the automatic upgrade to finish', () => {
      const current = sim.get(...REC, 'rec');
      const tag = ((current?.spec ?? {}) as { redisEnterpriseImageSpec: { versionTag: string } })
        .redisEnterpriseImageSpec.versionTag;
      return tag === TARGET_TAG && recState(sim) === 'Running';
    });
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test('auto-upgrade: the cluster follows a new operator by itself', async () => {
  const sim = await startSim('auto-upgrade');
  try {
    // Nothing happens before the operator changes.
    await waitFor('a first reconcile', () => recState(sim) === 'Running');
    setOperatorImage(sim, TARGET_OPERATOR);
    await waitFor('the automatic upgrade to start', () => recState(sim) === 'Upgrade');
    await waitFor('the cluster to run the new tag', () => {
      const rec = sim.get(...REC, 'rec');
      const tag = ((rec?.spec ?? {}) as { redisEnterpriseImageSpec: { versionTag: string } })
        .redisEnterpriseImageSpec.versionTag;
      return (
        tag === TARGET_TAG &&
        recState(sim) === 'Running' &&
        sim.rest.nodes.every((n) => n.software_version === TARGET_TAG)
      );
    });
    assert.equal(logInfos(sim, /^Auto upgrade/).length, 1);
    assert.deepEqual(warnings(sim), []);
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test('from RS 8.0.22 on, the cluster upgrade invalidates every issued token', async () => {
  const sim = await startSim('happy-path');
  try {
    const admin = sim.rest.findUser('admin@example.com');
    assert.ok(admin);
    // A small step first (7.4.x keeps its tokens), then the jump to the newest release.
    const early = sim.rest.issueToken(admin, 3600);
    setClusterTag(sim, '7.4.6-102');
    await waitFor('7.4.6-102', () => recState(sim) === 'Running' && sim.rest.serverVersion === '7.4.6-102');
    assert.ok('user' in sim.rest.checkToken(early), 'tokens survive an upgrade below 8.0.22');

    const operator = releasedOperatorVersions().at(-1) ?? '';
    const target = defaultClusterTag(operator, 'kubernetes') ?? '';
    setOperatorImage(sim, operator);
    await waitFor('the new operator', () => operatorReady(sim, operator));
    const token = sim.rest.issueToken(admin, 3600);
    assert.ok('user' in sim.rest.checkToken(token));
    setClusterTag(sim, target);
    await waitFor(
      'the upgrade to finish',
      () =>
        recState(sim) === 'Running' && sim.rest.nodes[0]?.software_version === target.replace(/\.\d+$/, ''),
    );
    assert.deepEqual(sim.rest.checkToken(token), { error: 'invalid' });
    assert.ok('user' in sim.rest.checkToken(sim.rest.issueToken(admin, 60)));
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});
