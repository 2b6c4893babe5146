import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers/temp.js';
import { assertExit, assertNoChanges, withUpgradeSim } from './upgrade-support.js';

/**
 * The hole after 7.4.6-12.0 in Redis's certified OLM bundles: 8.2.0-18.0's spec.skips
 * (redhat-openshift-ecosystem/certified-operators commit 0eb3663,
 * operators/redis-enterprise-operator-cert/8.2.0-18.0/manifests) lists 7.4.6-11.0 but not
 * 7.4.6-12.0, and it has no spec.replaces; no other bundle lists 7.4.6-12.0 either. So OLM
 * offers an install on 7.4.6-12 no update to 8.2.0-18, and the plan must say so before any
 * change (check olm-update-path, exit 3), while 7.4.6-11 has the edge.
 */

interface PlanJson {
  checks: { id: string; status: string; message: string; fix: string }[];
  hops?: { checks?: { id: string; status: string; message: string }[] }[];
  blocked: boolean;
}

function scenarioFile(name: string, operator: string, tag: string): string {
  const file = path.join(tempDir('ctl-olm-hole-'), `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
description: "OperatorHub install at the head of channel 7.4.6, written by test/e2e/upgrade-olm-hole.test.ts"
dialect: redis
platform: openshift
kubernetesVersion: "1.33"
openshiftVersion: "4.20.0"
namespace: stockroom
operator:
  version: ${operator}
  installedBy: olm
  olm:
    channel: 7.4.6
    approval: Manual
cluster:
  name: shelf
  versionTag: ${tag}.rhel8-openshift
  repository: registry.connect.redhat.com/redislabs/redis-enterprise
  apiVersion: ${tag}
databases:
  - { name: inventory, version: "7.2" }
`,
  );
  return file;
}

const olmPathChecks = (plan: PlanJson) =>
  [...plan.checks, ...(plan.hops ?? []).flatMap((hop) => hop.checks ?? [])].filter(
    (check) => check.id === 'olm-update-path',
  );

describe('olm-update-path on the hole after 7.4.6-12 (e2e)', () => {
  it('7.4.6-12 --to 8.2.0-18: the plan fails olm-update-path (exit 3), naming the missing edge', async () => {
    await withUpgradeSim(scenarioFile('olm-hole-746-12', '7.4.6-12', '7.4.6-293'), async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.2.0-18', '-o', 'json']);
      assertExit(plan, 3, 'plan');
      const doc = JSON.parse(plan.stdout) as PlanJson;
      assert.equal(doc.blocked, true);
      const failed = olmPathChecks(doc).find((check) => check.status === 'fail');
      assert.ok(failed, JSON.stringify(olmPathChecks(doc)));
      assert.match(
        failed.message,
        /OLM has no update edge from redis-enterprise-operator\.v7\.4\.6-12\S* to redis-enterprise-operator\.v8\.2\.0-18/,
      );
      assertNoChanges(sim, 0, 'plan');
    });
  });

  it('7.4.6-11 --to 8.2.0-18: 8.2.0-18.0 skips 7.4.6-11.0, so olm-update-path does not fail', async () => {
    await withUpgradeSim(scenarioFile('olm-edge-746-11', '7.4.6-11', '7.4.6-283'), async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.2.0-18', '-o', 'json']);
      const doc = JSON.parse(plan.stdout) as PlanJson;
      const checks = olmPathChecks(doc);
      assert.ok(checks.length > 0, plan.stdout.slice(0, 2000));
      assert.ok(
        checks.every((check) => check.status !== 'fail'),
        JSON.stringify(checks),
      );
    });
  });
});
