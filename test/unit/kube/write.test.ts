import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OperationError } from '../../../src/errors.js';
import { createTestIo } from '../../../src/io/test-io.js';
import {
  deleteIfExists,
  describeRef,
  KubeWriter,
  mergePatch,
  readObject,
  serverSideApply,
} from '../../../src/kube/write.js';
import { FakeCluster } from '../steps/fakes.js';

const REC = {
  apiVersion: 'app.redislabs.com/v1',
  kind: 'RedisEnterpriseCluster',
  name: 'rec',
  namespace: 'redis',
};

function setup() {
  const cluster = new FakeCluster();
  cluster.put({
    apiVersion: REC.apiVersion,
    kind: REC.kind,
    metadata: { name: 'rec', namespace: 'redis' },
    spec: { a: 1 },
  });
  return { cluster, kube: cluster.clients(), test: createTestIo({ verbose: 2 }) };
}

describe('kube writers', () => {
  it('mergePatch sends a merge patch with field manager ctl', async () => {
    const { cluster, kube, test } = setup();
    const result = await mergePatch(kube, REC, { spec: { b: 2 } }, { dryRun: false, io: test.io });
    assert.deepEqual(result?.spec, { a: 1, b: 2 });
    assert.deepEqual(cluster.writes(), ['merge RedisEnterpriseCluster/rec -n redis']);
    assert.match(test.stderr(), /PATCH rec\/rec -n redis \(application\/merge-patch\+json\)/);
    assert.match(test.stderr(), /\{"spec":\{"b":2\}\}/, '-vv shows the body');
  });

  it('in dry-run prints "would patch" and sends nothing', async () => {
    const { cluster, kube } = setup();
    const test = createTestIo();
    assert.equal(await mergePatch(kube, REC, { spec: { b: 2 } }, { dryRun: true, io: test.io }), undefined);
    assert.equal(test.stderr(), 'would patch rec/rec -n redis: {"spec":{"b":2}}\n');
    assert.deepEqual(cluster.writes(), []);
    assert.deepEqual((await readObject(kube, REC))?.spec, { a: 1 });
  });

  it("a KubeWriter carries the run's dry-run to every write, so callers never pass it", async () => {
    const { cluster, kube } = setup();
    const test = createTestIo();
    const options = { dryRun: true, io: test.io };
    const writer = new KubeWriter(kube, options);
    assert.equal(writer.dryRun, true);
    assert.equal(await writer.mergePatch(REC, { spec: { b: 2 } }), undefined);
    assert.deepEqual(
      await writer.apply([
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'redis' } },
      ]),
      [],
    );
    assert.equal(await writer.deleteIfExists(REC), true, 'the object exists, so dry-run would delete it');
    assert.deepEqual(cluster.writes(), [], 'nothing was sent in dry-run');
    assert.equal(
      test.stderr(),
      'would patch rec/rec -n redis: {"spec":{"b":2}}\nwould apply configmap/cm -n redis\nwould delete rec/rec -n redis\n',
    );
    options.dryRun = false;
    await writer.mergePatch(REC, { spec: { b: 2 } });
    assert.deepEqual(cluster.writes(), ['merge RedisEnterpriseCluster/rec -n redis']);
  });

  it('serverSideApply applies in order with force; dry-run prints each object', async () => {
    const { cluster, kube } = setup();
    const objects = [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'redis' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'redis' }, data: { k: 'v' } },
    ];
    const dry = createTestIo();
    await serverSideApply(kube, objects, { dryRun: true, io: dry.io });
    assert.equal(dry.stderr(), 'would apply serviceaccount/sa -n redis\nwould apply configmap/cm -n redis\n');
    assert.deepEqual(cluster.writes(), []);
    const applied = await serverSideApply(kube, objects, { dryRun: false, io: createTestIo().io });
    assert.equal(applied.length, 2);
    assert.deepEqual(cluster.writes(), ['apply ServiceAccount/sa -n redis', 'apply ConfigMap/cm -n redis']);
  });

  it('deleteIfExists: true when it existed, false when not; dry-run only when it exists', async () => {
    const { cluster, kube } = setup();
    const dry = createTestIo();
    assert.equal(await deleteIfExists(kube, REC, { dryRun: true, io: dry.io }), true);
    assert.equal(dry.stderr(), 'would delete rec/rec -n redis\n');
    assert.equal(await deleteIfExists(kube, REC, { dryRun: false, io: dry.io }), true);
    assert.equal(await deleteIfExists(kube, REC, { dryRun: false, io: dry.io }), false);
    assert.equal(await deleteIfExists(kube, REC, { dryRun: true, io: dry.io }), false);
    assert.equal(cluster.objects.size, 0);
  });

  it('turns API errors into exit 1 with a hint; a stale resourceVersion is a 409', async () => {
    const { kube, test } = setup();
    await assert.rejects(
      mergePatch(
        kube,
        REC,
        { metadata: { resourceVersion: '1' }, spec: { b: 2 } },
        { dryRun: false, io: test.io },
      ),
      (error: Error) => {
        assert.ok(error instanceof OperationError);
        assert.match(error.message, /^cannot patch rec\/rec -n redis: the object has been modified/);
        assert.match(error.hint ?? '', /Run ctl again/);
        return true;
      },
    );
    await assert.rejects(
      mergePatch(kube, { ...REC, name: 'nope' }, { spec: {} }, { dryRun: false, io: test.io }),
      /cannot patch rec\/nope -n redis: .*not found/,
    );
  });

  it('describeRef uses the short kind names', () => {
    assert.equal(
      describeRef({ apiVersion: 'v1', kind: 'Secret', name: 's', namespace: 'n' }),
      'secret/s -n n',
    );
    assert.equal(
      describeRef({ apiVersion: 'security.openshift.io/v1', kind: 'SecurityContextConstraints', name: 'x' }),
      'scc/x',
    );
  });
});
