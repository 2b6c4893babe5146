import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeApiError } from '../../../src/sim/kube/status.js';
import type { KubeObject } from '../../../src/sim/kube/types.js';
import { startTestCluster, type TestCluster, TOKEN } from './harness.js';

function rejectsWith(fn: () => unknown, code: number, reason: string): void {
  assert.throws(fn, (error: KubeApiError) => {
    assert.equal(error.code, code, error.message);
    assert.equal(error.reason, reason);
    return true;
  });
}

describe('the emulator store and HTTP semantics', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startTestCluster({ platform: 'openshift' });
  });
  after(() => cluster.close());

  const api = async (path: string, init: RequestInit & { accept?: string } = {}): Promise<Response> => {
    const { Agent } = await import('undici');
    return fetch(`${cluster.server.url}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        accept: init.accept ?? 'application/json',
        ...(init.headers as object),
      },
      // @ts-expect-error undici's dispatcher option is not in the DOM RequestInit type
      dispatcher: new Agent({ connect: { ca: cluster.server.caPem } }),
    });
  };

  it('creates with generateName, refuses duplicates and missing namespaces', () => {
    const { store } = cluster.server;
    const cm = store.resolve('v1', 'ConfigMap');
    const created = store.create(cm, {
      metadata: { generateName: 'cfg-', namespace: 'default' },
      data: { a: '1' },
    });
    assert.match(created.metadata.name ?? '', /^cfg-[a-z0-9]{5}$/);
    assert.ok(created.metadata.uid);
    rejectsWith(
      () => store.create(cm, { metadata: { name: created.metadata.name, namespace: 'default' } }),
      409,
      'AlreadyExists',
    );
    rejectsWith(() => store.create(cm, { metadata: { name: 'x', namespace: 'nowhere' } }), 404, 'NotFound');
  });

  it('detects stale resourceVersions and keeps status on main writes', () => {
    const { store } = cluster.server;
    const sts = store.resolve('apps/v1', 'StatefulSet');
    const created = store.create(sts, {
      metadata: { name: 'db', namespace: 'default', annotations: { 'sim.ctl.dev/controller': 'test' } },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } } } },
      status: { replicas: 9 },
    });
    assert.equal(created.status, undefined);
    assert.deepEqual((created.spec as { updateStrategy: unknown }).updateStrategy, {
      type: 'RollingUpdate',
      rollingUpdate: { partition: 0 },
    });
    const withStatus = store.updateStatus(sts, {
      ...created,
      status: { replicas: 1 },
      spec: { replicas: 5 },
    });
    assert.equal((withStatus.spec as { replicas: number }).replicas, 1, '/status writes change only status');
    assert.equal(withStatus.metadata.generation, 1);
    rejectsWith(() => store.update(sts, created), 409, 'Conflict');
    const updated = store.update(sts, {
      ...withStatus,
      spec: { ...(withStatus.spec as object), replicas: 3 },
      status: {},
    });
    assert.deepEqual(updated.status, { replicas: 1 });
    assert.equal(updated.metadata.generation, 2);
  });

  it('keeps objects with finalizers until the last one goes, and collects dependents', () => {
    const { store } = cluster.server;
    const cm = store.resolve('v1', 'ConfigMap');
    const owner = store.create(cm, {
      metadata: { name: 'owner', namespace: 'default', finalizers: ['x/y'] },
    });
    store.create(cm, {
      metadata: {
        name: 'child',
        namespace: 'default',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid ?? '' },
        ],
      },
    });
    const { deleted, object } = store.delete(cm, 'default', 'owner');
    assert.equal(deleted, false);
    assert.ok(object.metadata.deletionTimestamp);
    store.update(cm, { ...object, metadata: { ...object.metadata, finalizers: [] } });
    assert.equal(store.get(cm, 'default', 'owner'), undefined);
    assert.equal(store.get(cm, 'default', 'child'), undefined, 'background garbage collection');
  });

  it('pages lists with limit and continue, and filters by labels and fields', () => {
    const { store } = cluster.server;
    const secret = store.resolve('v1', 'Secret');
    for (const name of ['s1', 's2', 's3']) {
      store.create(secret, {
        metadata: { name, namespace: 'default', labels: { tier: name === 's2' ? 'b' : 'a' } },
        stringData: { k: 'v' },
      });
    }
    const s1 = store.read(secret, 'default', 's1');
    assert.deepEqual(s1.data, { k: Buffer.from('v').toString('base64') });
    assert.equal(s1.type, 'Opaque');
    const first = store.list(secret, { namespace: 'default', limit: 2 });
    assert.equal(first.items.length, 2);
    assert.equal(first.remainingItemCount, 1);
    const second = store.list(secret, { namespace: 'default', limit: 2, continue: first.continue });
    assert.deepEqual(
      second.items.map((i) => i.metadata.name),
      ['s3'],
    );
    assert.equal(store.list(secret, { labelSelector: 'tier in (a),tier!=b' }).items.length, 2);
    assert.equal(
      store.list(secret, { fieldSelector: 'metadata.name=s2,metadata.namespace=default' }).items.length,
      1,
    );
  });

  it('serves a list as the bytes of the whole list serialised, each item kept until its object changes', async () => {
    const { store } = cluster.server;
    const cm = store.resolve('v1', 'ConfigMap');
    for (const name of ['l1', 'l2', 'l3', 'l4']) {
      store.create(
        cm,
        {
          metadata: {
            name,
            namespace: 'default',
            labels: { set: 'lists', odd: String(name.endsWith('1') || name.endsWith('3')) },
          },
          data: { text: `ünïcode "quoted" \u2028 ${name}` },
        },
        { fieldManager: 'kubectl-client-side-apply' },
      );
    }
    // What the list served before each item's text was kept: the list serialised whole.
    const expected = (query: {
      labelSelector?: string;
      fieldSelector?: string;
      limit?: number;
      continue?: string;
    }) => {
      const result = store.list(cm, { namespace: 'default', ...query });
      const metadata: Record<string, unknown> = { resourceVersion: result.resourceVersion };
      if (result.continue) metadata.continue = result.continue;
      if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount;
      return JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata, items: result.items });
    };
    const served = async (query: string) => {
      const response = await api(`/api/v1/namespaces/default/configmaps?${query}`);
      assert.equal(response.status, 200);
      const text = await response.text();
      assert.equal(response.headers.get('content-length'), String(Buffer.byteLength(text)));
      return text;
    };
    const check = async () => {
      assert.equal(await served('labelSelector=set%3Dlists'), expected({ labelSelector: 'set=lists' }));
      assert.equal(
        await served('labelSelector=set%3Dlists,odd%3Dtrue'),
        expected({ labelSelector: 'set=lists,odd=true' }),
      );
      assert.equal(
        await served('fieldSelector=metadata.name%3Dl2'),
        expected({ fieldSelector: 'metadata.name=l2' }),
      );
      const first = store.list(cm, { namespace: 'default', labelSelector: 'set=lists', limit: 2 });
      assert.equal(
        await served('labelSelector=set%3Dlists&limit=2'),
        expected({ labelSelector: 'set=lists', limit: 2 }),
      );
      assert.ok(first.continue, 'a second page');
      assert.equal(
        await served(`labelSelector=set%3Dlists&limit=2&continue=${first.continue}`),
        expected({ labelSelector: 'set=lists', limit: 2, continue: first.continue }),
      );
      assert.equal(await served('labelSelector=nothing%3Dhere'), expected({ labelSelector: 'nothing=here' }));
    };
    await check();
    await check(); // served again from the kept texts
    const patched = await api('/api/v1/namespaces/default/configmaps/l2', {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ data: { text: 'changed' } }),
    });
    assert.equal(patched.status, 200);
    store.delete(cm, 'default', 'l4');
    await check();
    const list = JSON.parse(await served('labelSelector=set%3Dlists')) as { items: KubeObject[] };
    assert.deepEqual(
      list.items.map((item) => [item.metadata.name, item.data]),
      [
        ['l1', { text: 'ünïcode "quoted" \u2028 l1' }],
        ['l2', { text: 'changed' }],
        ['l3', { text: 'ünïcode "quoted" \u2028 l3' }],
      ],
    );
    assert.ok(list.items.every((item) => (item.metadata.managedFields ?? []).length > 0));
  });

  it('answers bad json patches with 400 and honours dry-run', async () => {
    const bad = await api('/api/v1/namespaces/default/secrets/s1', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json-patch+json' },
      body: '{"data":{}}',
    });
    assert.equal(bad.status, 400);
    const status = (await bad.json()) as { kind: string; status: string; reason: string };
    assert.equal(status.kind, 'Status');
    assert.equal(status.reason, 'BadRequest');
    const dry = await api('/api/v1/namespaces/default/configmaps?dryRun=All', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { name: 'dry' } }),
    });
    assert.equal(dry.status, 201);
    const { store } = cluster.server;
    assert.equal(store.get(store.resolve('v1', 'ConfigMap'), 'default', 'dry'), undefined);
  });

  it('requires the bearer token', async () => {
    const response = await fetch(`${cluster.server.url}/api/v1/namespaces`, {
      // @ts-expect-error undici's dispatcher option is not in the DOM RequestInit type
      dispatcher: new (await import('undici')).Agent({ connect: { ca: cluster.server.caPem } }),
    });
    assert.equal(response.status, 401);
    assert.equal(((await response.json()) as { reason: string }).reason, 'Unauthorized');
  });

  it('serves both discovery forms, OpenShift SCCs and access reviews', async () => {
    const aggregated = await api('/apis', {
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
    });
    assert.equal(
      aggregated.headers.get('content-type'),
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    );
    const groups = ((await aggregated.json()) as { items: Array<{ metadata: { name: string } }> }).items.map(
      (i) => i.metadata.name,
    );
    assert.ok(groups.includes('security.openshift.io'));
    const legacy = (await (await api('/apis/apps/v1')).json()) as {
      kind: string;
      resources: Array<{ name: string }>;
    };
    assert.equal(legacy.kind, 'APIResourceList');
    assert.ok(legacy.resources.some((r) => r.name === 'deployments/status'));

    cluster.server.accessDenials.push({ verb: 'delete', resource: 'secrets' });
    const review = async (verb: string) =>
      (await (
        await api('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            spec: { resourceAttributes: { verb, resource: 'secrets', namespace: 'default' } },
          }),
        })
      ).json()) as { status: { allowed: boolean } };
    assert.equal((await review('get')).status.allowed, true);
    assert.equal((await review('delete')).status.allowed, false);

    // OpenAPI v2: JSON on request, protobuf for kubectl 1.27/1.28 (proven by the minor-28 kubectl tests).
    const swagger = (await (await api('/openapi/v2')).json()) as {
      swagger: string;
      paths: Record<string, { patch?: { parameters: Array<{ name: string }> } & Record<string, unknown> }>;
    };
    assert.equal(swagger.swagger, '2.0');
    const scc = swagger.paths['/apis/security.openshift.io/v1/securitycontextconstraints/{name}']?.patch;
    assert.deepEqual(scc?.['x-kubernetes-group-version-kind'], {
      group: 'security.openshift.io',
      version: 'v1',
      kind: 'SecurityContextConstraints',
    });
    assert.ok(scc?.parameters.some((p) => p.name === 'fieldValidation'));
    const protobufAnswer = await api('/openapi/v2', {
      accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
    });
    assert.equal(
      protobufAnswer.headers.get('content-type'),
      'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
    );
    assert.ok((await protobufAnswer.arrayBuffer()).byteLength > 0);
  });

  it('ends a WatchList with the initial-events-end bookmark', async () => {
    const response = await api(
      '/api/v1/namespaces/default/secrets?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1',
    );
    const lines = (await response.text())
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as { type: string; object: { metadata: { annotations?: Record<string, string> } } },
      );
    assert.deepEqual(
      lines.map((l) => l.type),
      ['ADDED', 'ADDED', 'ADDED', 'BOOKMARK'],
    );
    assert.equal(lines[3]?.object.metadata.annotations?.['k8s.io/initial-events-end'], 'true');
  });
});
