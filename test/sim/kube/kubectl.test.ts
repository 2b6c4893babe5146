import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CONTROLLER_ANNOTATION } from '../../../src/sim/kube/controllers/controller.js';
import { fixtureFile, simBundleFile } from '../../helpers/fixtures.js';
import { KUBECTL_MINORS, kubectlPath, runTool } from '../../helpers/tools.js';
import { ok, startTestCluster, type TestCluster } from './harness.js';

const NS = 'redis';

async function withNamespace(cluster: TestCluster): Promise<void> {
  cluster.server.store.create(cluster.server.store.resolve('v1', 'Namespace'), { metadata: { name: NS } });
}

function recType(cluster: TestCluster) {
  return cluster.server.store.resolve('app.redislabs.com/v1', 'RedisEnterpriseCluster');
}

/** Moves a REC's status the way the operator would, through the status subresource. */
function setRecStatus(cluster: TestCluster, status: Record<string, unknown>): void {
  const store = cluster.server.store;
  const rec = store.read(recType(cluster), NS, 'rec');
  store.updateStatus(recType(cluster), { ...rec, status });
}

// Each proven client against a server of its own minor (test/helpers/tools.ts): 1.28 reads
// protobuf OpenAPI v2 before apply, 1.32 and 1.35 read OpenAPI v3 and aggregated discovery. All
// three get the same checks. The three minors side by side (each its own server); the checks of
// one minor build on each other, so they run in order.
describe('real kubectl, each minor against its own server', { concurrency: true }, () => {
  for (const minor of KUBECTL_MINORS.map(String)) {
    describe(`real kubectl against server minor ${minor}`, { concurrency: false }, () => {
      let cluster: TestCluster;
      before(async () => {
        cluster = await startTestCluster({ version: { major: '1', minor }, namespace: NS });
        await withNamespace(cluster);
      });
      after(() => cluster.close());

      it(`runs kubectl 1.${minor}`, async () => {
        const out = ok(await cluster.kubectl(['version', '-o', 'json']));
        const { clientVersion, serverVersion } = JSON.parse(out);
        assert.equal(clientVersion.minor, minor);
        assert.equal(serverVersion.minor, minor);
      });

      it('applies the simulated operator bundle client-side, then a cluster resource', async () => {
        ok(await cluster.kubectl(['apply', '-f', simBundleFile()]), 'apply bundle');
        const out = ok(await cluster.kubectl(['apply', '-f', fixtureFile('rec.yaml')]), 'apply rec');
        assert.match(out, /redisenterprisecluster.app.redislabs.com\/rec created/);
        const rec = cluster.server.store.read(recType(cluster), NS, 'rec');
        assert.equal((rec.spec as { nodes: number }).nodes, 3);
        assert.equal(rec.status, undefined, 'create drops .status of a kind with a status subresource');
      });

      it('applies changes to existing objects client-side as patches', async () => {
        const { parseAllDocuments, stringify } = await import('yaml');
        const deployment = parseAllDocuments(readFileSync(simBundleFile(), 'utf8'))
          .map((d) => d.toJSON())
          .find((d) => d?.kind === 'Deployment');
        deployment.spec.template.spec.containers[0].env.push({ name: 'CTL_TEST', value: 'patched' });
        const file = join(cluster.sandbox.dir, 'operator.yaml');
        writeFileSync(file, stringify(deployment));
        const out = ok(await cluster.kubectl(['apply', '-f', file]), 'apply changed deployment');
        assert.match(out, /deployment.apps\/redis-enterprise-operator configured/);
        const stored = cluster.server.store.read(
          cluster.server.store.resolve('apps/v1', 'Deployment'),
          NS,
          'redis-enterprise-operator',
        );
        const env = (stored.spec as typeof deployment.spec).template.spec.containers[0].env;
        assert.deepEqual(env.at(-1), { name: 'CTL_TEST', value: 'patched' });
        assert.equal(env.length, deployment.spec.template.spec.containers[0].env.length, 'no list item lost');

        const rec = join(cluster.sandbox.dir, 'rec.yaml');
        writeFileSync(rec, readFileSync(fixtureFile('rec.yaml'), 'utf8').replace(/nodes: 3/, 'nodes: 5'));
        assert.match(ok(await cluster.kubectl(['apply', '-f', rec]), 'apply rec nodes 5'), /rec configured/);
        assert.equal(
          (cluster.server.store.read(recType(cluster), NS, 'rec').spec as { nodes: number }).nodes,
          5,
        );
        ok(await cluster.kubectl(['apply', '-f', fixtureFile('rec.yaml')]), 'apply rec back');
        assert.equal(
          (cluster.server.store.read(recType(cluster), NS, 'rec').spec as { nodes: number }).nodes,
          3,
        );
      });

      it('prints the CRD printer columns through a server-side Table', async () => {
        setRecStatus(cluster, { state: 'Running', specStatus: 'Valid' });
        const out = ok(await cluster.kubectl(['get', 'rec']), 'get rec');
        const [header, row] = out.trim().split('\n');
        // The columns of the REC CRD this test server installs, an operator's before 7.8.6-1:
        // Shards Limit after License State (src/sim/crds.ts clusterPrinterColumns, from the
        // upstream bundles; e2e/sim-rec-license.test.ts follows them across an upgrade).
        assert.match(
          header ?? '',
          /^NAME\s+NODES\s+VERSION\s+STATE\s+SPEC STATUS\s+LICENSE STATE\s+SHARDS LIMIT\s+LICENSE EXPIRATION DATE\s+AGE$/,
        );
        assert.match(row ?? '', /^rec\s+3\s+.*Running\s+Valid/);
      });

      it('reads fields with -o jsonpath', async () => {
        const out = ok(
          await cluster.kubectl(['get', 'rec', 'rec', '-o', 'jsonpath={.status.state}/{.spec.nodes}']),
        );
        assert.equal(out, 'Running/3');
      });

      it('patches with --type merge and --type json', async () => {
        ok(
          await cluster.kubectl(['patch', 'rec', 'rec', '--type', 'merge', '-p', '{"spec":{"nodes":5}}']),
          'merge',
        );
        ok(
          await cluster.kubectl([
            'patch',
            'rec',
            'rec',
            '--type',
            'json',
            '-p',
            '[{"op":"replace","path":"/spec/nodes","value":7}]',
          ]),
          'json',
        );
        const rec = cluster.server.store.read(recType(cluster), NS, 'rec');
        assert.equal((rec.spec as { nodes: number }).nodes, 7);
        assert.equal(
          rec.metadata.generation,
          5,
          'each spec change bumps generation (two applies, two patches)',
        );
        assert.deepEqual((rec.status as { state: string }).state, 'Running', 'main writes keep the status');
      });

      it('refuses a strategic merge patch on a custom resource with 415', async () => {
        const result = await cluster.kubectl(['patch', 'rec', 'rec', '-p', '{"spec":{"nodes":3}}']);
        assert.equal(result.code, 1);
        assert.match(result.stderr, /application\/strategic-merge-patch\+json is not supported/);
      });

      it('rejects an invalid cluster with 422 naming the field', async () => {
        const file = join(cluster.sandbox.dir, 'bad-rec.yaml');
        writeFileSync(
          file,
          'apiVersion: app.redislabs.com/v1\nkind: RedisEnterpriseCluster\nmetadata:\n  name: bad\nspec:\n  nodes: three\n',
        );
        const result = await cluster.kubectl(['apply', '-f', file]);
        assert.equal(result.code, 1);
        assert.match(result.stderr, /RedisEnterpriseCluster "bad" is invalid: spec\.nodes: Invalid value/);
        assert.match(result.stderr, /spec\.nodes/);
      });

      // test/upstream/kubectl.test.ts: unknown fields under the upstream CRD, whose spec is not
      // x-kubernetes-preserve-unknown-fields as the simulator's is.
      it('applies the bundle again server-side, and a database; deletes it', async () => {
        const out = ok(
          await cluster.kubectl(['apply', '--server-side', '-f', simBundleFile()]),
          'ssa bundle',
        );
        assert.match(out, /deployment.apps\/redis-enterprise-operator serverside-applied/);
        ok(await cluster.kubectl(['apply', '--server-side', '-f', simBundleFile()]), 'ssa bundle twice');
        const deployment = cluster.server.store.read(
          cluster.server.store.resolve('apps/v1', 'Deployment'),
          NS,
          'redis-enterprise-operator',
        );
        const managers = (deployment.metadata.managedFields ?? []).map((m) => `${m.manager}/${m.operation}`);
        assert.ok(managers.includes('kubectl/Apply'), managers.join(','));
        assert.ok(!managers.includes('kubectl-client-side-apply/Update'), 'the CSA->SSA migration ran once');

        ok(await cluster.kubectl(['apply', '-f', fixtureFile('redb.yaml')]), 'apply redb');
        ok(await cluster.kubectl(['get', 'redb', 'redb']), 'get redb');
        const deleted = ok(await cluster.kubectl(['delete', 'redb', 'redb']), 'delete redb');
        assert.match(deleted, /deleted/);
        const missing = await cluster.kubectl(['get', 'redb', 'redb']);
        assert.equal(missing.code, 1);
        assert.match(
          missing.stderr,
          /Error from server \(NotFound\): redisenterprisedatabases.app.redislabs.com "redb" not found/,
        );
      });

      it('waits for a Deployment rollout driven by the default controller', async () => {
        const out = ok(
          await cluster.kubectl([
            'rollout',
            'status',
            'deployment/redis-enterprise-operator',
            '--timeout=30s',
          ]),
          'rollout deployment',
        );
        assert.match(out, /successfully rolled out/);
        const table = ok(
          await cluster.kubectl(['get', 'deployment', 'redis-enterprise-operator', '-o', 'wide']),
        );
        assert.match(
          table,
          /redis-enterprise-operator\s+1\/1\s+1\s+1\s+\S+\s+redis-enterprise-operator,admission/,
        );
      });

      it('waits for a StatefulSet rollout whose status the test moves', async () => {
        const store = cluster.server.store;
        const sts = store.resolve('apps/v1', 'StatefulSet');
        store.create(sts, {
          metadata: { name: 'rec', namespace: NS, annotations: { [CONTROLLER_ANNOTATION]: 'test' } },
          spec: {
            replicas: 3,
            selector: { matchLabels: { app: 'rec' } },
            serviceName: 'rec',
            template: {
              metadata: { labels: { app: 'rec' } },
              spec: { containers: [{ name: 'redis', image: 'redis:7' }] },
            },
          },
        });
        const waiting = cluster.kubectl(['rollout', 'status', 'statefulset/rec', '--timeout=30s']);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const current = store.read(sts, NS, 'rec');
        assert.equal(
          current.status,
          undefined,
          'the claimed StatefulSet is left alone by the default controller',
        );
        store.updateStatus(sts, {
          ...current,
          status: {
            observedGeneration: 1,
            replicas: 3,
            readyReplicas: 3,
            currentReplicas: 3,
            updatedReplicas: 3,
            availableReplicas: 3,
            currentRevision: 'rec-1',
            updateRevision: 'rec-1',
          },
        });
        const out = ok(await waiting, 'rollout statefulset');
        assert.match(out, /partitioned roll out complete|roll out complete/);
      });

      it('waits for a jsonpath condition', async () => {
        setRecStatus(cluster, { state: 'Upgrade' });
        const waiting = cluster.kubectl([
          'wait',
          '--for=jsonpath={.status.state}=Running',
          'rec/rec',
          '--timeout=30s',
        ]);
        await new Promise((resolve) => setTimeout(resolve, 500));
        setRecStatus(cluster, { state: 'Running' });
        const out = ok(await waiting, 'wait');
        assert.match(out, /condition met/);
        const timeout = await cluster.kubectl([
          'wait',
          '--for=jsonpath={.status.state}=Gone',
          'rec/rec',
          '--timeout=1s',
        ]);
        assert.equal(timeout.code, 1);
        assert.match(timeout.stderr, /timed out waiting for the condition/);
      });

      it('deletes a webhook configuration held by a finalizer once the finalizer goes', async () => {
        const store = cluster.server.store;
        const vwc = store.resolve('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration');
        store.create(vwc, {
          metadata: { name: 'redis-enterprise-admission', finalizers: ['test/hold'] },
          webhooks: [],
        });
        const deleting = cluster.kubectl([
          'delete',
          'validatingwebhookconfiguration',
          'redis-enterprise-admission',
          '--timeout=30s',
        ]);
        // Wait for kubectl's DELETE to arrive (a loaded machine starts kubectl slowly).
        let held = store.read(vwc, undefined, 'redis-enterprise-admission');
        for (const started = Date.now(); !held.metadata.deletionTimestamp && Date.now() - started < 20_000;) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          held = store.read(vwc, undefined, 'redis-enterprise-admission');
        }
        assert.ok(held.metadata.deletionTimestamp, 'a finalizer keeps the object with a deletionTimestamp');
        store.update(vwc, { ...held, metadata: { ...held.metadata, finalizers: [] } });
        ok(await deleting, 'delete vwc');
        assert.equal(store.get(vwc, undefined, 'redis-enterprise-admission'), undefined);
        ok(
          await cluster.kubectl([
            'delete',
            'validatingwebhookconfiguration',
            'redis-enterprise-admission',
            '--ignore-not-found',
          ]),
        );
      });
    });
  }
});

