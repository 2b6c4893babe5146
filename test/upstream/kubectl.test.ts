/**
 * Real kubectl applies the operator's published manifests to the Kubernetes API emulator: the
 * upstream bundle (client-side, then server-side), the example cluster and database. The default
 * suite does the same with ctl's own bundle and fixtures (test/sim/kube/kubectl.test.ts).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ok, startTestCluster, type TestCluster } from '../sim/kube/harness.js';
import { upstreamFile } from './support.js';

const NS = 'redis';

for (const minor of ['28', '32', '33']) {
  describe(`real kubectl applies the upstream manifests (server minor ${minor})`, () => {
    let cluster: TestCluster;
    before(async () => {
      cluster = await startTestCluster({ version: { major: '1', minor }, namespace: NS });
      cluster.server.store.create(cluster.server.store.resolve('v1', 'Namespace'), {
        metadata: { name: NS },
      });
    });
    after(() => cluster.close());

    const recType = () => cluster.server.store.resolve('app.redislabs.com/v1', 'RedisEnterpriseCluster');

    it('applies the upstream bundle client-side, then the example cluster', async () => {
      ok(await cluster.kubectl(['apply', '-f', upstreamFile('bundle.yaml')]), 'apply bundle');
      const out = ok(
        await cluster.kubectl(['apply', '-f', upstreamFile('example-rec-v1.yaml')]),
        'apply rec',
      );
      assert.match(out, /redisenterprisecluster.app.redislabs.com\/rec created/);
      const rec = cluster.server.store.read(recType(), NS, 'rec');
      assert.equal((rec.spec as { nodes: number }).nodes, 3);
    });

    it('prints the upstream CRD printer columns through a server-side Table', async () => {
      const store = cluster.server.store;
      store.updateStatus(recType(), {
        ...store.read(recType(), NS, 'rec'),
        status: { state: 'Running', specStatus: 'Valid' },
      });
      const [header, row] = ok(await cluster.kubectl(['get', 'rec']), 'get rec')
        .trim()
        .split('\n');
      assert.match(
        header ?? '',
        /^NAME\s+NODES\s+SHARDS\s+VERSION\s+STATE\s+SPEC STATUS\s+LICENSE STATE\s+LICENSE EXPIRATION DATE\s+AGE$/,
      );
      assert.match(row ?? '', /^rec\s+3\s+.*Running\s+Valid/);
    });

    it('handles unknown fields as --validate says: strict refuses, warn warns, false ignores', async () => {
      const file = join(cluster.sandbox.dir, 'typo-rec.yaml');
      writeFileSync(
        file,
        'apiVersion: app.redislabs.com/v1\nkind: RedisEnterpriseCluster\nmetadata:\n  name: typo\nspec:\n  nodes: 3\n  nodez: 5\n',
      );
      const strict = await cluster.kubectl(['apply', '-f', file]);
      assert.equal(strict.code, 1);
      assert.match(
        strict.stderr,
        /RedisEnterpriseCluster in version "v1" cannot be handled as a RedisEnterpriseCluster: strict decoding error: unknown field "spec\.nodez"/,
      );
      assert.equal(cluster.server.store.get(recType(), NS, 'typo'), undefined);

      const warned = await cluster.kubectl(['apply', '--validate=warn', '-f', file]);
      assert.equal(warned.code, 0, warned.stderr);
      assert.match(warned.stderr, /Warning: unknown field "spec\.nodez"/);
      const stored = cluster.server.store.read(recType(), NS, 'typo');
      assert.deepEqual(Object.keys(stored.spec as object).includes('nodez'), false, 'pruned');

      ok(await cluster.kubectl(['delete', 'rec', 'typo']), 'delete typo');
      const ignored = await cluster.kubectl(['apply', '--validate=false', '-f', file]);
      assert.equal(ignored.code, 0, ignored.stderr);
      assert.doesNotMatch(ignored.stderr, /unknown field/);
      // kubectl patch sends no fieldValidation: the server's default, Warn.
      const patched = await cluster.kubectl([
        'patch',
        'rec',
        'typo',
        '--type',
        'merge',
        '-p',
        '{"spec":{"nodez":1}}',
      ]);
      assert.equal(patched.code, 0, patched.stderr);
      assert.match(patched.stderr, /Warning: unknown field "spec\.nodez"/);
      ok(await cluster.kubectl(['delete', 'rec', 'typo']), 'delete typo again');
    });

    it('applies the upstream bundle again server-side, and the example database', async () => {
      const out = ok(
        await cluster.kubectl(['apply', '--server-side', '-f', upstreamFile('bundle.yaml')]),
        'ssa bundle',
      );
      assert.match(out, /deployment.apps\/redis-enterprise-operator serverside-applied/);
      ok(
        await cluster.kubectl(['apply', '--server-side', '-f', upstreamFile('bundle.yaml')]),
        'ssa bundle twice',
      );
      ok(await cluster.kubectl(['apply', '-f', upstreamFile('example-redb-v1alpha1.yaml')]), 'apply redb');
      assert.match(ok(await cluster.kubectl(['get', 'redb', 'redb']), 'get redb'), /^NAME\s+VERSION/);
    });
  });
}
