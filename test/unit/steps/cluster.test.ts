import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OperationError } from '../../../src/errors.js';
import { CLUSTER_CRD_NAME, type KubeObject } from '../../../src/kube/reads.js';
import { createClusterStep } from '../../../src/steps/cluster.js';
import { FakeCluster, harness, stderrLines } from './fakes.js';

const REC = { apiVersion: 'app.redislabs.com/v1', kind: 'RedisEnterpriseCluster' };
const TAG = '7.8.2-34';

function rec(
  options: { tag?: string; state?: string; auto?: boolean; engine?: boolean; rigger?: string } = {},
): KubeObject {
  const imageSpec = {
    repository: 'redislabs/redis',
    versionTag: options.tag ?? '7.4.6-22',
    imagePullPolicy: 'IfNotPresent',
  };
  const spec: Record<string, unknown> = options.engine
    ? { nodes: 3, engineEnterpriseImageSpec: imageSpec, autoUpgradeEngineEnterprise: options.auto ?? false }
    : {
        nodes: 3,
        redisEnterpriseImageSpec: imageSpec,
        upgradeSpec: { autoUpgradeRedisEnterprise: options.auto ?? false },
      };
  if (options.rigger)
    spec.redisEnterpriseServicesRiggerImageSpec = {
      repository: 'redislabs/services-manager',
      versionTag: options.rigger,
    };
  return {
    ...REC,
    metadata: { name: 'rec', namespace: 'redis' },
    spec,
    status: { state: options.state ?? 'Running' },
  };
}

function setup(options: Parameters<typeof harness>[0] = {}) {
  const h = harness({ ...options, target: { clusterVersion: TAG, ...options.target } });
  return { h, step: createClusterStep({ wait: h.cluster.wait() }) };
}

function imageSpec(
  object: KubeObject | undefined,
  field = 'redisEnterpriseImageSpec',
): Record<string, unknown> {
  return (object?.spec as Record<string, Record<string, unknown>>)[field] ?? {};
}

describe('cluster step', () => {
  it('merge-patches only versionTag, after recording the intent, and verifies it', async () => {
    const { h, step } = setup();
    h.cluster.put(rec());
    const result = await h.run(step);
    assert.deepEqual(h.cluster.writes(), ['merge RedisEnterpriseCluster/rec -n redis']);
    assert.equal(
      h.log.findIndex((e) => e.type === 'intent') < h.log.findIndex((e) => e.type === 'write'),
      true,
    );
    const body = (h.log.find((e) => e.type === 'write')?.data as { body: Record<string, unknown> }).body;
    assert.deepEqual(body.spec, { redisEnterpriseImageSpec: { versionTag: TAG } });
    assert.deepEqual(imageSpec(h.cluster.get(REC.apiVersion, REC.kind, 'rec', 'redis')), {
      repository: 'redislabs/redis',
      versionTag: TAG,
      imagePullPolicy: 'IfNotPresent',
    });
    assert.equal(result.outcome?.versionTag, TAG);
    assert.equal(result.outcome?.previous, '7.4.6-22');
  });

  it('uses the dialect field path (engine) and moves pinned images to the operator version', async () => {
    const { h, step } = setup({ snapshot: (s) => (s.dialect = 'engine') });
    h.cluster.put(rec({ engine: true, rigger: '7.4.6-2' }));
    await h.run(step);
    const body = (h.log.find((e) => e.type === 'write')?.data as { body: Record<string, unknown> }).body;
    assert.deepEqual(body.spec, {
      engineEnterpriseImageSpec: { versionTag: TAG },
      redisEnterpriseServicesRiggerImageSpec: { versionTag: '7.8.2-6' },
    });
  });

  it('does not patch a cluster already upgrading to the target (resume after a crash)', async () => {
    const { h, step } = setup();
    h.cluster.put(rec({ tag: TAG, state: 'Upgrade' }));
    const result = await h.run(step);
    assert.deepEqual(result, {
      skipped: `redisEnterpriseImageSpec.versionTag is already ${TAG}: the upgrade is in progress`,
    });
    assert.deepEqual(h.cluster.writes(), []);
    assert.equal(h.log.filter((e) => e.type === 'intent').length, 0);
  });

  it('never sets an older versionTag, whatever the checks said (a downgrade with --ignore-check upgrade-path)', async () => {
    // The plan half skips a newer cluster (planCluster); the run half read it live and patched.
    for (const dryRun of [false, true]) {
      const { h, step } = setup();
      h.cluster.put(rec({ tag: '8.2.0-78.18' }));
      await assert.rejects(
        h.run(step, { dryRun }),
        (error: Error & { hint?: string }) =>
          /^not downgrading rec\/rec -n redis: it runs 8\.2\.0-78\.18, newer than 7\.8\.2-34/.test(
            error.message,
          ) && /--to/.test(error.hint ?? ''),
      );
      assert.deepEqual(h.cluster.writes(), [], `dry run ${dryRun}: nothing written`);
      assert.equal(h.log.filter((e) => e.type === 'intent').length, 0);
    }
  });

  it('refuses to patch during an upgrade to another version', async () => {
    const { h, step } = setup();
    h.cluster.put(rec({ tag: '7.4.6-30', state: 'Upgrade' }));
    await assert.rejects(h.run(step), /already upgrading \(to 7\.4\.6-30\)/);
    assert.deepEqual(h.cluster.writes(), []);
  });

  it('auto-upgrade: changes nothing and waits for the operator to start the upgrade', async () => {
    const { h, step } = setup({ snapshot: (s) => (s.cluster!.autoUpgrade = true) });
    h.cluster.put(rec({ auto: true }));
    let ticks = 0;
    h.cluster.onTick = (cluster) => {
      if (++ticks === 2) {
        cluster.update(REC.apiVersion, REC.kind, 'rec', 'redis', (o) => {
          imageSpec(o).versionTag = TAG;
          o.status = { state: 'Upgrade' };
        });
      }
    };
    const result = await h.run(step);
    assert.deepEqual(result, {
      skipped: `auto-upgrade is on: the operator upgrades the cluster (it has set versionTag ${TAG})`,
    });
    assert.deepEqual(h.cluster.writes(), []);
  });

  it('auto-upgrade: an InvalidUpgrade answer is left to the monitor step (which shows the events and the fix)', async () => {
    const { h, step } = setup({ snapshot: (s) => (s.cluster!.autoUpgrade = true) });
    h.cluster.put(rec({ auto: true, state: 'InvalidUpgrade' }));
    const result = await h.run(step);
    assert.match(String(result.skipped), /answered with state InvalidUpgrade/);
    assert.deepEqual(h.cluster.writes(), []);
  });

  it('dry-run prints the merge patch and changes nothing', async () => {
    const { h, step } = setup();
    h.cluster.put(rec());
    await h.run(step, { dryRun: true });
    assert.deepEqual(h.cluster.writes(), []);
    assert.deepEqual(stderrLines(h.test), [
      `would patch rec/rec -n redis: {"spec":{"redisEnterpriseImageSpec":{"versionTag":"${TAG}"}}}`,
    ]);
  });
});