// Jobs and Leases get the columns kube-apiserver 1.32 (the default server minor) prints for them
// (src/sim/kube/table.ts), not just NAME and AGE; every proven client prints what the server's
// Table holds.
describe('real kubectl prints Jobs and Leases with their server-side columns', () => {
  let cluster: TestCluster;
  const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();
  const template = { spec: { restartPolicy: 'Never', containers: [{ name: 'run', image: 'busybox' }] } };

  before(async () => {
    cluster = await startTestCluster({ namespace: NS });
    await withNamespace(cluster);
    const store = cluster.server.store;
    const jobs = store.resolve('batch/v1', 'Job');
    const job = (name: string, spec: Record<string, unknown>, status?: Record<string, unknown>) => {
      const created = store.create(jobs, { metadata: { name, namespace: NS }, spec: { ...spec, template } });
      if (status) store.updateStatus(jobs, { ...created, status });
    };
    job(
      'migrate',
      { completions: 1 },
      {
        startTime: ago(90),
        completionTime: ago(30),
        succeeded: 1,
        conditions: [
          { type: 'SuccessCriteriaMet', status: 'True' },
          { type: 'Complete', status: 'True' },
        ],
      },
    );
    // Started half an hour ago: past ten minutes the duration has no seconds that could tick.
    job('queue', { parallelism: 3 }, { startTime: ago(30 * 60), active: 3 });
    job('halted', { suspend: true }, { conditions: [{ type: 'Suspended', status: 'True' }] });
    job('fresh', {});
    store.create(store.resolve('coordination.k8s.io/v1', 'Lease'), {
      metadata: { name: 'operator-lock', namespace: NS },
      spec: { holderIdentity: 'redis-enterprise-operator-abc12' },
    });
  });
  after(() => cluster.close());

  for (const minor of KUBECTL_MINORS) {
    it(`kubectl 1.${minor} get job shows STATUS, COMPLETIONS, DURATION and AGE`, async () => {
      const run = (args: string[]) => runTool(kubectlPath(minor), args, { env: cluster.sandbox.env });
      const lines = ok(await run(['get', 'job', '-n', NS]), 'get job')
        .trim()
        .split('\n');
      assert.match(lines[0] ?? '', /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE$/);
      const row = (name: string) => lines.find((line) => line.startsWith(`${name} `)) ?? '';
      assert.match(row('migrate'), /^migrate\s+Complete\s+1\/1\s+60s\s+\S+$/);
      assert.match(row('queue'), /^queue\s+Running\s+0\/1 of 3\s+30m\s+\S+$/);
      assert.match(row('halted'), /^halted\s+Suspended\s+0\/1\s+\S+$/);
      assert.match(row('fresh'), /^fresh\s+Running\s+0\/1\s+\S+$/);

      const wide = ok(await run(['get', 'job', 'migrate', '-n', NS, '-o', 'wide']), 'get job -o wide');
      assert.match(wide, /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\n/);
      assert.match(wide, /\nmigrate\s+Complete\s+1\/1\s+60s\s+\S+\s+run\s+busybox\b/);

      const leases = ok(await run(['get', 'lease', '-n', NS]), 'get lease')
        .trim()
        .split('\n');
      assert.match(leases[0] ?? '', /^NAME\s+HOLDER\s+AGE$/);
      assert.match(leases[1] ?? '', /^operator-lock\s+redis-enterprise-operator-abc12\s+\S+$/);
    });
  }
});

