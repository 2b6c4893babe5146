import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectLiveDialect, dialectFromCrd } from '../../../src/kube/dialect.js';
import type { KubeObject } from '../../../src/kube/reads.js';
import { crdsFor } from '../../../src/sim/crds.js';

function clusterCrd(dialect: 'engine' | 'redis'): KubeObject {
  const crd = crdsFor(dialect).find((c) =>
    (c as KubeObject).metadata?.name?.startsWith('redisenterpriseclusters'),
  );
  assert.ok(crd);
  return crd as KubeObject;
}

describe('dialect detection', () => {
  it('from the live cluster resource, without reading the CRD', async () => {
    let crdReads = 0;
    const reads = {
      getCustomResourceDefinition: async () => {
        crdReads++;
        return undefined;
      },
    };
    assert.deepEqual(await detectLiveDialect({ spec: { engineEnterpriseImageSpec: {} } }, reads), {
      dialect: 'engine',
      source: 'cluster',
    });
    assert.deepEqual(await detectLiveDialect({ spec: { redisEnterpriseImageSpec: {} } }, reads), {
      dialect: 'redis',
      source: 'cluster',
    });
    assert.equal(crdReads, 0);
  });

  it('from the CRD schema when the cluster resource has no image spec', async () => {
    const reads = { getCustomResourceDefinition: async () => clusterCrd('engine') };
    assert.deepEqual(await detectLiveDialect({ spec: { nodes: 3 } }, reads), {
      dialect: 'engine',
      source: 'crd',
    });
  });

  it('the real product names when nothing tells (no CRD readable)', async () => {
    const reads = {
      getCustomResourceDefinition: async () => {
        throw new Error('forbidden');
      },
    };
    assert.deepEqual(await detectLiveDialect(undefined, reads), { dialect: 'redis', source: 'default' });
  });

  // test/upstream/dialect.test.ts reads the dialect of the upstream CRD.
  it("the simulator's CRDs", () => {
    assert.equal(dialectFromCrd(clusterCrd('engine')), 'engine');
    assert.equal(dialectFromCrd(clusterCrd('redis')), 'redis');
    assert.equal(dialectFromCrd(undefined), undefined);
  });
});
