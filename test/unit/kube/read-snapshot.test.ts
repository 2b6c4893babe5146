/**
 * readSnapshot against the simulated cluster, through the real client-node and the real
 * management API client: what it reads, and that the number of requests does not grow with
 * the number of databases.
 */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectApi } from '../../../src/api/connect.js';
import { createTestIo } from '../../../src/io/test-io.js';
import { createKubeClients, loadKubeConfig } from '../../../src/kube/client.js';
import { createClusterReads } from '../../../src/kube/reads.js';
import { type SimulatedCluster, startSimulatedCluster } from '../../../src/sim/cluster.js';
import { loadScenario, parseScenario } from '../../../src/sim/scenario.js';
import { planUpgrade, REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';
import { type ManagementReaderFactory, readSnapshot, type Snapshot } from '../../../src/planning/snapshot.js';
import { resolveTarget } from '../../../src/planning/target.js';

async function snapshotOf(sim: SimulatedCluster, options: { withApi?: boolean } = {}): Promise<Snapshot> {
  const loaded = await loadKubeConfig({ kubeconfig: sim.kubeconfigPath, env: {} });
  const clients = await createKubeClients(loaded, () => {});
  const management: ManagementReaderFactory | undefined = options.withApi
    ? async ({ credentials: fromSecret }) => {
        const credentials = await fromSecret();
        const { io } = createTestIo();
        const connection = await connectApi(
          { apiUrl: sim.apiUrl, caFile: sim.caPath, insecure: false, authForm: 'auto', passwordStdin: false },
          {
            io,
            env: { CTL_USERNAME: credentials?.username ?? '', CTL_PASSWORD: credentials?.password ?? '' },
            stdin: process.stdin,
          },
        );
        return connection.client();
      }
    : undefined;
  return readSnapshot({
    kube: createClusterReads(clients),
    context: loaded.contextName,
    namespace: loaded.namespace ?? 'default',
    requiredPermissions: REQUIRED_PERMISSIONS,
    management,
  });
}

function scaled(count: number): string {
  return `
name: scaled-${count}
description: ${count} databases in 5 namespaces
operator:
  version: 7.4.6-2
cluster:
  nodes: 3
  versionTag: 7.4.6-22
generate:
  modules:
    count: 2
  databases:
    count: ${count}
    namespaces: 5
    version: "7.2"
    prefix: db
    moduleEvery: 2
`;
}

function kubeRequests(sim: SimulatedCluster): number {
  return sim.audit.entries.filter((entry) => entry.api === 'kube').length;
}

describe('readSnapshot against the simulated cluster', () => {
  let sim: SimulatedCluster;

  before(async () => {
    sim = await startSimulatedCluster({ scenario: loadScenario('happy-path'), fast: true });
  });
  after(async () => {
    await sim?.stop();
  });

  it('reads operator, cluster, databases, webhook, admission-tls, credentials, API and permissions', async () => {
    const snapshot = await snapshotOf(sim, { withApi: true });
    assert.equal(snapshot.namespace, 'redis');
    assert.equal(snapshot.dialect, 'redis');
    assert.equal(snapshot.dialectSource, 'cluster');
    assert.equal(snapshot.platform, 'kubernetes');
    assert.deepEqual(snapshot.clusterCandidates, ['rec']);
    assert.equal(snapshot.cluster?.name, 'rec');
    assert.equal(snapshot.cluster?.image.versionTag, '7.4.6-22');
    assert.equal(snapshot.cluster?.state, 'Running');
    assert.equal(snapshot.cluster?.license?.state, 'Valid');
    assert.equal(snapshot.operator?.version, '7.4.6-2');
    assert.equal(snapshot.operator?.helmRelease, undefined);
    assert.equal(snapshot.statefulSet?.name, 'rec');
    assert.deepEqual(
      snapshot.pods.map((p) => p.name),
      ['rec-0', 'rec-1', 'rec-2'],
    );
    assert.deepEqual(snapshot.databases.map((d) => d.name).sort(), ['cache', 'orders', 'sessions']);
    assert.deepEqual(
      snapshot.webhooks.map((w) => w.name),
      ['redis-enterprise-admission'],
    );
    assert.equal(snapshot.admissionTls.present, true);
    assert.equal(snapshot.credentials.present, true);
    assert.equal(snapshot.api.reachable, true, snapshot.api.error);
    assert.equal(snapshot.api.nodes.length, 3);
    assert.equal(snapshot.api.bdbs.length, 3);
    assert.ok(snapshot.api.modules.some((m) => m.module_name === 'search'));
    assert.ok(snapshot.permissions.length > 10);
    assert.ok(snapshot.permissions.every((p) => p.allowed));
    assert.deepEqual(snapshot.readErrors, []);

    const plan = planUpgrade(snapshot, resolveTarget({ to: '7.8.2-6' }));
    // The release checks warn about 7.8.2-6 itself (an advisory without a trigger here;
    // Kubernetes 1.32 is newer than its table) and about RS 7.4's end of life (2026-11-30):
    // nothing else may be less than a pass.
    const release = new Set(['release-advisories', 'release-rules', 'platform-supported']);
    const failing = plan.checks
      .filter((c) => c.status !== 'pass' && !(release.has(c.id) && c.status === 'warn'))
      .map((c) => `${c.id}: ${c.message}`);
    assert.deepEqual(failing, []);
    assert.equal(plan.blocked, false);
  });

  it('without the management API: api.reachable is false with the reason', async () => {
    const snapshot = await snapshotOf(sim);
    assert.equal(snapshot.api.reachable, false);
    assert.match(snapshot.api.error ?? '', /no management API connection/);
  });

  it('a denied permission shows up in the snapshot', async () => {
    sim.kube.accessDenials.push({ verb: 'patch', resource: 'redisenterpriseclusters' });
    try {
      const snapshot = await snapshotOf(sim);
      const denied = snapshot.permissions.filter((p) => !p.allowed);
      assert.deepEqual(
        denied.map((p) => `${p.verb} ${p.resource}`),
        ['patch redisenterpriseclusters'],
      );
    } finally {
      sim.kube.accessDenials.length = 0;
    }
  });
});

describe('readSnapshot request count', () => {
  it('is the same for 3 and for 200 databases', async () => {
    const counts: number[] = [];
    for (const count of [3, 200]) {
      const sim = await startSimulatedCluster({
        scenario: parseScenario(scaled(count), `scaled-${count}`),
        fast: true,
      });
      try {
        const before = kubeRequests(sim);
        const snapshot = await snapshotOf(sim);
        counts.push(kubeRequests(sim) - before);
        assert.equal(snapshot.databases.length, count);
        assert.equal(snapshot.watchedNamespaces.length, 5);
      } finally {
        await sim.stop();
      }
    }
    assert.equal(counts[0], counts[1], `requests: ${counts.join(' vs ')}`);
  });
});
