/**
 * readSnapshot over a fake ClusterReads: how objects become the snapshot, which reads are made,
 * and what happens when reads fail.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuthError } from '../../../src/errors.js';
import type { ClusterReads, CustomResourceType, KubeObject } from '../../../src/kube/reads.js';
import { readSnapshot } from '../../../src/planning/snapshot.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';

class ApiException extends Error {
  constructor(
    readonly code: number,
    reason: string,
  ) {
    super(`HTTP-Code: ${code}`);
    this.body = JSON.stringify({ kind: 'Status', reason, message: `${reason.toLowerCase()} (fake)`, code });
  }
  readonly body: string;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

interface World {
  clusters: KubeObject[];
  databases: KubeObject[];
  activeActive: KubeObject[];
  deployments: KubeObject[];
  configMap?: KubeObject;
  secrets: Record<string, KubeObject>;
  helmSecrets: KubeObject[];
  webhooks: KubeObject[];
  namespacesByLabel: Record<string, string[]>;
  apiGroups: string[];
  scc?: KubeObject;
  denied: Set<string>;
  fail: Partial<Record<keyof ClusterReads | 'listClusterWide', unknown>>;
}

function rec(
  name: string,
  spec: Record<string, unknown> = {},
  status: Record<string, unknown> = {},
): KubeObject {
  return {
    apiVersion: 'app.redislabs.com/v1',
    kind: 'RedisEnterpriseCluster',
    metadata: { name, namespace: 'redis', uid: `uid-${name}`, generation: 2, resourceVersion: '7' },
    spec: { nodes: 3, redisEnterpriseImageSpec: { versionTag: '7.4.6-22' }, ...spec },
    status: { state: 'Running', licenseStatus: { licenseState: 'Valid' }, ...status },
  };
}

function redb(name: string, namespace: string, clusterName?: string): KubeObject {
  return {
    metadata: { name, namespace, generation: 1 },
    spec: { redisVersion: '7.2', ...(clusterName ? { redisEnterpriseCluster: { name: clusterName } } : {}) },
    status: { version: '7.2.4', databaseUID: '3' },
  };
}

function world(overrides: Partial<World> = {}): World {
  return {
    clusters: [rec('rec')],
    databases: [redb('db1', 'redis')],
    activeActive: [],
    deployments: [
      {
        metadata: { name: 'redis-enterprise-operator', namespace: 'redis', generation: 3 },
        spec: {
          replicas: 1,
          template: {
            spec: {
              containers: [{ name: 'redis-enterprise-operator', image: 'redislabs/operator:7.4.6-2' }],
            },
          },
        },
        status: { readyReplicas: 1 },
      },
    ],
    secrets: {
      rec: {
        metadata: { name: 'rec' },
        data: { username: b64('admin@example.com'), password: b64('s3cret') },
      },
      'admission-tls': {
        metadata: { name: 'admission-tls', resourceVersion: '4' },
        data: { cert: b64('PEM') },
      },
    },
    helmSecrets: [],
    webhooks: [],
    namespacesByLabel: {},
    apiGroups: ['apps', 'app.redislabs.com'],
    denied: new Set(),
    fail: {},
    ...overrides,
  };
}

function fakeReads(w: World): { reads: ClusterReads; calls: string[] } {
  const calls: string[] = [];
  const maybeFail = (name: keyof World['fail']) => {
    if (w.fail[name] !== undefined) throw w.fail[name];
  };
  const custom = (type: CustomResourceType): KubeObject[] =>
    type.plural === 'redisenterpriseclusters'
      ? w.clusters
      : type.plural === 'redisenterprisedatabases'
        ? w.databases
        : w.activeActive;
  const reads: ClusterReads = {
    async listCustomObjects(type, namespace) {
      calls.push(`list ${type.plural} ${namespace}`);
      if (type.plural === 'redisenterpriseclusters') maybeFail('listCustomObjects');
      if (namespace === 'all') {
        maybeFail('listClusterWide');
        return custom(type);
      }
      return custom(type).filter((o) => (o.metadata?.namespace ?? 'redis') === namespace);
    },
    async getClusterCustomObject(type, name) {
      calls.push(`get ${type.plural} ${name}`);
      return w.scc;
    },
    async listDeployments(namespace) {
      calls.push(`list deployments ${namespace}`);
      return w.deployments;
    },
    async getStatefulSet(namespace, name) {
      calls.push(`get statefulset ${namespace}/${name}`);
      return { metadata: { name }, spec: { replicas: 3 }, status: { readyReplicas: 3, updatedReplicas: 3 } };
    },
    async listPods(namespace) {
      calls.push(`list pods ${namespace}`);
      return ['rec-0', 'rec-1', 'rec-services-rigger-abc', 'rec-10', 'rec-2'].map((name) => ({
        metadata: { name },
        spec: { containers: [{ name: 'redis-enterprise-node', image: 'redislabs/redis:7.4.6-22' }] },
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
      }));
    },
    async getConfigMap(namespace, name) {
      calls.push(`get configmap ${namespace}/${name}`);
      return w.configMap;
    },
    async getSecret(namespace, name) {
      calls.push(`get secret ${namespace}/${name}`);
      return w.secrets[name];
    },
    async listSecrets(namespace, labelSelector) {
      calls.push(`list secrets ${namespace} ${labelSelector}`);
      return w.helmSecrets;
    },
    async listNamespaceNames(labelSelector) {
      calls.push(`list namespaces ${labelSelector}`);
      maybeFail('listNamespaceNames');
      return w.namespacesByLabel[labelSelector] ?? [];
    },
    async listValidatingWebhookConfigurations() {
      calls.push('list webhooks');
      return w.webhooks;
    },
    async getCustomResourceDefinition(name) {
      calls.push(`get crd ${name}`);
      return undefined;
    },
    async listApiGroups() {
      calls.push('list api groups');
      return w.apiGroups;
    },
    async serverVersion() {
      return 'v1.32.0';
    },
    async reviewAccess(query) {
      calls.push(`review ${query.verb} ${query.resource} ${query.namespace ?? '(cluster)'}`);
      return { allowed: !w.denied.has(`${query.verb} ${query.resource} ${query.namespace ?? ''}`) };
    },
  };
  return { reads, calls };
}

const base = { context: 'test', namespace: 'redis', requiredPermissions: REQUIRED_PERMISSIONS };

describe('readSnapshot (fake reads)', () => {
  it('maps the objects into the snapshot and hands the Secret credentials to the management reader', async () => {
    const { reads } = fakeReads(world());
    let seen: unknown;
    const snapshot = await readSnapshot({
      ...base,
      kube: reads,
      management: async ({ credentials }) => {
        seen = await credentials();
        return {
          listModules: async () => [
            { module_name: 'search', semantic_version: '2.8.4', platforms: { 'rhel9/x86_64': {} } },
          ],
          listBdbs: async () => [{ uid: 3, name: 'db1', redis_version: '7.2' }],
          listNodes: async () => [{ uid: 1, software_version: '7.4.6-22' }],
        };
      },
    });
    assert.deepEqual(seen, { secretName: 'rec', username: 'admin@example.com', password: 's3cret' });
    assert.equal(snapshot.dialect, 'redis');
    assert.equal(snapshot.cluster?.image.versionTag, '7.4.6-22');
    assert.equal(snapshot.cluster?.generation, 2);
    assert.equal(snapshot.cluster?.serviceAccountName, 'rec');
    assert.equal(snapshot.operator?.version, '7.4.6-2');
    assert.deepEqual(
      snapshot.pods.map((p) => p.name),
      ['rec-0', 'rec-1', 'rec-2', 'rec-10'],
    );
    assert.deepEqual(snapshot.credentials, {
      name: 'rec',
      present: true,
      hasUsername: true,
      hasPassword: true,
      uid: undefined,
      resourceVersion: undefined,
      generation: undefined,
    });
    assert.ok(!JSON.stringify(snapshot).includes('s3cret'), 'the password never enters the snapshot');
    assert.equal(snapshot.admissionTls.cert, b64('PEM'));
    assert.equal(snapshot.api.reachable, true);
    assert.equal(snapshot.databases[0]?.databaseUid, '3');
  });

  it('the management API starts once the cluster is found, before its Secret answers; nothing for it without a cluster', async () => {
    // The Secret's answer is held back until the management reader has been asked for: a reader
    // with credentials from flags or env connects without waiting for it.
    let releaseSecret: () => void = () => undefined;
    const secretHeld = new Promise<void>((resolve) => {
      releaseSecret = resolve;
    });
    const { reads, calls } = fakeReads(world());
    const getSecret = reads.getSecret.bind(reads);
    reads.getSecret = async (namespace, name) => {
      if (name === 'rec') await secretHeld;
      return getSecret(namespace, name);
    };
    const order: string[] = [];
    const snapshot = await readSnapshot({
      ...base,
      kube: reads,
      management: async ({ cluster, credentials }) => {
        order.push(
          `management for ${cluster.name}, ${calls.filter((c) => c.startsWith('list redisenterprisedatabases')).length} database lists sent`,
        );
        releaseSecret();
        order.push(`secret credentials: ${(await credentials())?.username}`);
        return { listModules: async () => [], listBdbs: async () => [], listNodes: async () => [] };
      },
    });
    assert.deepEqual(order, [
      'management for rec, 0 database lists sent',
      'secret credentials: admin@example.com',
    ]);
    assert.equal(snapshot.api.reachable, true);
    assert.equal(snapshot.credentials.present, true);

    let asked = false;
    const none = await readSnapshot({
      ...base,
      kube: fakeReads(world({ clusters: [] })).reads,
      management: () => {
        asked = true;
        throw new Error('not to be asked');
      },
    });
    assert.equal(asked, false, 'no cluster resource: the management API is not contacted');
    assert.equal(none.api.reachable, false);
  });

  it('tells the operator and the platform once the first reads settle them, only when the cluster is found', async () => {
    const { reads } = fakeReads(world({ apiGroups: ['apps', 'security.openshift.io'] }));
    const told: unknown[] = [];
    const snapshot = await readSnapshot({
      ...base,
      kube: reads,
      onOperatorKnown: (basis) => told.push(basis),
    });
    assert.equal(told.length, 1);
    assert.deepEqual(told[0], {
      namespace: 'redis',
      platform: 'openshift',
      operator: snapshot.operator,
      olmOwned: false,
    });
    const none: unknown[] = [];
    await readSnapshot({
      ...base,
      kube: fakeReads(world({ clusters: [] })).reads,
      onOperatorKnown: (basis) => none.push(basis),
    });
    assert.deepEqual(none, []);
  });

  it('a management reader that throws: api.reachable false with the message', async () => {
    const { reads } = fakeReads(world());
    const snapshot = await readSnapshot({
      ...base,
      kube: reads,
      management: {
        listModules: async () => {
          throw new Error('401 Unauthorized');
        },
        listBdbs: async () => [],
        listNodes: async () => [],
      },
    });
    assert.deepEqual(snapshot.api, {
      reachable: false,
      error: '401 Unauthorized',
      modules: [],
      bdbs: [],
      nodes: [],
    });
  });

  it('several clusters and no --cluster: none picked, all listed; --cluster picks one', async () => {
    const { reads } = fakeReads(world({ clusters: [rec('a'), rec('b')] }));
    const none = await readSnapshot({ ...base, kube: reads });
    assert.equal(none.cluster, undefined);
    assert.deepEqual(none.clusterCandidates, ['a', 'b']);
    const picked = await readSnapshot({ ...base, kube: reads, clusterName: 'b' });
    assert.equal(picked.cluster?.name, 'b');
  });

  it('no CRD (404): no cluster, and the snapshot is still complete', async () => {
    const { reads } = fakeReads(world({ fail: { listCustomObjects: new ApiException(404, 'NotFound') } }));
    const snapshot = await readSnapshot({ ...base, kube: reads });
    assert.equal(snapshot.cluster, undefined);
    assert.deepEqual(snapshot.clusterCandidates, []);
  });

  it('401 and 403 on the cluster list are AuthErrors (exit 4); 403 names the permission', async () => {
    await assert.rejects(
      readSnapshot({
        ...base,
        kube: fakeReads(world({ fail: { listCustomObjects: new ApiException(401, 'Unauthorized') } })).reads,
      }),
      AuthError,
    );
    await assert.rejects(
      readSnapshot({
        ...base,
        kube: fakeReads(world({ fail: { listCustomObjects: new ApiException(403, 'Forbidden') } })).reads,
      }),
      (error: unknown) =>
        error instanceof AuthError &&
        error.exitCode === 4 &&
        /kubectl auth can-i list redisenterpriseclusters/.test(error.hint ?? ''),
    );
  });

  it('watched namespaces from REDB_NAMESPACES and REDB_NAMESPACES_LABEL; databases of other clusters are left out', async () => {
    const { reads, calls } = fakeReads(
      world({
        configMap: {
          metadata: { name: 'operator-environment-config' },
          data: { REDB_NAMESPACES: 'apps, web', REDB_NAMESPACES_LABEL: 'redis-db' },
        },
        namespacesByLabel: { 'redis-db': ['team-a', 'apps'] },
        databases: [
          redb('db1', 'redis'),
          redb('db2', 'apps', 'rec'),
          redb('db3', 'web', 'other'),
          redb('db4', 'elsewhere', 'rec'),
        ],
      }),
    );
    const snapshot = await readSnapshot({ ...base, kube: reads });
    assert.deepEqual(snapshot.watchedNamespaces, ['redis', 'apps', 'web', 'team-a']);
    assert.deepEqual(
      snapshot.databases.map((d) => `${d.namespace}/${d.name}`),
      ['redis/db1', 'apps/db2'],
    );
    // four namespaces: one cluster-wide list per kind, not one per namespace
    assert.ok(calls.includes('list redisenterprisedatabases all'));
    assert.ok(!calls.some((c) => c.startsWith('list redisenterprisedatabases apps')));
    // per-namespace permissions asked once for every namespace
    assert.ok(calls.includes('review patch redisenterprisedatabases '));
  });

  it('a forbidden cluster-wide list falls back to one list per namespace; refused everywhere-reviews are asked per namespace', async () => {
    const w = world({
      configMap: { metadata: { name: 'operator-environment-config' }, data: { REDB_NAMESPACES: 'a,b,c' } },
      databases: [redb('db1', 'redis'), redb('db2', 'b', 'rec')],
      fail: { listClusterWide: new ApiException(403, 'Forbidden') },
    });
    w.denied.add('patch redisenterprisedatabases ');
    w.denied.add('patch redisenterprisedatabases c');
    const { reads, calls } = fakeReads(w);
    const snapshot = await readSnapshot({ ...base, kube: reads });
    assert.deepEqual(
      snapshot.databases.map((d) => d.name),
      ['db1', 'db2'],
    );
    assert.ok(calls.includes('list redisenterprisedatabases c'));
    const patch = snapshot.permissions.filter(
      (p) => p.verb === 'patch' && p.resource === 'redisenterprisedatabases',
    );
    assert.deepEqual(
      patch.map((p) => [p.namespace, p.allowed]),
      [
        ['', false],
        ['redis', true],
        ['a', true],
        ['b', true],
        ['c', false],
      ],
    );
    assert.deepEqual(snapshot.readErrors, []);
  });

  it('a failing optional read is recorded, not thrown', async () => {
    const { reads } = fakeReads(
      world({
        configMap: { metadata: { name: 'x' }, data: { REDB_NAMESPACES_LABEL: 'redis-db' } },
        fail: { listNamespaceNames: new ApiException(403, 'Forbidden') },
      }),
    );
    const snapshot = await readSnapshot({ ...base, kube: reads });
    assert.deepEqual(snapshot.readErrors, ['list namespaces: forbidden (fake)']);
    assert.deepEqual(snapshot.watchedNamespaces, ['redis']);
  });

  it('helm: release from the Deployment annotations, revision and status from the release Secrets', async () => {
    const w = world({
      helmSecrets: [
        {
          metadata: {
            name: 'sh.helm.release.v1.rep.v1',
            labels: { owner: 'helm', name: 'rep', status: 'superseded', version: '1' },
          },
        },
        {
          metadata: {
            name: 'sh.helm.release.v1.rep.v2',
            labels: { owner: 'helm', name: 'rep', status: 'deployed', version: '2' },
          },
        },
        {
          metadata: {
            name: 'sh.helm.release.v1.rep.v3',
            labels: { owner: 'helm', name: 'rep', status: 'pending-upgrade', version: '3' },
          },
        },
      ],
    });
    const deployment = w.deployments[0];
    assert.ok(deployment?.metadata);
    deployment.metadata.labels = {
      'app.kubernetes.io/managed-by': 'Helm',
      'helm.sh/chart': 'redis-enterprise-operator-7.4.6-2',
    };
    deployment.metadata.annotations = {
      'meta.helm.sh/release-name': 'rep',
      'meta.helm.sh/release-namespace': 'redis',
    };
    const { reads, calls } = fakeReads(w);
    const snapshot = await readSnapshot({ ...base, kube: reads });
    assert.deepEqual(snapshot.operator?.helmRelease, {
      name: 'rep',
      namespace: 'redis',
      chart: 'redis-enterprise-operator-7.4.6-2',
    });
    assert.deepEqual(snapshot.helmRelease, {
      name: 'rep',
      namespace: 'redis',
      revision: 3,
      status: 'pending-upgrade',
      lastDeployedRevision: 2,
    });
    assert.ok(calls.includes('list secrets redis owner=helm,name=rep'));
  });

  it('OpenShift: from the API groups; the SCC is read', async () => {
    const { reads, calls } = fakeReads(
      world({
        apiGroups: ['apps', 'security.openshift.io'],
        scc: {
          metadata: { name: 'redis-enterprise-scc-v2', resourceVersion: '9' },
          users: ['system:serviceaccount:redis:rec'],
        },
      }),
    );
    const snapshot = await readSnapshot({ ...base, kube: reads });
    assert.equal(snapshot.platform, 'openshift');
    assert.deepEqual(snapshot.scc?.users, ['system:serviceaccount:redis:rec']);
    assert.ok(calls.includes('get securitycontextconstraints redis-enterprise-scc-v2'));
    assert.ok(snapshot.permissions.some((p) => p.resource === 'securitycontextconstraints'));
  });

  it('engine dialect: fields read through the dialect table', async () => {
    const { reads } = fakeReads(
      world({
        clusters: [
          {
            metadata: { name: 'rec', namespace: 'redis' },
            spec: {
              engineEnterpriseImageSpec: { versionTag: '7.4.6-22', digestHash: 'sha256:1' },
              autoUpgradeEngineEnterprise: true,
              engineUpgradePolicy: 'major',
            },
            status: { state: 'Running' },
          },
        ],
        databases: [{ metadata: { name: 'db1', namespace: 'redis' }, spec: { engineVersion: '7.2' } }],
      }),
    );
    const snapshot = await readSnapshot({ ...base, kube: reads });
    assert.equal(snapshot.dialect, 'engine');
    assert.equal(snapshot.cluster?.autoUpgrade, true);
    assert.equal(snapshot.cluster?.upgradePolicy, 'major');
    assert.equal(snapshot.cluster?.image.digestHash, 'sha256:1');
    assert.equal(snapshot.databases[0]?.versionSpec, '7.2');
  });
});
