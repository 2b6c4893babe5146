import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { clusterTagFor } from '../../src/release/catalog.js';
import { helmPath, runTool } from '../helpers/tools.js';
import {
  assertExit,
  assertNoChanges,
  assertUpgraded,
  getPath,
  parseEvents,
  readState,
  TARGET,
  type UpgradeSim,
  writesTo,
  withUpgradeSim,
} from './upgrade-support.js';
import { writeModulePackage } from '../helpers/module-package.js';

/**
 * `ctl upgrade run` end to end on the built-in scenarios of real-world situations
 * (docs/simulator.md; redis-facts.md §12): the BUILT binary, a fresh simulated cluster each, in
 * fast timing, the end state read back with the real kubectl and helm.
 */

const TAG = clusterTagFor(TARGET) ?? '';
/** Every test starts its own cluster; none may hang the suite. */
const TIMEOUT = { timeout: 180_000 };

interface Pod {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { containers?: { name: string; image: string }[] };
}

/** Every cluster pod runs the target image and the StatefulSet's update revision; every node reports RS `tag`. */
async function assertRolled(sim: UpgradeSim, tag: string): Promise<void> {
  const { scenario } = sim.cluster;
  const sts = await sim.get(['sts', scenario.cluster.name, '-n', scenario.namespace]);
  const updateRevision = getPath(sts, ['status', 'updateRevision']);
  const pods = (await sim.list([
    'pods',
    '-n',
    scenario.namespace,
    '-l',
    `redis.io/cluster=${scenario.cluster.name}`,
  ])) as unknown as Pod[];
  assert.equal(pods.length, scenario.cluster.nodes, 'every cluster pod is there');
  for (const pod of pods) {
    assert.equal(pod.metadata.labels?.['controller-revision-hash'], updateRevision, pod.metadata.name);
    const image = pod.spec?.containers?.find((c) => c.name === 'redis-enterprise-node')?.image ?? '';
    assert.ok(image.endsWith(`:${tag}`), `${pod.metadata.name} runs ${image}, not ${tag}`);
  }
  const rec = await sim.get(['rec', scenario.cluster.name, '-n', scenario.namespace]);
  assert.equal(getPath(rec, ['status', 'state']), 'Running', 'REC state');
  const rs = /^\d+\.\d+\.\d+-\d+/.exec(tag)?.[0] ?? tag;
  const versions = sim.cluster.rest.model.nodes.map((node) => node.software_version);
  assert.ok(versions.length > 0, 'the management API lists nodes');
  for (const version of versions)
    assert.ok(version.startsWith(rs), `node software_version ${version}, not ${rs}`);
}

