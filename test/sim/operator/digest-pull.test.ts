import assert from 'node:assert/strict';
import { test } from 'node:test';
import { imageDigest } from '../../../src/sim/olm/objects.js';
import { REC, recState, type SimCluster, startSim, statusOf, waitFor } from './harness.js';

/**
 * A digest-pinned node image (REC ImageSpec.digestHash) is pulled by its digest, as the kubelet
 * does (src/sim/world/registry.ts): the pods run the image the digest names, and a digest the
 * registry does not hold stalls the roll at ImagePullBackOff.
 */

const FROM = '7.4.6-22';
const TARGET = '7.4.6-102';
const OTHER = '7.4.6-77';

function pinTag(sim: SimCluster, versionTag: string, digestHash: string): void {
  sim.mergePatch(...REC, sim.scenario.cluster.name, {
    spec: { redisEnterpriseImageSpec: { versionTag, digestHash } },
  });
}

interface PodView {
  image: string | undefined;
  waiting: { reason?: string; message?: string } | undefined;
  ready: boolean;
}

function nodeContainer(sim: SimCluster, pod: string): PodView {
  const object = sim.get('v1', 'Pod', pod);
  const spec = (object?.spec ?? {}) as { containers?: { name: string; image: string }[] };
  const status = statusOf(object) as {
    containerStatuses?: {
      name: string;
      ready: boolean;
      state?: { waiting?: { reason?: string; message?: string } };
    }[];
  };
  const node = status.containerStatuses?.find((c) => c.name === 'redis-enterprise-node');
  return {
    image: spec.containers?.find((c) => c.name === 'redis-enterprise-node')?.image,
    waiting: node?.state?.waiting,
    ready: node?.ready === true,
  };
}

test('the right digest: the pods run repo:tag@digest and the nodes the tag it names', async () => {
  const sim = await startSim('happy-path');
  try {
    const digest = imageDigest(`redislabs/redis:${TARGET}`);
    pinTag(sim, TARGET, digest);
    await waitFor('the upgrade to start', () => recState(sim) === 'Upgrade');
    await waitFor('the cluster to be Running again', () => recState(sim) === 'Running');
    for (const ordinal of [0, 1, 2]) {
      assert.equal(nodeContainer(sim, `rec-${ordinal}`).image, `redislabs/redis:${TARGET}@${digest}`);
    }
    for (const node of sim.rest.nodes) assert.equal(node.software_version, TARGET);
    assert.equal(sim.rest.serverVersion, TARGET);
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test('a digest of no image in the repository stalls the roll at ImagePullBackOff', async () => {
  const sim = await startSim('happy-path');
  try {
    const wrong = `sha256:${'ab'.repeat(32)}`;
    pinTag(sim, TARGET, wrong);
    await waitFor('the upgrade to start', () => recState(sim) === 'Upgrade');
    const waiting = await waitFor('rec-2 to fail its pull', () => nodeContainer(sim, 'rec-2').waiting);
    assert.equal(waiting.reason, 'ImagePullBackOff');
    assert.equal(waiting.message, `Back-off pulling image "redislabs/redis:${TARGET}@${wrong}"`);
    assert.equal(nodeContainer(sim, 'rec-2').ready, false);
    // The roll stays at that pod: the others keep the old image and the nodes the old version.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(recState(sim), 'Upgrade');
    assert.equal(nodeContainer(sim, 'rec-1').image, `redislabs/redis:${FROM}`);
    assert.equal(nodeContainer(sim, 'rec-1').ready, true);
    assert.equal(sim.rest.nodes[2]?.software_version, FROM);
    const sts = statusOf(sim.get('apps/v1', 'StatefulSet', 'rec'));
    assert.equal(sts.readyReplicas, 2);
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test('the digest of another tag runs that image, whatever versionTag says', async () => {
  const sim = await startSim('happy-path');
  try {
    // The digest of 7.4.6-77's image next to the tag 7.4.6-102: the registry serves 7.4.6-77.
    pinTag(sim, TARGET, imageDigest(`redislabs/redis:${OTHER}`));
    await waitFor('the upgrade to start', () => recState(sim) === 'Upgrade');
    await waitFor('the cluster to be Running again', () => recState(sim) === 'Running');
    for (const node of sim.rest.nodes) assert.equal(node.software_version, OTHER);
    assert.equal(sim.rest.serverVersion, OTHER);
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test("another repository's digest of the same tag names nothing in this one", async () => {
  const sim = await startSim('happy-path');
  try {
    pinTag(sim, TARGET, imageDigest(`registry.connect.redhat.com/redislabs/redis-enterprise:${TARGET}`));
    const waiting = await waitFor('rec-2 to fail its pull', () => nodeContainer(sim, 'rec-2').waiting);
    assert.equal(waiting.reason, 'ImagePullBackOff');
    assert.equal(sim.rest.nodes[2]?.software_version, FROM);
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});
