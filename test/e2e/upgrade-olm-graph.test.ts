import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers/temp.js';
import {
  assertExit,
  assertUpgraded,
  changes,
  describeEntries,
  getPath,
  type UpgradeSim,
  withUpgradeSim,
} from './upgrade-support.js';

/**
 * ctl on the OperatorHub graph as Redis's certified bundles make it (certified-operators
 * operators/redis-enterprise-operator-cert/7.22.0-11.2): CSV names with a rebuild suffix, a
 * Subscription channel of the user's own (`stable`, SIMULATOR.md), and CSVs that name the
 * older ones they upgrade in spec.skips, so a target may have no edge from the installed CSV
 * (scenario key operator.olm.skips, the simulator's own). ctl reaches the target when OLM
 * offers it, and otherwise stops at once, says which CSV to go through, and approves nothing.
 */

const SUBSCRIPTION = 'redis-enterprise-operator-cert';
const TARGET = '7.8.6-20';
const TAG = '7.8.6-315';

/** An OperatorHub scenario file, written where the test's temporary folder is removed on exit. */
function scenarioFile(
  name: string,
  olm: string,
  operator = '7.4.6-2',
  tag = '7.4.6-22',
  kubernetes = '1.29',
): string {
  const file = path.join(tempDir('ctl-olm-graph-'), `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
description: "OperatorHub install written by test/e2e/upgrade-olm-graph.test.ts"
dialect: redis
platform: openshift
kubernetesVersion: "${kubernetes}"
operator:
  version: ${operator}
  installedBy: olm
  olm:
${olm}
cluster:
  versionTag: ${tag}.rhel8-openshift
  repository: registry.connect.redhat.com/redislabs/redis-enterprise
  apiVersion: ${tag}
databases:
  - { name: cache, version: "7.2" }
`,
  );
  return file;
}

const installPlanWrites = (sim: UpgradeSim) =>
  changes(sim).filter((entry) => /\/installplans\//.test(entry.path.split('?')[0] ?? ''));

async function subscriptionStatus(sim: UpgradeSim): Promise<{ installedCSV?: string; state?: string }> {
  const sub = await sim.get(['subscription', SUBSCRIPTION, '-n', 'redis']);
  return (sub.status ?? {}) as { installedCSV?: string; state?: string };
}

/**
 * A run to TARGET where OLM offers no update from `installed`: it stops at once (a stall timeout
 * far above what the run may take, so the stop must come from OLM's answer), says why, approves
 * nothing, and OLM made no InstallPlan.
 */
async function assertStopsWithoutAnEdge(sim: UpgradeSim, installed: string, why: RegExp): Promise<void> {
  const started = Date.now();
  const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '--stall-timeout', '5m']);
  const took = Date.now() - started;
  assertExit(run, 1, 'run');
  const output = `${run.stdout}\n${run.stderr}`;
  assert.match(output, why);
  assert.match(output, /ctl approved nothing/);
  assert.ok(took < 60_000, `stopped after ${took} ms, well before the 5 min stall timeout`);
  assert.deepEqual(installPlanWrites(sim), [], describeEntries(installPlanWrites(sim)));
  assert.deepEqual(await sim.list(['installplan', '-n', 'redis']), [], 'OLM made no InstallPlan');
  const status = await subscriptionStatus(sim);
  assert.equal(status.state, 'AtLatestKnown');
  assert.equal(status.installedCSV, installed);
}

