import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../../src/sim/kube/types.js';
import { imageDigest } from '../../../src/sim/olm/objects.js';
import { listScenarios } from '../../../src/sim/scenario.js';
import {
  logInfos,
  logLines,
  REC,
  recState,
  settle,
  type SimCluster,
  startSim,
  statusOf,
  waitFor,
} from './harness.js';

/**
 * The simulated registry decides what every release image runs (src/sim/world/registry.ts):
 * the operator's image by its digest when it has one, the bootstrapper and the services rigger
 * as pulled by the kubelet (an unknown tag or digest is ImagePullBackOff on their pod), and a
 * change of the pod template that keeps the tag (another digest, repository or bootstrapper)
 * rolls the cluster's pods as any template change rolls a StatefulSet.
 */

const OPERATOR = 'redis-enterprise-operator';
const RIGGER = 'rec-services-rigger';
const FROM_TAG = '7.4.6-22';
const WRONG = `sha256:${'ab'.repeat(32)}`;

interface ContainerView {
  image: string | undefined;
  waiting: { reason?: string; message?: string } | undefined;
  ready: boolean;
}

function container(pod: KubeObject | undefined, name: string): ContainerView {
  const spec = (pod?.spec ?? {}) as { containers?: { name: string; image: string }[] };
  const status = statusOf(pod) as {
    containerStatuses?: {
      name: string;
      ready: boolean;
      state?: { waiting?: { reason?: string; message?: string } };
    }[];
  };
  const found = status.containerStatuses?.find((c) => c.name === name);
  return {
    image: spec.containers?.find((c) => c.name === name)?.image,
    waiting: found?.state?.waiting,
    ready: found?.ready === true,
  };
}

function setOperatorImage(sim: SimCluster, image: string): void {
  sim.strategicPatch('apps/v1', 'Deployment', OPERATOR, {
    spec: { template: { spec: { containers: [{ name: OPERATOR, image }] } } },
  });
}

function operatorVersionsLogged(sim: SimCluster): string[] {
  return logLines(sim)
    .filter((line) => line.msg === 'Operator Version')
    .map((line) => String(line.version));
}

/** The pods of a Deployment (through its ReplicaSets), by name. */
function deploymentPods(sim: SimCluster, name: string): KubeObject[] {
  return sim
    .list('v1', 'Pod', sim.scenario.namespace)
    .filter(
      (pod) => (pod.metadata.name ?? '').startsWith(`${name}-`) && !/^rec-\d+$/.test(pod.metadata.name ?? ''),
    );
}

function patchRec(sim: SimCluster, spec: Record<string, unknown>): void {
  sim.mergePatch(...REC, sim.scenario.cluster.name, { spec });
}

