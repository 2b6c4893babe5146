import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers/temp.js';
import { assertExit, changes, describeEntries, withUpgradeSim } from './upgrade-support.js';

/**
 * What the run needs, the plan checks (issue 36): an OLM update edge for every hop
 * (olm-update-path), the helm client of a helm-managed operator (helm-available), and the
 * permissions of the state store the run will use. Each plan here stops with exit 3 (or 0)
 * before anything in the cluster changes. Names and namespaces are used nowhere else.
 */

interface PlanJson {
  blocked: boolean;
  checks: { id: string; status: string; message: string; fix: string }[];
  target: { selection?: { stateStore?: string } };
}

interface TargetsJson {
  recommended: string | null;
  targets: { operator: string; blocked: boolean; blocking: { id: string }[] }[];
}

/** An OperatorHub install on `operator`, written where the test's temporary folder is removed on exit. */
function olmWorld(options: {
  name: string;
  namespace: string;
  operator: string;
  tag: string;
  kubernetes: string;
}) {
  const file = path.join(tempDir('ctl-plan-covers-'), `${options.name}.yaml`);
  writeFileSync(
    file,
    `name: ${options.name}
description: "OperatorHub install written by test/e2e/plan-covers-the-run.test.ts"
dialect: redis
platform: openshift
kubernetesVersion: "${options.kubernetes}"
namespace: ${options.namespace}
operator:
  version: ${options.operator}
  installedBy: olm
  olm:
    channel: ${options.operator.split('-')[0]}
    approval: Manual
cluster:
  name: rec
  versionTag: ${options.tag}.rhel8-openshift
  repository: registry.connect.redhat.com/redislabs/redis-enterprise
  apiVersion: ${options.tag}
databases:
  - { name: ledger-cache, version: "7.2" }
`,
  );
  return file;
}

const checkOf = (plan: PlanJson, id: string) => plan.checks.find((c) => c.id === id);

