import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { connect } from 'node:tls';
import * as k8s from '@kubernetes/client-node';
import type { KubeObject } from '../../../src/sim/kube/types.js';
import { fixtureFile, simBundleFile } from '../../helpers/fixtures.js';
import { within } from '../../helpers/wait.js';
import { seedBundleAndCluster, startTestCluster, TOKEN, type TestCluster } from './harness.js';

const NS = 'redis';
const REC = { group: 'app.redislabs.com', version: 'v1', namespace: NS, plural: 'redisenterpriseclusters' };

function until(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (predicate()) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 20);
    };
    tick();
  });
}

describe('@kubernetes/client-node against the emulator', () => {
  let cluster: TestCluster;
  let kc: k8s.KubeConfig;

  before(async () => {
    cluster = await startTestCluster({ namespace: NS });
    seedBundleAndCluster(cluster, NS, { bundle: simBundleFile(), rec: fixtureFile('rec.yaml') });
    kc = new k8s.KubeConfig();
    kc.loadFromFile(cluster.sandbox.kubeconfig);
  });
  after(() => cluster.close());

  it('gets, lists and merge-patches a custom resource', async () => {
    const api = kc.makeApiClient(k8s.CustomObjectsApi);
    const rec = (await api.getNamespacedCustomObject({ ...REC, name: 'rec' })) as KubeObject;
    assert.equal(rec.metadata.name, 'rec');
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

  it('answers a merge-style body sent as the default json-patch with 400, like the real server', async () => {
    const api = kc.makeApiClient(k8s.CustomObjectsApi);
    await assert.rejects(
      api.patchNamespacedCustomObject({ ...REC, name: 'rec', body: { spec: { nodes: 3 } } }),
      (error: k8s.ApiException<string>) => {
        assert.equal(error.code, 400);
        assert.equal(JSON.parse(error.body).kind, 'Status');
        return true;
      },
    );
  });

  it('returns 404 Status bodies that parse', async () => {
    const api = kc.makeApiClient(k8s.CustomObjectsApi);
    await assert.rejects(
      api.getNamespacedCustomObject({ ...REC, name: 'missing' }),
      (error: k8s.ApiException<string>) => {
        assert.equal(error.code, 404);
        const status = JSON.parse(error.body);
        assert.equal(status.reason, 'NotFound');
        assert.equal(status.message, 'redisenterpriseclusters.app.redislabs.com "missing" not found');
        assert.deepEqual(status.details, {
          name: 'missing',
          group: 'app.redislabs.com',
          kind: 'redisenterpriseclusters',
        });
        return true;
      },
    );
  });

  it('creates a Deployment with AppsV1Api that the default controller rolls out', async () => {
    const apps = kc.makeApiClient(k8s.AppsV1Api);
    await apps.createNamespacedDeployment({
      namespace: NS,
      body: {
        metadata: { name: 'web' },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'web', image: 'nginx:1' }] },
          },
        },
      },
    });
    let ready = 0;
    const poll = setInterval(async () => {
      const d = await apps.readNamespacedDeployment({ namespace: NS, name: 'web' });
      ready = d.status?.readyReplicas ?? 0;
    }, 50);
    try {
      await until(() => ready === 1, 'readyReplicas 1');
    } finally {
      clearInterval(poll);
    }
    const d = await apps.readNamespacedDeployment({ namespace: NS, name: 'web' });
    assert.equal(d.spec?.replicas, 1, 'replicas defaulted');
    assert.ok(d.metadata?.creationTimestamp instanceof Date);
    const patched = await apps.patchNamespacedDeployment(
      { namespace: NS, name: 'web', body: { spec: { replicas: 2 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
    );
    assert.equal(patched.spec?.replicas, 2);
  });

  it('watches from scratch, and gets 410 Expired for a compacted resourceVersion', async () => {
    const watch = new k8s.Watch(kc);
    const path = `/apis/app.redislabs.com/v1/namespaces/${NS}/redisenterpriseclusters`;
    const seen: string[] = [];
    const controller = await watch.watch(
      path,
      { fieldSelector: 'metadata.name=rec' },
      (type, object: KubeObject) => seen.push(`${type} ${object.metadata.name}`),
      () => {},
    );
    await until(() => seen.includes('ADDED rec'), 'initial ADDED');
    const oldRv = cluster.server.store.resourceVersion;
    const api = kc.makeApiClient(k8s.CustomObjectsApi);
    await api.patchNamespacedCustomObject(
      { ...REC, name: 'rec', body: { spec: { nodes: 7 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await until(() => seen.includes('MODIFIED rec'), 'MODIFIED');
    controller.abort();

    cluster.server.store.compact();
    const errors: Array<{ code?: number; reason?: string }> = [];
    const expired = await watch.watch(
      path,
      { resourceVersion: String(Number(oldRv) - 1) },
      (type, object: { code?: number; reason?: string }) => {
        if (type === 'ERROR') errors.push(object);
      },
      () => {},
    );
    await until(() => errors.length > 0, 'ERROR event');
    expired.abort();
    assert.equal(errors[0]?.code, 410);
    assert.equal(errors[0]?.reason, 'Expired');
  });

  it('sees a dropped watch end and resumes from its last resourceVersion', async () => {
    const watch = new k8s.Watch(kc);
    const path = `/apis/app.redislabs.com/v1/namespaces/${NS}/redisenterpriseclusters`;
    let lastRv = '';
    let ended = false;
    await watch.watch(
      path,
      {},
      (_type, object: KubeObject) => {
        lastRv = object.metadata.resourceVersion ?? lastRv;
      },
      () => {
        ended = true;
      },
    );
    await until(() => lastRv !== '' && cluster.server.openWatches() > 0, 'watch open');
    cluster.server.dropWatches();
    await until(() => ended, 'done callback after the drop');

    const seen: string[] = [];
    const resumed = await watch.watch(
      path,
      { resourceVersion: lastRv },
      (type, object: KubeObject) => seen.push(`${type} ${(object.spec as { nodes: number }).nodes}`),
      () => {},
    );
    const store = cluster.server.store;
    const rt = store.resolve('app.redislabs.com/v1', 'RedisEnterpriseCluster');
    const rec = store.read(rt, NS, 'rec');
    store.update(rt, { ...rec, spec: { ...(rec.spec as object), nodes: 9 } });
    await until(() => seen.includes('MODIFIED 9'), 'event after resume');
    resumed.abort();
    assert.ok(!seen.some((s) => s.startsWith('ADDED')), 'a resumed watch replays no synthetic ADDED');
  });

  it('serves a watch that waits behind an unfinished answer on its connection, and drops it', async () => {
    // Node's server holds a response back while the one before it on the same kept-alive
    // connection has not finished writing; a client that sends its watch as soon as it has read
    // the earlier answer meets this on a busy machine. Pipelined here, so it happens every time.
    await until(() => cluster.server.openWatches() === 0, 'the earlier tests’ watches to close');
    const socket = connect({ host: '127.0.0.1', port: cluster.server.port, ca: cluster.server.caPem });
    try {
      await within('the TLS connection', 10_000, once(socket, 'secureConnect'));
      let received = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => {
        received += chunk;
      });
      const closed = once(socket, 'close');
      const path = `/apis/app.redislabs.com/v1/namespaces/${NS}/redisenterpriseclusters`;
      const get = (target: string): string =>
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`;
      const rv = cluster.server.store.resourceVersion;
      socket.write(get(path) + get(`${path}?watch=true&resourceVersion=${rv}`));
      await until(() => cluster.server.openWatches() === 1, 'the waiting watch to count as open');
      const store = cluster.server.store;
      const rt = store.resolve('app.redislabs.com/v1', 'RedisEnterpriseCluster');
      const rec = store.read(rt, NS, 'rec');
      store.update(rt, { ...rec, spec: { ...(rec.spec as object), nodes: 11 } });
      await until(() => received.includes('"nodes":11'), 'the change on the waiting watch');
      cluster.server.dropWatches();
      await within('the dropped watch’s connection to close', 10_000, closed);
    } finally {
      socket.destroy();
    }
  });

  it('server-side applies with KubernetesObjectApi (create, then update)', async () => {
    const client = k8s.KubernetesObjectApi.makeApiClient(kc);
    const spec = {
      apiVersion: 'app.redislabs.com/v1alpha1',
      kind: 'RedisEnterpriseDatabase',
      metadata: { name: 'db1', namespace: NS },
      spec: { memorySize: '100MB' },
    };
    const created = await client.patch(
      spec,
      undefined,
      undefined,
      'ctl',
      true,
      k8s.PatchStrategy.ServerSideApply,
    );
    assert.equal(created.metadata?.name, 'db1');
    const updated = (await client.patch(
      { ...spec, spec: { memorySize: '200MB' } },
      undefined,
      undefined,
      'ctl',
      true,
      k8s.PatchStrategy.ServerSideApply,
    )) as KubeObject;
    assert.equal((updated.spec as { memorySize: string }).memorySize, '200MB');
    assert.equal(updated.metadata.managedFields?.[0]?.manager, 'ctl');
    assert.equal(updated.metadata.managedFields?.[0]?.operation, 'Apply');
  });
});