test('the operator image by tag and digest runs the release its digest names, not its tag', async () => {
  const sim = await startSim('happy-path');
  try {
    await settle();
    // The tag says 7.8.2-6; the digest is 7.8.4-8's image: the kubelet pulls 7.8.4-8.
    setOperatorImage(sim, `redislabs/operator:7.8.2-6@${imageDigest('redislabs/operator:7.8.4-8')}`);
    await waitFor('the operator upgrade in its log', () => logInfos(sim, /^Operator upgraded/).length > 0);
    assert.equal(operatorVersionsLogged(sim).at(-1), '7.8.4-8');
    const upgraded = logInfos(sim, /^Operator upgraded/)[0];
    assert.equal(upgraded?.operatorVersion, '7.8.4-8');
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

for (const withoutControllers of [false, true]) {
  const how = withoutControllers ? 'without the built-in controllers' : 'with the Deployment controller';
  test(`an operator digest the registry does not hold never runs: ImagePullBackOff, READY 0/1 (${how})`, async () => {
    const sim = await startSim('happy-path', { withoutControllers });
    try {
      await settle();
      const image = `redislabs/operator:7.8.2-6@${WRONG}`;
      setOperatorImage(sim, image);
      await waitFor('the Deployment to say READY 0/1', () => {
        const deployment = sim.get('apps/v1', 'Deployment', OPERATOR);
        const status = statusOf(deployment);
        return (
          status.observedGeneration === deployment?.metadata.generation && (status.readyReplicas ?? 0) === 0
        );
      });
      if (!withoutControllers) {
        const pod = await waitFor('the new operator pod', () =>
          deploymentPods(sim, OPERATOR).find((p) => container(p, OPERATOR).image === image),
        );
        const view = container(pod, OPERATOR);
        assert.equal(view.waiting?.reason, 'ImagePullBackOff');
        assert.equal(view.waiting?.message, `Back-off pulling image "${image}"`);
        // Recreate: the old pod went first, nothing of the operator runs.
        assert.deepEqual(
          deploymentPods(sim, OPERATOR).map((p) => container(p, OPERATOR).image),
          [image],
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(statusOf(sim.get('apps/v1', 'Deployment', OPERATOR)).readyReplicas ?? 0, 0);
      assert.equal(logInfos(sim, /^Operator upgraded/).length, 0, 'no operator of another release started');
      assert.deepEqual(sim.errors, []);
    } finally {
      await sim.close();
    }
  });
}

test('the node image at the same tag pinned by its digest rolls the pods (the template changed)', async () => {
  const sim = await startSim('happy-path');
  try {
    await settle();
    const digest = imageDigest(`redislabs/redis:${FROM_TAG}`);
    const mark = sim.changes.length;
    patchRec(sim, { redisEnterpriseImageSpec: { versionTag: FROM_TAG, digestHash: digest } });
    await waitFor('the roll to start', () => recState(sim) === 'Upgrade');
    await waitFor('the cluster to be Running again', () => recState(sim) === 'Running');
    const deleted = sim.changes
      .slice(mark)
      .filter((change) => change.resource.kind === 'Pod' && change.type === 'DELETED')
      .map((change) => change.object.metadata.name);
    assert.deepEqual(deleted, ['rec-2', 'rec-1', 'rec-0']);
    for (const ordinal of [0, 1, 2]) {
      assert.equal(
        container(sim.get('v1', 'Pod', `rec-${ordinal}`), 'redis-enterprise-node').image,
        `redislabs/redis:${FROM_TAG}@${digest}`,
      );
    }
    for (const node of sim.rest.nodes) assert.equal(node.software_version, FROM_TAG);
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test('a wrong digest at the same tag stalls the roll; the right digest at that tag lets it finish', async () => {
  const sim = await startSim('happy-path');
  try {
    await settle();
    patchRec(sim, { redisEnterpriseImageSpec: { versionTag: FROM_TAG, digestHash: WRONG } });
    const stuck = await waitFor(
      'rec-2 to fail its pull',
      () => container(sim.get('v1', 'Pod', 'rec-2'), 'redis-enterprise-node').waiting,
    );
    assert.equal(stuck.reason, 'ImagePullBackOff');
    assert.equal(recState(sim), 'Upgrade');
    const digest = imageDigest(`redislabs/redis:${FROM_TAG}`);
    patchRec(sim, { redisEnterpriseImageSpec: { digestHash: digest } });
    await waitFor('the cluster to be Running again', () => recState(sim) === 'Running');
    for (const ordinal of [0, 1, 2]) {
      const node = container(sim.get('v1', 'Pod', `rec-${ordinal}`), 'redis-enterprise-node');
      assert.equal(node.image, `redislabs/redis:${FROM_TAG}@${digest}`);
      assert.equal(node.ready, true);
    }
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test('a pinned bootstrapper image of no release stalls the roll at ImagePullBackOff on that container', async () => {
  const sim = await startSim('happy-path');
  try {
    await settle();
    const image = 'redislabs/operator:7.4.6-99';
    patchRec(sim, { bootstrapperImageSpec: { repository: 'redislabs/operator', versionTag: '7.4.6-99' } });
    await waitFor('the roll to start', () => recState(sim) === 'Upgrade');
    const pod = await waitFor('rec-2 to fail its pull', () => {
      const candidate = sim.get('v1', 'Pod', 'rec-2');
      return container(candidate, 'bootstrapper').waiting?.reason === 'ImagePullBackOff' && candidate;
    });
    assert.equal(container(pod, 'bootstrapper').image, image);
    assert.equal(container(pod, 'bootstrapper').waiting?.message, `Back-off pulling image "${image}"`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(recState(sim), 'Upgrade');
    assert.equal(
      container(sim.get('v1', 'Pod', 'rec-1'), 'bootstrapper').image,
      'redislabs/operator:7.4.6-2',
    );
    assert.equal(statusOf(sim.get('apps/v1', 'StatefulSet', 'rec')).readyReplicas, 2);
    // A bootstrapper of a release (the right one) lets the roll go on and finish.
    patchRec(sim, { bootstrapperImageSpec: { versionTag: '7.4.6-2' } });
    await waitFor('the cluster to be Running again', () => recState(sim) === 'Running');
    assert.equal(
      container(sim.get('v1', 'Pod', 'rec-0'), 'bootstrapper').image,
      'redislabs/operator:7.4.6-2',
    );
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test('the services rigger runs as a Deployment; a pinned digest it cannot pull leaves its new pod in ImagePullBackOff, the old one running', async () => {
  const sim = await startSim('happy-path');
  try {
    await settle();
    const seeded = deploymentPods(sim, RIGGER);
    assert.equal(seeded.length, 1);
    assert.equal(container(seeded[0], 'services-rigger').image, 'redislabs/k8s-controller:7.4.6-2');
    assert.equal(container(seeded[0], 'services-rigger').ready, true);

    const image = `redislabs/k8s-controller:7.4.6-2@${WRONG}`;
    patchRec(sim, { redisEnterpriseServicesRiggerImageSpec: { versionTag: '7.4.6-2', digestHash: WRONG } });
    const failing = await waitFor('the rigger pod that cannot pull', () =>
      deploymentPods(sim, RIGGER).find((p) => container(p, 'services-rigger').image === image),
    );
    assert.equal(container(failing, 'services-rigger').waiting?.reason, 'ImagePullBackOff');
    await settle();
    // RollingUpdate keeps the old pod until a new one is available: it never is.
    const pods = deploymentPods(sim, RIGGER);
    assert.equal(pods.length, 2);
    assert.ok(
      pods.some(
        (p) =>
          container(p, 'services-rigger').image === 'redislabs/k8s-controller:7.4.6-2' &&
          container(p, 'services-rigger').ready,
      ),
    );
    const status = statusOf(sim.get('apps/v1', 'Deployment', RIGGER));
    assert.equal(status.replicas, 2);
    assert.equal(status.updatedReplicas, 1);
    assert.equal(status.availableReplicas, 1);
    assert.equal(recState(sim), 'Running', 'the rigger is no part of the node roll');

    // The digest of the release's own rigger image: the new pod runs, the old one goes.
    const digest = imageDigest('redislabs/k8s-controller:7.4.6-2');
    patchRec(sim, { redisEnterpriseServicesRiggerImageSpec: { digestHash: digest } });
    await waitFor('one rigger pod, ready, at the digest', () => {
      const now = deploymentPods(sim, RIGGER);
      return (
        now.length === 1 &&
        container(now[0], 'services-rigger').image === `redislabs/k8s-controller:7.4.6-2@${digest}` &&
        container(now[0], 'services-rigger').ready
      );
    });
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

// The seed writes the pod templates the operator would have written for each scenario's spec
// (digests, pinned images): no scenario starts by rolling its cluster or its services rigger.
for (const { name } of listScenarios()) {
  test(`${name}: the simulation starts without a roll (templates as the spec asks)`, async () => {
    const sim = await startSim(name);
    try {
      const mark = sim.changes.length;
      await settle(40);
      const replaced = sim.changes
        .slice(mark)
        .filter((change) => change.resource.kind === 'Pod' && change.type === 'DELETED')
        .map((change) => change.object.metadata.name);
      assert.deepEqual(replaced, []);
      assert.notEqual(recState(sim), 'Upgrade');
      // What the operator writes (an OLM install's operator Deployment is OLM's, adopted at seed time).
      for (const [kind, objectName] of [
        ['StatefulSet', sim.scenario.cluster.name],
        ['Deployment', `${sim.scenario.cluster.name}-services-rigger`],
      ] as const) {
        const object = sim.get('apps/v1', kind, objectName);
        assert.equal(object?.metadata.generation, 1, `${kind} ${objectName} kept its template`);
      }
      assert.deepEqual(sim.errors, []);
    } finally {
      await sim.close();
    }
  });
}