// Where kube-apiserver's columns changed between the proven minors, the server's Table follows the
// minor it reports (src/sim/kube/table.ts): a Job's STATUS from 1.30 on, a PersistentVolumeClaim's
// VOLUMEATTRIBUTESCLASS from 1.29 on. Each client against a server of its own minor, as a user's.
describe('real kubectl prints the columns of the server minor it talks to', { concurrency: true }, () => {
  const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();
  const template = { spec: { restartPolicy: 'Never', containers: [{ name: 'run', image: 'busybox' }] } };

  for (const minor of KUBECTL_MINORS) {
    describe(`server and kubectl 1.${minor}`, () => {
      let cluster: TestCluster;
      before(async () => {
        cluster = await startTestCluster({ version: { major: '1', minor: String(minor) }, namespace: NS });
        await withNamespace(cluster);
        const store = cluster.server.store;
        const jobs = store.resolve('batch/v1', 'Job');
        const job = store.create(jobs, {
          metadata: { name: 'migrate', namespace: NS },
          spec: { completions: 1, template },
        });
        store.updateStatus(jobs, {
          ...job,
          status: {
            startTime: ago(90),
            completionTime: ago(30),
            succeeded: 1,
            conditions: [{ type: 'Complete', status: 'True' }],
          },
        });
        const pdbs = store.resolve('policy/v1', 'PodDisruptionBudget');
        const pdb = store.create(pdbs, {
          metadata: { name: 'rec', namespace: NS },
          spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'redis-enterprise' } } },
        });
        store.updateStatus(pdbs, { ...pdb, status: { disruptionsAllowed: 1 } });
        const claims = store.resolve('v1', 'PersistentVolumeClaim');
        const claim = store.create(claims, {
          metadata: { name: 'redis-enterprise-storage-rec-0', namespace: NS },
          spec: {
            accessModes: ['ReadWriteOnce'],
            resources: { requests: { storage: '10Gi' } },
            storageClassName: 'standard',
            volumeName: 'pvc-0a1b',
          },
        });
        store.updateStatus(claims, {
          ...claim,
          status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '10Gi' } },
        });
      });
      after(() => cluster.close());

      const lines = async (args: string[]) =>
        ok(await cluster.kubectl(args), args.join(' '))
          .trim()
          .split('\n');

      it(`get job: ${minor >= 30 ? 'NAME STATUS COMPLETIONS' : 'NAME COMPLETIONS (no STATUS before 1.30)'}`, async () => {
        const [header, row] = await lines(['get', 'job', '-n', NS]);
        if (minor >= 30) {
          assert.match(header ?? '', /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE$/);
          assert.match(row ?? '', /^migrate\s+Complete\s+1\/1\s+60s\s+\S+$/);
        } else {
          assert.match(header ?? '', /^NAME\s+COMPLETIONS\s+DURATION\s+AGE$/);
          assert.match(row ?? '', /^migrate\s+1\/1\s+60s\s+\S+$/);
        }
      });

      it('get pdb: NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE', async () => {
        const [header, row] = await lines(['get', 'pdb', '-n', NS]);
        assert.match(header ?? '', /^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE$/);
        assert.match(row ?? '', /^rec\s+N\/A\s+1\s+1\s+\S+$/);
      });

      it(`get pvc: ${minor >= 29 ? 'with' : 'without'} VOLUMEATTRIBUTESCLASS`, async () => {
        const [header, row] = await lines(['get', 'pvc', '-n', NS]);
        if (minor >= 29) {
          assert.match(
            header ?? '',
            /^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE$/,
          );
          assert.match(
            row ?? '',
            /^redis-enterprise-storage-rec-0\s+Bound\s+pvc-0a1b\s+10Gi\s+RWO\s+standard\s+<unset>\s+\S+$/,
          );
        } else {
          assert.match(
            header ?? '',
            /^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+AGE$/,
          );
          assert.match(
            row ?? '',
            /^redis-enterprise-storage-rec-0\s+Bound\s+pvc-0a1b\s+10Gi\s+RWO\s+standard\s+\S+$/,
          );
        }
      });
    });
  }
});
