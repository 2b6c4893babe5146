// @peculiar/x509 (behind src/sim/tls.ts) needs a Reflect metadata polyfill loaded before it.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertExit, assertNoChanges, startUpgradeSim, type UpgradeSim } from './upgrade-support.js';

/**
 * ctl on an operator installed from OperatorHub (OLM owns its Deployment; the simulator's
 * `olm-*` scenarios): the plan shows the Subscription, and neither a bundle nor helm is used,
 * since OLM would put their change back. ctl does not drive OLM yet: the operator-method check
 * blocks the plan with the OLM commands until the operator runs the target.
 */

const TARGET = '7.8.6-19';
const SUBSCRIPTION = 'redis-enterprise-operator-cert';

async function withSim(scenario: string, body: (sim: UpgradeSim) => Promise<void>): Promise<void> {
  const sim = await startUpgradeSim(scenario);
  try {
    await body(sim);
  } finally {
    await sim.close();
  }
}

interface PlanJson {
  target: { method: string };
  olm?: {
    installedCSV: string;
    subscription: { name: string; channel: string; approval: string; source: string } | null;
    pendingInstallPlans: { name: string; csv: string }[];
  };
  checks: { id: string; status: string; message: string; fix: string }[];
  blocked: boolean;
}

describe('ctl upgrade plan on an OLM-owned operator (e2e)', () => {
  it('--method bundle exits 3 naming operator-method and the OLM way, changing nothing', async () => {
    await withSim('olm-manual', async (sim) => {
      const result = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '--method', 'bundle']);
      assertExit(result, 3);
      const output = `${result.stdout}\n${result.stderr}`;
      assert.match(
        output,
        /FAIL operator-method\s+the operator is installed by OLM \(Subscription redis-enterprise-operator-cert/,
      );
      assert.match(output, /OLM puts back any bundle change to its Deployment/);
      assert.ok(
        output.includes(
          `oc patch subscription ${SUBSCRIPTION} -n redis --type merge -p '{"spec":{"channel":"7.8.6"}}'`,
        ),
        output,
      );
      assert.match(
        output,
        /oc patch installplan .* -n redis --type merge -p '\{"spec":\{"approved":true\}\}'/,
      );
      assert.match(output, /Blocked: .*operator-method/);
      assertNoChanges(sim, 0, 'plan --method bundle');
    });
  });

  it('--method auto picks neither bundle nor helm and shows the Subscription', async () => {
    await withSim('olm-manual', async (sim) => {
      const text = await sim.ctl(['upgrade', 'plan', '--to', TARGET]);
      assertExit(text, 3);
      assert.match(
        text.stdout,
        /installed by OLM: Subscription redis-enterprise-operator-cert \(channel production, approval Manual, source certified-operators\), installed CSV redis-enterprise-operator\.v7\.4\.6-2/,
      );
      assert.match(text.stdout, /operator\s+7\.4\.6-2\s+-> 7\.8\.6-19 \(olm\)/);
      assert.match(
        text.stdout,
        /InstallPlan install-\w+ waits for approval \(CSV redis-enterprise-operator\.v8\.2\.0-13\)/,
      );

      const json = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json']);
      assertExit(json, 3);
      const plan = JSON.parse(json.stdout) as PlanJson;
      assert.equal(plan.target.method, 'olm');
      assert.equal(plan.olm?.installedCSV, 'redis-enterprise-operator.v7.4.6-2');
      assert.deepEqual(plan.olm?.subscription && { ...plan.olm.subscription }, {
        name: SUBSCRIPTION,
        channel: 'production',
        approval: 'Manual',
        source: 'certified-operators',
        sourceNamespace: 'openshift-marketplace',
        state: 'UpgradePending',
      });
      const method = plan.checks.find((check) => check.id === 'operator-method');
      assert.equal(method?.status, 'fail');
      assert.match(method?.message ?? '', /ctl does not drive OLM yet/);
      assert.equal(plan.blocked, true);
      assertNoChanges(sim, 0, 'plan --method auto');
    });
  });

  it('once the operator is upgraded through OLM, operator-method passes', async () => {
    await withSim('olm-channel-switch', async (sim) => {
      await sim.kubectl([
        'patch',
        'subscription',
        SUBSCRIPTION,
        '--type',
        'merge',
        '-p',
        '{"spec":{"channel":"7.8.6"}}',
      ]);
      const deadline = Date.now() + 30_000;
      let plan = '';
      while (!plan) {
        plan = (await sim.kubectl(['get', 'installplan', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
        if (!plan && Date.now() > deadline)
          assert.fail('timed out waiting for the InstallPlan of the new channel');
        if (!plan) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await sim.kubectl([
        'patch',
        'installplan',
        plan,
        '--type',
        'merge',
        '-p',
        '{"spec":{"approved":true}}',
      ]);
      await sim.kubectl([
        'wait',
        `csv/redis-enterprise-operator.v${TARGET}`,
        '--for=jsonpath={.status.phase}=Succeeded',
        '--timeout=30s',
      ]);
      await sim.kubectl(['rollout', 'status', 'deployment/redis-enterprise-operator', '--timeout=30s']);
      const json = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json']);
      const result = JSON.parse(json.stdout) as PlanJson;
      const method = result.checks.find((check) => check.id === 'operator-method');
      assert.equal(method?.status, 'pass', JSON.stringify(method));
      assert.match(method?.message ?? '', /already runs 7\.8\.6-19/);
      assert.equal(result.olm?.installedCSV, `redis-enterprise-operator.v${TARGET}`);
      assert.equal(result.olm?.subscription?.channel, '7.8.6');
    });
  });
});