describe('ctl upgrade run on the situations of the real world (e2e)', () => {
  it(
    'ondelete-statefulset: the monitor finishes although currentRevision is never promoted',
    TIMEOUT,
    async () => {
      await withUpgradeSim('ondelete-statefulset', async (sim) => {
        const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json']);
        assertExit(result, 0);
        await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
        await assertRolled(sim, TAG);
        const sts = await sim.get(['sts', 'rec', '-n', sim.cluster.scenario.namespace]);
        assert.equal(getPath(sts, ['spec', 'updateStrategy', 'type']), 'OnDelete');
        // Kubernetes under OnDelete: the run finished without currentRevision catching up.
        assert.notEqual(
          getPath(sts, ['status', 'currentRevision']),
          getPath(sts, ['status', 'updateRevision']),
        );
        assert.equal(readState(sim).steps.monitor?.status, 'done');
        // A second run finds everything done and changes nothing on the cluster resource.
        const again = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes']);
        assertExit(again, 0, 'the second run');
      });
    },
  );

  it(
    'auto-upgrade-no-spec-write: judged by pods and nodes; the spec keeps its old versionTag',
    TIMEOUT,
    async () => {
      await withUpgradeSim('auto-upgrade-no-spec-write', async (sim) => {
        const { scenario } = sim.cluster;
        const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json']);
        assertExit(result, 0);
        const events = parseEvents(result.stdout);
        const skip = events.find((e) => e.step === 'cluster' && e.type === 'step-skip');
        assert.match(skip?.message ?? '', /auto-upgrade is on/);
        assert.ok(
          events.some((e) => e.step === 'monitor' && e.type === 'step-done'),
          'the monitor step finished',
        );
        assert.deepEqual(writesTo(sim, '/redisenterpriseclusters/rec'), [], 'ctl never patched the REC');
        await assertRolled(sim, TAG);
        const rec = await sim.get(['rec', scenario.cluster.name, '-n', scenario.namespace]);
        assert.equal(
          getPath(rec, ['spec', 'redisEnterpriseImageSpec', 'versionTag']),
          scenario.cluster.versionTag,
          "the operator left the spec's versionTag as it was",
        );
        assert.equal(readState(sim).result, 'succeeded');
        const again = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes']);
        assertExit(again, 0, 'the second run');
      });
    },
  );

  it('helm-pinned-values: the helm upgrade sets operator.image.tag to the target', TIMEOUT, async () => {
    await withUpgradeSim('helm-pinned-values', async (sim) => {
      const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json']);
      assertExit(result, 0);
      await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
      const values = await runTool(
        helmPath(3),
        ['get', 'values', 'redis-enterprise', '-n', sim.cluster.scenario.namespace, '-o', 'yaml'],
        { env: { ...sim.sandbox.env, KUBECONFIG: sim.cluster.kubeconfigPath } },
      );
      assert.equal(values.code, 0, values.stderr);
      assert.deepEqual(
        getPath(parse(values.stdout), ['operator', 'image', 'tag']),
        TARGET,
        `helm get values:\n${values.stdout}`,
      );
      const events = parseEvents(result.stdout);
      assert.ok(
        events.some(
          (e) => e.step === 'operator' && e.type === 'warning' && /operator\.image\.tag/.test(e.message),
        ),
        'the pinned value is named in a warning',
      );
    });
  });

  it('cluster-role-binding: the ClusterRole binding is kept and a warning says so', TIMEOUT, async () => {
    await withUpgradeSim('cluster-role-binding', async (sim) => {
      const before = await sim.get(['rolebinding', 'redb-role', '-n', 'app-a']);
      const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json']);
      assertExit(result, 0);
      await assertUpgraded(sim, {
        operator: TARGET,
        tag: TAG,
        dbVersion: '7.4',
        namespaces: [sim.cluster.scenario.namespace, 'app-a'],
      });
      const after = await sim.get(['rolebinding', 'redb-role', '-n', 'app-a']);
      assert.deepEqual(after.roleRef, before.roleRef);
      assert.equal(getPath(after, ['roleRef', 'kind']), 'ClusterRole');
      const warnings = parseEvents(result.stdout).filter((e) => e.type === 'warning');
      assert.ok(
        warnings.some(
          (e) => /redb-role/.test(e.message) && /roleRef/.test(e.message) && /kept/.test(e.message),
        ),
        `a warning names the kept binding:\n${warnings.map((e) => e.message).join('\n')}`,
      );
    });
  });

  it('digest-pinned: the plan is blocked (exit 3) and its fix names digestHash', TIMEOUT, async () => {
    await withUpgradeSim('digest-pinned', async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET]);
      assertExit(plan, 3, 'plan');
      const text = plan.stdout + plan.stderr;
      assert.match(text, /auto-upgrade-digest/);
      assert.match(text, /redisEnterpriseServicesRiggerImageSpec/);
      assert.match(text, /digestHash/);
      const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes']);
      assertExit(run, 3, 'run');
      assert.match(run.stderr, /- auto-upgrade-digest: /);
      assertNoChanges(sim, 0, 'plan and run');
    });
  });

  it('inline-license: the licence in spec.license is valid and the run completes', TIMEOUT, async () => {
    await withUpgradeSim('inline-license', async (sim) => {
      const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json']);
      assertExit(result, 0);
      await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
      const rec = await sim.get(['rec', 'rec', '-n', sim.cluster.scenario.namespace]);
      assert.equal(getPath(rec, ['spec', 'licenseSecretName']), undefined);
      assert.doesNotMatch(result.stdout + result.stderr, /licenseSecretName/);
    });
  });
});

describe('ctl upgrade run on modules-upload-disabled (e2e)', () => {
  it(
    'the built-in scenario already runs the newest release: nothing freezes, nothing is uploaded',
    TIMEOUT,
    async () => {
      await withUpgradeSim('modules-upload-disabled', async (sim) => {
        const { scenario } = sim.cluster;
        const target = scenario.operator.version;
        const moduleFile = writeModulePackage(sim.sandbox.dir, {
          file: 'redisearch.Linux-rhel9-x86_64.8.2.0.zip',
          module: 'search',
          version: '8.2.0',
        });
        const result = await sim.ctl([
          'upgrade',
          'run',
          '--to',
          target,
          '--yes',
          '--remediate',
          '--module-file',
          moduleFile,
        ]);
        assertExit(result, 0);
        assert.equal(sim.cluster.audit.filter('POST', '/v2/modules').length, 0, 'no upload was tried');
        assert.deepEqual(writesTo(sim, '/redisenterpriseclusters/rec'), [], 'the REC was not patched');
      });
    },
  );

  // No frozen upgrade meets a refused upload: the setting allow_modules_upload exists from RS 8.2
  // on (redis/docs rs-8-2-0-25.md), and ctl uploads modules only for targets before RS 8
  // (src/planning/module-fix.ts), whose freeze happens on an older RS that takes every upload.
  // The simulator refuses a scenario that says otherwise (src/sim/scenario/expand.ts); ctl's
  // answer to a 403 modules_upload_disabled is test/unit/api/client.test.ts's.
});