// --user-defined-modules: the list goes into the same patch as the versionTag, and the API server
// keeps it only where the REC's CRD declares spec.userDefinedModules (src/planning/cluster-crd.ts).
// The plan's check modules-compatible refuses such a CRD first; these reach the step's own guards.
const MODULES_TARGET = { to: '8.0.6-8', clusterVersion: '8.0.6-54' };
const MODULES = [{ name: 'quillmark', source: { https: { url: 'https://mirror.example/quillmark.zip' } } }];
const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };

/** The REC's CRD serving v1, whose schema declares spec.userDefinedModules or not. */
function recCrd(declaresModules: boolean): KubeObject {
  const specProperties: Record<string, unknown> = { nodes: { type: 'integer' } };
  if (declaresModules) specProperties.userDefinedModules = { type: 'array', items: { type: 'object' } };
  return {
    ...CRD,
    metadata: { name: CLUSTER_CRD_NAME },
    spec: {
      group: 'app.redislabs.com',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', properties: specProperties } },
            },
          },
        },
      ],
    },
  };
}

function setupModules() {
  return setup({ target: MODULES_TARGET, userDefinedModules: MODULES });
}

function liveModules(h: ReturnType<typeof setup>['h']): unknown {
  return (h.cluster.get(REC.apiVersion, REC.kind, 'rec', 'redis')?.spec as Record<string, unknown>)
    .userDefinedModules;
}

