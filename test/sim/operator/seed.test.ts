import assert from 'node:assert/strict';
import { test } from 'node:test';
import { registerBuiltins } from '../../../src/sim/kube/builtins.js';
import { syncCrdsWithRegistry } from '../../../src/sim/kube/crds.js';
import { ResourceRegistry } from '../../../src/sim/kube/registry.js';
import { KubeStore } from '../../../src/sim/kube/store.js';
import { decodeHelmRelease } from '../../../src/sim/operator/helm-release.js';
import { seedCluster } from '../../../src/sim/operator/index.js';
import { RestModel } from '../../../src/sim/rest/model.js';
import { loadScenario } from '../../../src/sim/scenario.js';
import { REAADB, REC, REDB, settle, startSim, statusOf } from './harness.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

test('happy-path: the cluster is seeded as a finished install left it', async () => {
  const sim = await startSim('happy-path');
  try {
    const { namespace } = sim.scenario;
    const rec = sim.get(...REC, 'rec');
    assert.equal(statusOf(rec).state, 'Running');
    assert.equal(statusOf(rec).specStatus, 'Valid');
    assert.equal((statusOf(rec).licenseStatus as { licenseState: string }).licenseState, 'Valid');
    assert.equal(
      ((rec?.spec ?? {}) as Record<string, { versionTag: string }>).redisEnterpriseImageSpec?.versionTag,
      '7.4.6-22',
    );

    const operator = sim.get('apps/v1', 'Deployment', 'redis-enterprise-operator');
    const container = ((operator?.spec ?? {}) as { template: { spec: { containers: { image: string }[] } } })
      .template.spec.containers[0];
    assert.equal(container?.image, 'redislabs/operator:7.4.6-2');
    assert.equal(statusOf(operator).readyReplicas, 1);
    for (const [kind, name] of [
      ['ServiceAccount', 'redis-enterprise-operator'],
      ['Service', 'admission'],
    ] as const) {
      assert.ok(sim.get('v1', kind, name), `${kind} ${name}`);
    }
    assert.ok(sim.get('rbac.authorization.k8s.io/v1', 'Role', 'redis-enterprise-operator'));
    assert.ok(sim.get('rbac.authorization.k8s.io/v1', 'RoleBinding', 'redis-enterprise-operator'));

    const credentials = sim.get('v1', 'Secret', 'rec');
    assert.deepEqual(credentials?.data, { username: b64('admin@example.com'), password: b64('change-me') });

    const tls = sim.get('v1', 'Secret', 'admission-tls');
    const tlsData = tls?.data as { cert: string; key: string };
    assert.match(Buffer.from(tlsData.cert, 'base64').toString(), /BEGIN CERTIFICATE/);
    assert.match(Buffer.from(tlsData.key, 'base64').toString(), /BEGIN PRIVATE KEY/);
    const webhook = sim.get(
      'admissionregistration.k8s.io/v1',
      'ValidatingWebhookConfiguration',
      'redis-enterprise-admission',
      undefined,
    );
    const entry = (
      (webhook?.webhooks ?? []) as {
        name: string;
        clientConfig: { caBundle: string; service: { namespace: string } };
      }[]
    )[0];
    assert.equal(entry?.name, 'redisenterprise.admission.redislabs');
    assert.equal(entry?.clientConfig.caBundle, tlsData.cert);
    assert.equal(entry?.clientConfig.service.namespace, namespace);

    const sts = sim.get('apps/v1', 'StatefulSet', 'rec');
    const stsStatus = statusOf(sts);
    assert.equal(stsStatus.replicas, 3);
    assert.equal(stsStatus.readyReplicas, 3);
    assert.equal(stsStatus.updatedReplicas, 3);
    assert.equal(stsStatus.currentRevision, stsStatus.updateRevision);
    assert.equal(stsStatus.observedGeneration, sts?.metadata.generation);
    const pods = sim.list('v1', 'Pod', namespace).filter((pod) => pod.metadata.name?.startsWith('rec-'));
    assert.deepEqual(pods.map((pod) => pod.metadata.name).sort(), ['rec-0', 'rec-1', 'rec-2']);
    for (const pod of pods) {
      const containers = (pod.spec as { containers: { name: string; image: string }[] }).containers;
      assert.deepEqual(
        containers.map((c) => c.name),
        ['redis-enterprise-node', 'bootstrapper'],
      );
      assert.equal(containers[0]?.image, 'redislabs/redis:7.4.6-22');
      assert.equal(pod.metadata.labels?.['controller-revision-hash'], stsStatus.updateRevision);
    }

    const databases = sim.list(...REDB, namespace);
    assert.deepEqual(databases.map((db) => db.metadata.name).sort(), ['cache', 'orders', 'sessions']);
    for (const database of databases) {
      const status = statusOf(database);
      const bdb = sim.rest.findBdb(Number(status.databaseUID));
      assert.equal(bdb?.name, database.metadata.name);
      assert.equal(status.status, 'active');
      assert.equal(status.version, '7.2');
      assert.equal(bdb?.databaseVersion, '7.2');
      assert.equal((database.spec as { redisVersion: string }).redisVersion, '7.2');
      assert.deepEqual(status.internalEndpoints, [
        { host: `${database.metadata.name}.${namespace}.svc.cluster.local`, port: bdb?.port },
      ]);
    }
    const orders = sim.rest.bdbs.find((bdb) => bdb.name === 'orders');
    assert.equal(orders?.module_list[0]?.module_name, 'search');
    assert.ok(sim.rest.findModule('search', '2.8.13'));
    assert.equal(sim.rest.nodes.length, 3);
    assert.ok(sim.rest.findUser('admin@example.com'));

    // The built-in controllers agree with the seeded state: nothing gets replaced.
    await settle();
    assert.equal(statusOf(sim.get('apps/v1', 'StatefulSet', 'rec')).updateRevision, stsStatus.updateRevision);
    assert.equal(statusOf(sim.get('apps/v1', 'Deployment', 'redis-enterprise-operator')).readyReplicas, 1);
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test('openshift: the SCC lists the cluster service account', async () => {
  const sim = await startSim('openshift');
  try {
    const scc = sim.get(
      'security.openshift.io/v1',
      'SecurityContextConstraints',
      'redis-enterprise-scc-v2',
      undefined,
    );
    assert.ok(scc);
    assert.ok((scc.users as string[]).includes('system:serviceaccount:redis:rec'));
    assert.deepEqual(scc.allowedCapabilities, ['SYS_RESOURCE']);
    const operator = sim.get('apps/v1', 'Deployment', 'redis-enterprise-operator');
    const env = (
      (operator?.spec ?? {}) as {
        template: { spec: { containers: { env: { name: string; value?: string }[] }[] } };
      }
    ).template.spec.containers[0]?.env;
    assert.equal(env?.find((e) => e.name === 'IS_OPENSHIFT')?.value, 'true');
    const sts = sim.get('apps/v1', 'StatefulSet', 'rec');
    const image = ((sts?.spec ?? {}) as { template: { spec: { containers: { image: string }[] } } }).template
      .spec.containers[0]?.image;
    assert.equal(image, 'registry.connect.redhat.com/redislabs/redis-enterprise:7.4.6-22.rhel8-openshift');
  } finally {
    await sim.close();
  }
});

test('multi-namespace: redb-role in each watched namespace and REDB_NAMESPACES', async () => {
  const sim = await startSim('multi-namespace');
  try {
    const config = sim.get('v1', 'ConfigMap', 'operator-environment-config');
    assert.deepEqual(config?.data, { REDB_NAMESPACES: 'app-a,app-b' });
    for (const namespace of ['app-a', 'app-b']) {
      assert.ok(
        sim.get('rbac.authorization.k8s.io/v1', 'Role', 'redb-role', namespace),
        `Role in ${namespace}`,
      );
      const binding = sim.get('rbac.authorization.k8s.io/v1', 'RoleBinding', 'redb-role', namespace);
      assert.deepEqual(binding?.subjects, [
        { kind: 'ServiceAccount', name: 'redis-enterprise-operator', namespace: 'redis' },
        { kind: 'ServiceAccount', name: 'rec', namespace: 'redis' },
      ]);
    }
    assert.deepEqual(
      sim
        .list(...REDB, 'app-a')
        .map((db) => db.metadata.name)
        .sort(),
      ['carts', 'orders'],
    );
    assert.equal(sim.list(...REDB, 'app-b').length, 1);
  } finally {
    await sim.close();
  }
});

test('helm-installed: objects carry helm ownership and the release Secret decodes', async () => {
  const sim = await startSim('helm-installed');
  try {
    const { namespace } = sim.scenario;
    const release = sim.scenario.operator.helmRelease ?? '';
    const operator = sim.get('apps/v1', 'Deployment', 'redis-enterprise-operator');
    assert.equal(operator?.metadata.labels?.['app.kubernetes.io/managed-by'], 'Helm');
    assert.equal(operator?.metadata.annotations?.['meta.helm.sh/release-name'], release);
    assert.equal(operator?.metadata.annotations?.['meta.helm.sh/release-namespace'], namespace);
    const secret = sim.get('v1', 'Secret', `sh.helm.release.v1.${release}.v1`);
    assert.ok(secret);
    assert.equal(secret.type, 'helm.sh/release.v1');
    assert.equal(secret.metadata.labels?.owner, 'helm');
    assert.equal(secret.metadata.labels?.status, 'deployed');
    assert.equal(secret.metadata.labels?.version, '1');
    const decoded = decodeHelmRelease(secret) as {
      name: string;
      namespace: string;
      version: number;
      info: { status: string };
      chart: { metadata: { name: string; version: string } };
      manifest: string;
    };
    assert.equal(decoded.name, release);
    assert.equal(decoded.namespace, namespace);
    assert.equal(decoded.version, 1);
    assert.equal(decoded.info.status, 'deployed');
    assert.equal(decoded.chart.metadata.name, 'redis-enterprise-operator');
    assert.equal(decoded.chart.metadata.version, sim.scenario.operator.version);
    assert.match(
      decoded.manifest,
      /# Source: redis-enterprise-operator\/templates\/operator_deployment.yaml/,
    );
    const webhookName = sim.scenario.admission.webhookName;
    const webhook = sim.get(
      'admissionregistration.k8s.io/v1',
      'ValidatingWebhookConfiguration',
      webhookName,
      undefined,
    );
    assert.ok(webhook, `webhook ${webhookName}`);
    assert.equal(webhook.metadata.annotations?.['meta.helm.sh/release-name'], release);
  } finally {
    await sim.close();
  }
});

test('active-active databases are seeded as REAADBs backed by a crdt bdb', async () => {
  const sim = await startSim('happy-path', {
    adjust: (scenario) => {
      scenario.databases.push({
        name: 'global',
        namespace: scenario.namespace,
        version: '7.2',
        uid: 50,
        modules: [],
        activeActive: true,
        participants: [],
        upgradePolicy: null,
      });
    },
  });
  try {
    const reaadb = sim.get(...REAADB, 'global');
    assert.equal(statusOf(reaadb).status, 'active');
    assert.equal(statusOf(reaadb).replicationStatus, 'up');
    assert.equal(sim.get(...REDB, 'global'), undefined);
    const bdb = sim.rest.findBdb(50);
    assert.equal(bdb?.crdt, true);
    assert.equal(bdb?.name, 'global');
  } finally {
    await sim.close();
  }
});

test('scale-1000 seeds 1,000 databases in 20 namespaces quickly', async () => {
  const scenario = loadScenario('scale-1000');
  const registry = new ResourceRegistry();
  const store = new KubeStore(registry);
  syncCrdsWithRegistry(store, registry);
  registerBuiltins(registry, scenario.platform);
  const rest = new RestModel({ serverVersion: scenario.cluster.apiVersion, nodes: scenario.cluster.nodes });
  const started = performance.now();
  await seedCluster(store, rest, scenario);
  const elapsed = performance.now() - started;
  const redbs = store.all(store.resolve(...REDB));
  assert.equal(redbs.length, 1000);
  assert.equal(new Set(redbs.map((db) => db.metadata.namespace)).size, 20);
  assert.equal(rest.bdbs.length, 1000);
  assert.equal(rest.modules.length, 100);
  assert.equal(rest.nodes.length, 9);
  assert.equal(store.all(store.resolve('v1', 'Pod')).length, 9);
  for (const db of redbs) {
    const uid = Number((db.status as { databaseUID: string }).databaseUID);
    assert.equal(rest.findBdb(uid)?.name, db.metadata.name);
  }
  // "Well under a second or two" on a quiet machine. A hang guard against a quadratic seeding
  // (minutes at 1,000 databases), not a speed target: the machine may be busy.
  assert.ok(elapsed < 60_000, `seeding took ${Math.round(elapsed)} ms`);
});

test('a REST model already built from the scenario is completed, not duplicated', async () => {
  const scenario = loadScenario('happy-path');
  const registry = new ResourceRegistry();
  const store = new KubeStore(registry);
  syncCrdsWithRegistry(store, registry);
  registerBuiltins(registry, scenario.platform);
  const rest = new RestModel({
    serverVersion: scenario.cluster.apiVersion,
    users: scenario.cluster.users,
    modules: scenario.modules,
    // Built without namespaces: the model files them under "default".
    bdbs: scenario.databases.map((db) => ({ name: db.name, version: db.version, modules: db.modules })),
  });
  await seedCluster(store, rest, scenario);
  assert.equal(rest.bdbs.length, scenario.databases.length);
  assert.equal(rest.users.length, scenario.cluster.users.length);
  assert.equal(rest.modules.length, scenario.modules.length);
  for (const db of store.all(store.resolve(...REDB))) {
    const bdb = rest.findBdb(Number((db.status as { databaseUID: string }).databaseUID));
    assert.equal(bdb?.name, db.metadata.name);
    assert.equal(bdb?.namespace, db.metadata.namespace);
  }
});
