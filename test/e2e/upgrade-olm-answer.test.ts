import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers/temp.js';
import { assertExit, assertNoChanges, changes, getPath, withUpgradeSim } from './upgrade-support.js';

/**
 * OLM's own answer beats ctl's catalog (found by the generated worlds, test/worlds/situations.ts):
 * the catalog source on a cluster may not be the certified one ctl's catalog read, so its CSVs
 * may skip other CSVs than ctl expects. Here none of them skips the installed CSV
 * (`operator.olm.skips: none`). In the subscribed channel the Subscription shows it
 * (AtLatestKnown under a newer head that the certified bundle says skips it): the plan fails
 * olm-update-path before any change, and plans no route through other heads from a catalog the
 * cluster contradicts. In another channel nothing shows it until ctl switches to it: the run
 * stops at its operator step (exit 1), and the plan made next fails olm-update-path rather than
 * trying again (or another route, found missing in the run one edge at a time).
 */

interface PlanJson {
  checks: { id: string; status: string; message: string; fix: string }[];
  blocked: boolean;
}

const olmUpdatePath = (stdout: string) =>
  (JSON.parse(stdout) as PlanJson).checks.find((check) => check.id === 'olm-update-path');

/**
 * An OperatorHub install on `operator` subscribed to `channel`, whose catalog skips it nowhere;
 * OperatorHub offers the bundles of the cluster's OpenShift, 4.(N-13) of Kubernetes 1.N.
 */
function noSkipsScenario(name: string, operator: string, channel: string, kubernetes: string): string {
  const file = path.join(tempDir('ctl-olm-answer-'), `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
description: "OperatorHub install whose catalog skips the installed CSV nowhere (test/e2e/upgrade-olm-answer.test.ts)"
dialect: redis
platform: openshift
kubernetesVersion: "${kubernetes}"
namespace: ledgers
operator:
  version: ${operator}
  installedBy: olm
  olm:
    channel: ${channel}
    approval: Manual
    skips: none
cluster:
  name: rec
  repository: registry.connect.redhat.com/redislabs/redis-enterprise
databases:
  - { name: sessions, version: "7.2" }
`,
  );
  return file;
}

describe('olm-update-path takes OLM at its word (e2e)', () => {
  it('the subscribed channel offers nothing from the installed CSV: the plan fails olm-update-path, naming the Subscription', async () => {
    await withUpgradeSim(noSkipsScenario('olm-no-skips-here', '7.4.6-2', '7.4.6', '1.29'), async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '7.4.6-12', '-o', 'json']);
      assertExit(plan, 3, 'plan');
      const check = olmUpdatePath(plan.stdout);
      assert.equal(check?.status, 'fail');
      assert.match(
        check?.message ?? '',
        /OLM offers no update from redis-enterprise-operator\.v7\.4\.6-2 in channel 7\.4\.6 \(Subscription redis-enterprise-operator-cert is AtLatestKnown under the head redis-enterprise-operator\.v7\.4\.6-12\)/,
      );
      assert.match(check?.message ?? '', /does not hold the update edges of the certified bundles ctl read/);
      assert.match(
        check?.fix ?? '',
        /oc --kubeconfig \S+ get catalogsource certified-operators -n openshift-marketplace -o yaml/,
      );
      assertNoChanges(sim, 0, 'plan');
    });
  });

  it('another channel offers nothing either: the run stops at the operator step (exit 1), and the next plan fails olm-update-path', async () => {
    await withUpgradeSim(noSkipsScenario('olm-no-skips-there', '7.8.2-6', '7.8.2', '1.31'), async (sim) => {
      // 7.8.2-6 is the head of its own channel: nothing on the cluster shows another channel's edges.
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '7.22.2-22', '-o', 'json']);
      assertExit(plan, 0, 'plan');
      const tag = (rec: unknown) => getPath(rec, ['spec', 'redisEnterpriseImageSpec', 'versionTag']);
      const before = tag(await sim.get(['rec', 'rec', '-n', 'ledgers']));
      const run = await sim.ctl(['upgrade', 'run', '--to', '7.22.2-22', '--yes']);
      assertExit(run, 1, 'run');
      assert.match(
        run.stderr,
        /OLM offers no update from redis-enterprise-operator\.v7\.8\.2-6 in channel 7\.22\.2-22\.0/,
      );
      // Nothing beyond the Subscription's channel changed: the cluster was not touched.
      assert.equal(tag(await sim.get(['rec', 'rec', '-n', 'ledgers'])), before);
      assert.ok(changes(sim).every((entry) => !entry.path.includes('redisenterpriseclusters')));
      const again = await sim.ctl(['upgrade', 'plan', '--to', '7.22.2-22', '-o', 'json']);
      assertExit(again, 3, 'plan after the stopped run');
      const check = olmUpdatePath(again.stdout);
      assert.equal(check?.status, 'fail');
      assert.match(
        check?.message ?? '',
        /in channel 7\.22\.2-22\.0 \(Subscription redis-enterprise-operator-cert is AtLatestKnown under the head redis-enterprise-operator\.v7\.22\.2-22\)/,
      );
    });
  });
});