describe('ctl upgrade through the certified OperatorHub graph (e2e)', () => {
  it('channel stable and CSVs with a rebuild suffix: the plan names the real CSVs and the run reaches the target', async () => {
    const file = scenarioFile(
      'olm-stable-suffix',
      '    channel: stable\n    approval: Manual\n    startingCSV: redis-enterprise-operator.v7.4.6-2.0',
    );
    await withUpgradeSim(file, async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json']);
      assertExit(plan, 0, 'plan');
      const doc = JSON.parse(plan.stdout) as {
        olm?: {
          installedCSV: string;
          targetCSV: string;
          targetChannel: string | null;
          subscription: { channel: string };
        };
        blocked: boolean;
      };
      assert.equal(doc.blocked, false);
      assert.equal(doc.olm?.subscription.channel, 'stable');
      assert.equal(doc.olm?.installedCSV, 'redis-enterprise-operator.v7.4.6-2.0');
      // Read from the PackageManifest, not guessed: the simulated catalog ends other releases' CSVs in .0.
      assert.equal(doc.olm?.targetCSV, 'redis-enterprise-operator.v7.8.6-20.1');
      assert.equal(doc.olm?.targetChannel, '7.8.6');

      const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json']);
      assertExit(run, 0, 'run');
      await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
      assert.equal((await subscriptionStatus(sim)).installedCSV, 'redis-enterprise-operator.v7.8.6-20.1');
      const csv = await sim.get(['csv', 'redis-enterprise-operator.v7.8.6-20.1', '-n', 'redis']);
      assert.equal(getPath(csv, ['status', 'phase']), 'Succeeded');
      assert.equal(getPath(csv, ['spec', 'version']), '7.8.6-20.1');
      assert.equal(installPlanWrites(sim).length, 1, 'exactly one approval');
      // OLM's webhook (from the CSV's webhookdefinitions) follows the CSV; ctl left it to OLM.
      const webhooks = await sim.list(['validatingwebhookconfigurations']);
      const olmWebhook = webhooks.find((w) => w.metadata?.labels?.['olm.owner.namespace'] === 'redis');
      assert.equal(olmWebhook?.metadata?.labels?.['olm.owner'], 'redis-enterprise-operator.v7.8.6-20.1');
      const webhookWrites = changes(sim).filter((e) => /validatingwebhookconfigurations/.test(e.path));
      assert.deepEqual(webhookWrites, [], describeEntries(webhookWrites));
    });
  });

  it('a target that does not skip the installed CSV: the run stops at once, says so, and approves nothing', async () => {
    // Subscribed to 7.4.6, whose head on OpenShift 4.18 is the installed 7.4.6-2: nothing on the
    // cluster shows that no CSV skips it until the run switches to the target's channel.
    const file = scenarioFile(
      'olm-no-edge',
      '    channel: 7.4.6\n    approval: Manual\n    skips: none',
      '7.4.6-2',
      '7.4.6-22',
      '1.31',
    );
    await withUpgradeSim(file, (sim) =>
      assertStopsWithoutAnEdge(
        sim,
        'redis-enterprise-operator.v7.4.6-2',
        /OLM offers no update from redis-enterprise-operator\.v7\.4\.6-2 in channel 7\.8\.6 .*the target redis-enterprise-operator\.v7\.8\.6-20 does not list redis-enterprise-operator\.v7\.4\.6-2 in spec\.skips/,
      ),
    );
  });

  it("the subscribed channel's head does not skip the installed CSV although its certified bundle does: the plan and the run stop at olm-update-path before any change", async () => {
    // Subscribed to production, whose head (8.0.2-6 on OpenShift 4.16) skips 7.4.6-2 in the
    // certified bundle, yet OLM answers AtLatestKnown: this cluster's catalog source is not the
    // certified one, so ctl plans nothing from its catalog's edges (src/planning/olm-path.ts).
    const file = scenarioFile(
      'olm-no-edge-seen',
      '    channel: production\n    approval: Manual\n    skips: none',
    );
    await withUpgradeSim(file, async (sim) => {
      const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes']);
      assertExit(run, 3, 'run');
      assert.match(
        run.stderr,
        /olm-update-path: OLM offers no update from redis-enterprise-operator\.v7\.4\.6-2 in channel production \(Subscription redis-enterprise-operator-cert is AtLatestKnown under the head redis-enterprise-operator\.v8\.0\.2-6\)/,
      );
      assert.deepEqual(changes(sim), [], describeEntries(changes(sim)));
    });
  });

  it('a real hole of the certified skips (7.4.6-12 to 7.8.6-20): the plan and the run stop at olm-update-path before any change', async () => {
    // 7.4.6-12, at the head of channel 7.4.6, was published after every 7.8.6 bundle: none lists
    // it in spec.skips (operator.olm.skips: catalog, the default), and ctl's catalog holds the
    // certified bundles' spec.skips, so the plan sees the hole the run used to stop at.
    const file = scenarioFile(
      'olm-hole-786',
      '    channel: 7.4.6\n    approval: Manual',
      '7.4.6-12',
      '7.4.6-293',
    );
    await withUpgradeSim(file, async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET]);
      assertExit(plan, 3, 'plan');
      assert.match(
        `${plan.stdout}\n${plan.stderr}`,
        /olm-update-path.*OLM has no update edge from redis-enterprise-operator\.v7\.4\.6-12 to redis-enterprise-operator\.v7\.8\.6-20/,
      );
      const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes']);
      assertExit(run, 3, 'run');
      assert.deepEqual(changes(sim), [], describeEntries(changes(sim)));
      assert.equal((await subscriptionStatus(sim)).installedCSV, 'redis-enterprise-operator.v7.4.6-12');
    });
  });

  it('an older CSV skips the installed one: ctl names it, approves nothing, and reaches the target through it', async () => {
    // Subscribed to 7.4.6, whose head on OpenShift 4.18 is the installed 7.4.6-2 (see above).
    const file = scenarioFile(
      'olm-intermediate',
      "    channel: 7.4.6\n    approval: Manual\n    skips: ['7.8.6-11']",
      '7.4.6-2',
      '7.4.6-22',
      '1.31',
    );
    await withUpgradeSim(file, async (sim) => {
      const first = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '--stall-timeout', '5m']);
      assertExit(first, 1, 'run to the target');
      const output = `${first.stdout}\n${first.stderr}`;
      assert.match(
        output,
        /OLM offers redis-enterprise-operator\.v7\.8\.6-11, not the target redis-enterprise-operator\.v7\.8\.6-20/,
      );
      assert.match(
        output,
        /Upgrade to 7\.8\.6-11 first: ctl --kubeconfig \S+ upgrade run --to 7\.8\.6-11 .*then ctl --kubeconfig \S+ upgrade run --to 7\.8\.6-20 again/,
      );
      assert.deepEqual(installPlanWrites(sim), [], 'the offered plan is not approved');
      const [pending] = await sim.list(['installplan', '-n', 'redis']);
      assert.deepEqual(getPath(pending, ['spec', 'clusterServiceVersionNames']), [
        'redis-enterprise-operator.v7.8.6-11',
      ]);
      assert.equal(getPath(pending, ['spec', 'approved']), false);

      // The fix the message gives: through 7.8.6-11, then to the target. The failed run approved
      // nothing, so the run to 7.8.6-11 replaces its state rather than asking to delete it.
      const through = await sim.ctl(['upgrade', 'run', '--to', '7.8.6-11', '--yes']);
      assertExit(through, 0, 'run to 7.8.6-11');
      assert.match(
        through.stderr,
        /the run to 7\.8\.6-20 recorded in .* stopped at the operator step having approved nothing \(the operator still runs 7\.4\.6-2\): this run to 7\.8\.6-11 replaces it/,
      );
      assert.equal((await subscriptionStatus(sim)).installedCSV, 'redis-enterprise-operator.v7.8.6-11');
      const last = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json']);
      assertExit(last, 0, 'run to the target');
      await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
      assert.equal((await subscriptionStatus(sim)).installedCSV, 'redis-enterprise-operator.v7.8.6-20');
      assert.equal(installPlanWrites(sim).length, 2, 'one approval per hop');
    });
  });
});