describe('cluster step with --user-defined-modules', () => {
  it('sets versionTag and the list in one patch where the CRD declares the field, and reads both back', async () => {
    const { h, step } = setupModules();
    h.cluster.put(rec());
    h.cluster.put(recCrd(true));
    const result = await h.run(step);
    assert.deepEqual(h.cluster.writes(), ['merge RedisEnterpriseCluster/rec -n redis']);
    const body = (h.log.find((e) => e.type === 'write')?.data as { body: Record<string, unknown> }).body;
    assert.deepEqual(body.spec, {
      redisEnterpriseImageSpec: { versionTag: '8.0.6-54' },
      userDefinedModules: MODULES,
    });
    assert.deepEqual(liveModules(h), MODULES);
    assert.equal(result.outcome?.versionTag, '8.0.6-54');
    assert.deepEqual(result.outcome?.userDefinedModules, ['quillmark']);
  });

  it('refuses before any write where the CRD does not declare spec.userDefinedModules', async () => {
    const { h, step } = setupModules();
    h.cluster.put(rec());
    h.cluster.put(recCrd(false));
    await assert.rejects(h.run(step), (error: unknown) => {
      assert.ok(error instanceof OperationError);
      assert.match(
        error.message,
        /^not upgrading rec\/rec -n redis: the CRD redisenterpriseclusters\.app\.redislabs\.com does not declare spec\.userDefinedModules.*\(quillmark\).*nothing was changed$/,
      );
      assert.match(error.hint ?? '', /operator step/);
      assert.match(error.hint ?? '', /CRD/);
      return true;
    });
    assert.deepEqual(h.cluster.writes(), []);
    assert.equal(h.log.filter((e) => e.type === 'intent').length, 0);
    assert.equal(imageSpec(h.cluster.get(REC.apiVersion, REC.kind, 'rec', 'redis')).versionTag, '7.4.6-22');
  });

  it('where the CRD cannot be read (absent, forbidden), patches and leaves the judgement to the read-back', async () => {
    for (const unreadable of ['absent', 'forbidden']) {
      const { h, step } = setupModules();
      h.cluster.put(rec());
      if (unreadable === 'forbidden') {
        h.cluster.put(recCrd(false));
        h.cluster.forbiddenReads.add(FakeCluster.key(CRD.apiVersion, CRD.kind, undefined, CLUSTER_CRD_NAME));
      }
      const result = await h.run(step);
      assert.deepEqual(h.cluster.writes(), ['merge RedisEnterpriseCluster/rec -n redis'], unreadable);
      assert.deepEqual(liveModules(h), MODULES, unreadable);
      assert.deepEqual(result.outcome?.userDefinedModules, ['quillmark'], unreadable);
    }
  });

  it('fails when the list is gone on the read-back (the API server pruned it)', async () => {
    const { h, step } = setupModules();
    h.cluster.put(rec());
    // Stands in for the API server of an older CRD: the field is dropped without an error.
    h.cluster.onTick = (cluster) =>
      cluster.update(REC.apiVersion, REC.kind, 'rec', 'redis', (o) => {
        delete (o.spec as Record<string, unknown>).userDefinedModules;
      });
    await assert.rejects(h.run(step), (error: unknown) => {
      assert.ok(error instanceof OperationError);
      assert.match(
        error.message,
        /^spec\.userDefinedModules of rec\/rec -n redis does not list quillmark after setting it$/,
      );
      assert.match(error.hint ?? '', /kubectl get crd redisenterpriseclusters\.app\.redislabs\.com/);
      return true;
    });
    assert.deepEqual(h.cluster.writes(), ['merge RedisEnterpriseCluster/rec -n redis']);
  });

  it('on a cluster already at the tag, sets the list alone, behind the same two guards', async () => {
    const atTag = () => {
      const made = setupModules();
      made.h.cluster.put(rec({ tag: '8.0.6-54' }));
      return made;
    };
    const set = atTag();
    set.h.cluster.put(recCrd(true));
    assert.deepEqual((await set.h.run(set.step)).outcome?.userDefinedModules, ['quillmark']);
    const body = (set.h.log.find((e) => e.type === 'write')?.data as { body: Record<string, unknown> }).body;
    assert.deepEqual(body, { spec: { userDefinedModules: MODULES } });

    const refused = atTag();
    refused.h.cluster.put(recCrd(false));
    await assert.rejects(
      refused.h.run(refused.step),
      /does not declare spec\.userDefinedModules.*nothing was changed$/,
    );
    assert.deepEqual(refused.h.cluster.writes(), []);

    const pruned = atTag();
    pruned.h.cluster.onTick = (cluster) =>
      cluster.update(REC.apiVersion, REC.kind, 'rec', 'redis', (o) => {
        delete (o.spec as Record<string, unknown>).userDefinedModules;
      });
    await assert.rejects(pruned.h.run(pruned.step), /does not list quillmark after setting it$/);
  });

  it('dry-run prints the one patch with the list and changes nothing', async () => {
    const { h, step } = setupModules();
    h.cluster.put(rec());
    const result = await h.run(step, { dryRun: true });
    assert.deepEqual(h.cluster.writes(), []);
    assert.deepEqual(stderrLines(h.test), [
      `would patch rec/rec -n redis: ${JSON.stringify({
        spec: { redisEnterpriseImageSpec: { versionTag: '8.0.6-54' }, userDefinedModules: MODULES },
      })}`,
    ]);
    assert.equal(liveModules(h), undefined);
    assert.deepEqual(result.outcome, {
      dryRun: true,
      versionTag: '8.0.6-54',
      previous: '7.4.6-22',
      userDefinedModules: ['quillmark'],
    });
  });
});