describe('the plan checks what the run needs (e2e)', () => {
  it('OLM on 7.4.6-7, --to 7.8.2-6: no update edge; plan and run exit 3 naming it and the nearest target, nothing changed', async () => {
    const file = olmWorld({
      name: 'olm-hole-ledger',
      namespace: 'ledger',
      operator: '7.4.6-7',
      tag: '7.4.6-275',
      kubernetes: '1.29',
    });
    await withUpgradeSim(file, async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '7.8.2-6', '-n', 'ledger', '-o', 'json']);
      assertExit(plan, 3, 'plan');
      const doc = JSON.parse(plan.stdout) as PlanJson;
      const edge = checkOf(doc, 'olm-update-path');
      assert.equal(edge?.status, 'fail', JSON.stringify(edge));
      assert.match(
        edge?.message ?? '',
        /OLM has no update edge from redis-enterprise-operator\.v7\.4\.6-7 to redis-enterprise-operator\.v7\.8\.2-6/,
      );
      assert.match(
        edge?.fix ?? '',
        /nearest target OLM can reach .*: 7\.8\.6-20 \(ctl --kubeconfig \S+ upgrade plan --to 7\.8\.6-20 -n ledger\)/,
      );

      const text = await sim.ctl(['upgrade', 'plan', '--to', '7.8.2-6', '-n', 'ledger']);
      assertExit(text, 3, 'plan (text)');
      assert.match(`${text.stdout}\n${text.stderr}`, /olm-update-path/);

      const run = await sim.ctl(['upgrade', 'run', '--to', '7.8.2-6', '-n', 'ledger', '--yes']);
      assertExit(run, 3, 'run');
      assert.match(`${run.stdout}\n${run.stderr}`, /olm-update-path/);
      assert.deepEqual(changes(sim), [], describeEntries(changes(sim)));
    });
  });

  it('OLM on 7.2.4-12, --to 7.22.0-17: the hop through 7.4.6-12 has no way on; the plan exits 3 before any change', async () => {
    const file = olmWorld({
      name: 'olm-dead-end-harbor',
      namespace: 'harbor',
      operator: '7.2.4-12',
      tag: '7.2.4-92',
      kubernetes: '1.29',
    });
    await withUpgradeSim(file, async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '7.22.0-17', '-n', 'harbor', '-o', 'json']);
      assertExit(plan, 3, 'plan');
      const doc = JSON.parse(plan.stdout) as PlanJson;
      const edge = checkOf(doc, 'olm-update-path');
      assert.equal(edge?.status, 'fail', JSON.stringify(edge));
      assert.match(
        edge?.message ?? '',
        /no update edge from redis-enterprise-operator\.v7\.4\.6-12 to redis-enterprise-operator\.v7\.22\.0-17/,
      );
      assert.match(edge?.fix ?? '', /7\.4\.6-12/);
      const run = await sim.ctl(['upgrade', 'run', '--to', '7.22.0-17', '-n', 'harbor', '--yes']);
      assertExit(run, 3, 'run');
      assert.deepEqual(changes(sim), [], describeEntries(changes(sim)));
    });
  });

  it('a helm-installed operator and no helm: plan and run exit 3 naming helm, never suggesting --method bundle', async () => {
    await withUpgradeSim('helm-installed', async (sim) => {
      const noHelm = { CTL_HELM: path.join(sim.sandbox.dir, 'nowhere', 'helm') };
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '7.8.2-6', '-o', 'json'], { env: noHelm });
      assertExit(plan, 3, 'plan');
      const doc = JSON.parse(plan.stdout) as PlanJson;
      const helm = checkOf(doc, 'helm-available');
      assert.equal(helm?.status, 'fail', JSON.stringify(helm));
      assert.match(helm?.message ?? '', /^helm was not found/);
      assert.doesNotMatch(`${helm?.message} ${helm?.fix}`, /bundle/);
      const run = await sim.ctl(['upgrade', 'run', '--to', '7.8.2-6', '--yes'], { env: noHelm });
      assertExit(run, 3, 'run');
      assert.match(`${run.stdout}\n${run.stderr}`, /helm-available/);
      assert.doesNotMatch(`${run.stdout}\n${run.stderr}`, /--method bundle/);
      assert.deepEqual(changes(sim), [], describeEntries(changes(sim)));
      // The list of targets (plan without --to) says the same: none is ready, none recommended.
      const list = await sim.ctl(['upgrade', 'plan', '-o', 'json'], { env: noHelm });
      assertExit(list, 0, 'plan without --to');
      const targets = JSON.parse(list.stdout) as TargetsJson;
      assert.equal(targets.recommended, null, list.stdout);
      assert.ok(targets.targets.length > 0, list.stdout);
      for (const target of targets.targets) {
        assert.equal(target.blocked, true, JSON.stringify(target));
        assert.ok(
          target.blocking.some((b) => b.id === 'helm-available'),
          JSON.stringify(target),
        );
      }

      const withHelm = await sim.ctl(['upgrade', 'plan', '--to', '7.8.2-6', '-o', 'json']);
      const found = checkOf(JSON.parse(withHelm.stdout) as PlanJson, 'helm-available');
      assert.notEqual(found?.status, 'fail', JSON.stringify(found));
      assert.match(found?.message ?? '', /helm v?3\./);
      const listed = JSON.parse((await sim.ctl(['upgrade', 'plan', '-o', 'json'])).stdout) as TargetsJson;
      assert.notEqual(listed.recommended, null, 'with helm, a target is recommended');
    });
  });

  it('--state-store configmap: the plan checks the ConfigMap and Lease permissions and records the store; run --plan with another store exits 2', async () => {
    await withUpgradeSim('helm-installed', async (sim) => {
      const file = path.join(sim.sandbox.dir, 'store-plan.json');
      const plan = await sim.ctl([
        'upgrade',
        'plan',
        '--to',
        '7.8.2-6',
        '--state-store',
        'configmap',
        '--out',
        file,
        '-o',
        'json',
      ]);
      assertExit(plan, 0, 'plan');
      const doc = JSON.parse(plan.stdout) as PlanJson;
      assert.equal(doc.target.selection?.stateStore, 'configmap');
      const withStore = checkOf(doc, 'permissions')?.message ?? '';
      const plain =
        checkOf(
          JSON.parse(
            (await sim.ctl(['upgrade', 'plan', '--to', '7.8.2-6', '-o', 'json'])).stdout,
          ) as PlanJson,
          'permissions',
        )?.message ?? '';
      const count = (message: string) => Number(/all (\d+) permissions/.exec(message)?.[1]);
      assert.ok(count(withStore) > count(plain), `${withStore} / ${plain}`);

      const other = await sim.ctl(['upgrade', 'run', '--plan', file, '--yes']);
      assertExit(other, 2, 'run --plan with the file store');
      assert.match(other.stderr, /--state-store configmap/);
      assert.deepEqual(changes(sim), [], describeEntries(changes(sim)));
    });
  });
});
