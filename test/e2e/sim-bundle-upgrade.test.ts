/**
 * The documented bundle upgrade (redis-facts.md §3), done by hand with the real kubectl against
 * the simulated happy-path cluster: operator bundle, then the cluster resource, then databases
 * untouched. No ctl code takes part: this proves the simulator, not the upgrader.
 */

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import {
  eventually,
  parseTable,
  REC_COLUMNS_SHARDS_LIMIT,
  type SimHarness,
  startHarness,
  versionTagPatch,
} from './sim-support.js';

const TARGET_OPERATOR = '7.8.2-6';
const TARGET_TAG = clusterTagFor(TARGET_OPERATOR) ?? '';

describe('sim: bundle upgrade of happy-path with kubectl', () => {
  let sim: SimHarness;
  before(async () => {
    // Real waits, long enough that kubectl started on a loaded machine still watches the rollouts
    // in progress instead of a done deal.
    sim = await startHarness('happy-path', { operatorStart: 3, podRestart: 1.5, databaseUpgrade: 0.2 });
  });
  after(async () => {
    await sim?.close();
  });

  test('kubectl get rec shows the real columns and a Running cluster', async () => {
    const { stdout } = await sim.kubectl(['get', 'rec']);
    const table = parseTable(stdout);
    // Operator 7.4.6-2: its REC CRD shows the licence's shard limit (sim-support.ts).
    assert.deepEqual(table.header, REC_COLUMNS_SHARDS_LIMIT);
    assert.equal(table.rows.length, 1);
    const row = table.rows[0] ?? {};
    assert.equal(row.NAME, 'rec');
    assert.equal(row.NODES, '3');
    assert.equal(row.VERSION, '7.4.6-22');
    assert.equal(row.STATE, 'Running');
    assert.equal(row['SPEC STATUS'], 'Valid');
    assert.equal(row['LICENSE STATE'], 'Valid');
    // The licence's limit (.status.licenseStatus.shardsLimit): four shards a node here.
    assert.equal(row['SHARDS LIMIT'], '12');
    assert.match(row.AGE ?? '', /^\d+[smhd]/);
  });

  test('the operator Deployment runs the scenario version, READY 1/1', async () => {
    const { stdout } = await sim.kubectl(['get', 'deployment', 'redis-enterprise-operator']);
    const row = parseTable(stdout).rows[0] ?? {};
    assert.equal(row.READY, '1/1');
    const image = await sim.kubectl([
      'get',
      'deployment/redis-enterprise-operator',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].image}',
    ]);
    assert.equal(image.stdout, 'redislabs/operator:7.4.6-2');
  });

  test('operator upgrade: apply the next bundle server-side, then rollout status', async () => {
    const bundle = await sim.download(`/bundles/${TARGET_OPERATOR}/bundle.yaml`);
    const applied = await sim.kubectl(['apply', '--server-side', '-f', bundle]);
    assert.match(applied.stdout, /deployment\.apps\/redis-enterprise-operator serverside-applied/);
    assert.match(
      applied.stdout,
      /customresourcedefinition\.apiextensions\.k8s\.io\/redisenterpriseclusters\.app\.redislabs\.com serverside-applied/,
    );
    const rollout = await sim.kubectl([
      'rollout',
      'status',
      'deployment/redis-enterprise-operator',
      '--timeout=60s',
    ]);
    assert.match(rollout.stdout, /Waiting for deployment "redis-enterprise-operator" rollout to finish/);
    assert.match(rollout.stdout, /deployment "redis-enterprise-operator" successfully rolled out/);
    const image = await sim.kubectl([
      'get',
      'deployment/redis-enterprise-operator',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].image}',
    ]);
    assert.equal(image.stdout, `redislabs/operator:${TARGET_OPERATOR}`);
  });

  test('admission: reapply webhook.yaml for the namespace, then patch in the caBundle', async () => {
    const file = await sim.download(`/bundles/${TARGET_OPERATOR}/admission/webhook.yaml`);
    const text = readFileSync(file, 'utf8');
    assert.match(text, /namespace: OPERATOR_NAMESPACE/);
    writeFileSync(file, text.replaceAll('OPERATOR_NAMESPACE', sim.cluster.scenario.namespace));
    await sim.kubectl(['apply', '--server-side', '--force-conflicts', '-f', file]);
    const cert = await eventually('Secret admission-tls', async () => {
      const result = await sim.kubectl(['get', 'secret', 'admission-tls', '-o', 'jsonpath={.data.cert}'], {
        allowFailure: true,
      });
      return result.code === 0 && result.stdout !== '' ? result.stdout : undefined;
    });
    const patch = {
      webhooks: [{ name: 'redisenterprise.admission.redislabs', clientConfig: { caBundle: cert } }],
    };
    await sim.kubectl([
      'patch',
      'validatingwebhookconfiguration',
      'redis-enterprise-admission',
      '--patch',
      JSON.stringify(patch),
    ]);
    const caBundle = await sim.kubectl([
      'get',
      'validatingwebhookconfiguration',
      'redis-enterprise-admission',
      '-o',
      'jsonpath={.webhooks[0].clientConfig.caBundle}',
    ]);
    assert.equal(caBundle.stdout, cert);
    const service = await sim.kubectl([
      'get',
      'validatingwebhookconfiguration',
      'redis-enterprise-admission',
      '-o',
      'jsonpath={.webhooks[0].clientConfig.service.namespace}',
    ]);
    assert.equal(service.stdout, 'redis');
  });

  test('cluster upgrade: merge-patch versionTag, rollout status sts/rec, wait for Running', async () => {
    await sim.kubectl(['patch', 'rec', 'rec', '--type', 'merge', '-p', versionTagPatch(sim, TARGET_TAG)]);
    const rollout = await sim.kubectl(['rollout', 'status', 'sts/rec', '--timeout=120s'], {
      timeoutMs: 150_000,
    });
    // The pods are replaced one by one: kubectl reports the partial states on the way.
    assert.match(rollout.stdout, /Waiting for/);
    assert.match(rollout.stdout, /roll out complete: 3 new pods have been updated/);
    await sim.kubectl(['wait', '--for=jsonpath={.status.state}=Running', 'rec/rec', '--timeout=60s']);
    const row = parseTable((await sim.kubectl(['get', 'rec'])).stdout).rows[0] ?? {};
    assert.equal(row.VERSION, TARGET_TAG);
    assert.equal(row.STATE, 'Running');
    // Every pod runs the new image, and the StatefulSet says its update is complete.
    const images = await sim.kubectl([
      'get',
      'pods',
      '-l',
      'redis.io/cluster=rec',
      '-o',
      'jsonpath={.items[*].spec.containers[0].image}',
    ]);
    assert.deepEqual(
      images.stdout.split(' '),
      [1, 2, 3].map(() => `redislabs/redis:${TARGET_TAG}`),
    );
    const sts = await sim.kubectl(['get', 'sts', 'rec', '-o', 'json']);
    const status = (JSON.parse(sts.stdout) as { status: Record<string, unknown> }).status;
    assert.equal(status.updatedReplicas, 3);
    assert.equal(status.readyReplicas, 3);
    assert.equal(status.currentRevision, status.updateRevision);
  });

  test('the management API nodes report the new software version (HTTPS with the CA)', async () => {
    const nodes = await eventually('nodes on the new version', async () => {
      const response = await sim.api('GET', '/v1/nodes');
      assert.equal(response.status, 200);
      const list = response.body as { software_version: string }[];
      return list.every((node) =>
        node.software_version.startsWith(TARGET_TAG.split('.').slice(0, 3).join('.')),
      )
        ? list
        : undefined;
    });
    assert.equal(nodes.length, 3);
  });

  test('the audit log recorded kubectl’s mutating requests', () => {
    const patches = sim.cluster.audit.filter(
      'PATCH',
      '/apis/app.redislabs.com/*/namespaces/redis/redisenterpriseclusters/rec',
    );
    assert.ok(patches.length >= 1, 'the merge patch of the REC was audited');
    assert.ok(patches.every((entry) => entry.api === 'kube' && entry.mutating));
  });
});
