/**
 * @kubernetes/client-node (the library ctl talks to Kubernetes with) reads and patches the
 * upstream example cluster under the upstream CRDs, served by the Kubernetes API emulator.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import type { KubeObject } from '../../src/sim/kube/types.js';
import { seedBundleAndCluster, startTestCluster, type TestCluster } from '../sim/kube/harness.js';
import { upstreamFile } from './support.js';

const NS = 'redis';
const REC = { group: 'app.redislabs.com', version: 'v1', namespace: NS, plural: 'redisenterpriseclusters' };

describe('@kubernetes/client-node with the upstream CRDs and example', () => {
  let cluster: TestCluster;
  let kc: k8s.KubeConfig;

  before(async () => {
    cluster = await startTestCluster({ namespace: NS });
    const crds = seedBundleAndCluster(cluster, NS, {
      bundle: upstreamFile('bundle.yaml'),
      rec: upstreamFile('example-rec-v1.yaml'),
    });
    assert.ok(crds.length >= 3, 'the upstream bundle holds the CRDs');
    kc = new k8s.KubeConfig();
    kc.loadFromFile(cluster.sandbox.kubeconfig);
  });
  after(() => cluster.close());

  it('gets, lists and merge-patches the example cluster', async () => {
    const api = kc.makeApiClient(k8s.CustomObjectsApi);
    const rec = (await api.getNamespacedCustomObject({ ...REC, name: 'rec' })) as KubeObject;
    assert.equal((rec.spec as { nodes: number }).nodes, 3);
    const list = (await api.listNamespacedCustomObject(REC)) as { items: KubeObject[] };
    assert.deepEqual(
      list.items.map((i) => i.metadata.name),
      ['rec'],
    );
    const patched = (await api.patchNamespacedCustomObject(
      { ...REC, name: 'rec', body: { spec: { nodes: 5 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )) as KubeObject;
    assert.equal((patched.spec as { nodes: number }).nodes, 5);
  });
});
