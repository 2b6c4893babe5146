import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ok, startTestCluster, type TestCluster } from './harness.js';

const NS = 'apps';

/** A chart with a Deployment and a ConfigMap, written by the test (no external chart). */
function writeChart(dir: string): string {
  const chart = join(dir, 'demo');
  mkdirSync(join(chart, 'templates'), { recursive: true });
  writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 0.1.0\nappVersion: "1.0"\n');
  writeFileSync(join(chart, 'values.yaml'), 'image: nginx:1\ngreeting: hello\n');
  writeFileSync(
    join(chart, 'templates', 'deployment.yaml'),
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
  labels: {app: {{ .Release.Name }}-web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: {{ .Release.Name }}-web}
  template:
    metadata:
      labels: {app: {{ .Release.Name }}-web}
    spec:
      containers:
        - name: web
          image: {{ .Values.image }}
          ports: [{containerPort: 80}]
`,
  );
  writeFileSync(
    join(chart, 'templates', 'configmap.yaml'),
    `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
data:
  greeting: {{ .Values.greeting | quote }}
`,
  );
  return chart;
}

for (const major of [3, 4] as const) {
  describe(`real helm ${major} against the emulator`, () => {
    let cluster: TestCluster;
    let chart: string;
    before(async () => {
      cluster = await startTestCluster({ namespace: NS });
      const store = cluster.server.store;
      store.create(store.resolve('v1', 'Namespace'), { metadata: { name: NS } });
      chart = writeChart(cluster.sandbox.dir);
    });
    after(() => cluster.close());

    it('installs with --wait', async () => {
      const out = ok(
        await cluster.helm(major, [
          'install',
          'demo',
          chart,
          '--namespace',
          NS,
          '--wait',
          '--timeout',
          '60s',
        ]),
        'helm install',
      );
      assert.match(out, /STATUS: deployed/);
      const store = cluster.server.store;
      const cm = store.read(store.resolve('v1', 'ConfigMap'), NS, 'demo-config');
      assert.deepEqual(cm.data, { greeting: 'hello' });
      const releases = store.list(store.resolve('v1', 'Secret'), {
        namespace: NS,
        labelSelector: 'owner=helm',
      }).items;
      assert.equal(releases.length, 1, 'the release Secret (sent as protobuf) is stored');
      assert.equal(releases[0]?.type, 'helm.sh/release.v1');
    });

    it('upgrades with --wait to a new image', async () => {
      ok(
        await cluster.helm(major, [
          'upgrade',
          'demo',
          chart,
          '--namespace',
          NS,
          '--set',
          'image=nginx:2',
          '--set',
          'greeting=bye',
          '--wait',
          '--timeout',
          '60s',
        ]),
        'helm upgrade',
      );
      const store = cluster.server.store;
      const deployment = store.read(store.resolve('apps/v1', 'Deployment'), NS, 'demo-web');
      const containers = (deployment.spec as { template: { spec: { containers: Array<{ image: string }> } } })
        .template.spec.containers;
      assert.equal(containers[0]?.image, 'nginx:2');
      assert.equal((deployment.status as { updatedReplicas: number }).updatedReplicas, 2);
      assert.deepEqual(store.read(store.resolve('v1', 'ConfigMap'), NS, 'demo-config').data, {
        greeting: 'bye',
      });
    });

    it('lists the release and its history', async () => {
      const list = JSON.parse(
        ok(await cluster.helm(major, ['list', '--namespace', NS, '-o', 'json']), 'helm list'),
      ) as Array<{
        name: string;
        revision: string;
        status: string;
      }>;
      assert.equal(list.length, 1);
      assert.equal(list[0]?.name, 'demo');
      assert.equal(String(list[0]?.revision), '2');
      assert.equal(list[0]?.status, 'deployed');
      const history = JSON.parse(
        ok(await cluster.helm(major, ['history', 'demo', '--namespace', NS, '-o', 'json'])),
      ) as Array<{
        revision: number;
        status: string;
      }>;
      assert.deepEqual(
        history.map((h) => `${h.revision}:${h.status}`),
        ['1:superseded', '2:deployed'],
      );
    });

    it('uninstalls', async () => {
      ok(await cluster.helm(major, ['uninstall', 'demo', '--namespace', NS]), 'helm uninstall');
      const store = cluster.server.store;
      assert.equal(store.get(store.resolve('apps/v1', 'Deployment'), NS, 'demo-web'), undefined);
      assert.equal(
        store.list(store.resolve('v1', 'Pod'), { namespace: NS }).items.length,
        0,
        'pods garbage-collected',
      );
    });
  });
}
