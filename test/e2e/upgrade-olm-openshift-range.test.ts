import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers/temp.js';
import { assertExit, assertNoChanges, withUpgradeSim } from './upgrade-support.js';

/**
 * OperatorHub offers a certified bundle only on the OpenShift versions its
 * `com.redhat.openshift.versions` annotation names (certified-operators
 * operators/redis-enterprise-operator-cert/7.22.2-45.1/metadata/annotations.yaml: v4.15-v4.19).
 * On OpenShift 4.20 the simulated PackageManifest does not list 7.22.2-45.1, and ctl does not
 * offer or recommend 7.22.2-45 there.
 */

interface TargetsDoc {
  recommended: string | null;
  targets: { operator: string; recommended: boolean }[];
}

function scenarioFile(): string {
  const file = path.join(tempDir('ctl-olm-range-'), 'olm-range-420.yaml');
  writeFileSync(
    file,
    `name: olm-range-420
description: "OperatorHub install on OpenShift 4.20, written by test/e2e/upgrade-olm-openshift-range.test.ts"
dialect: redis
platform: openshift
openshiftVersion: "4.20.3"
namespace: harbour
operator:
  version: 7.22.2-43
  installedBy: olm
  olm:
    channel: 7.22.2
    approval: Manual
cluster:
  name: quay
  versionTag: 7.22.2-179
  repository: registry.connect.redhat.com/redislabs/redis-enterprise
  apiVersion: 7.22.2-179
databases:
  - { name: manifests, version: "7.4" }
`,
  );
  return file;
}

describe('OperatorHub and the bundles OpenShift 4.20 is offered (e2e)', () => {
  it('7.22.2-45.1 (v4.15-v4.19) is in no channel of the PackageManifest, and ctl neither lists nor recommends 7.22.2-45', async () => {
    await withUpgradeSim(scenarioFile(), async (sim) => {
      const manifest = await sim.get(['packagemanifest', 'redis-enterprise-operator-cert', '-n', 'harbour']);
      const channels = (manifest.status as { channels: { name: string; currentCSV: string }[] }).channels;
      const heads = channels.map((c) => c.currentCSV);
      assert.ok(
        !heads.some((csv) => csv.includes('v7.22.2-45')),
        `no channel head is 7.22.2-45: ${heads.join(', ')}`,
      );
      assert.ok(!channels.some((c) => c.name === '7.22.2-45.1'), 'no channel of its own');
      assert.ok(
        heads.some((csv) => csv.includes('v8.2.0-18')),
        `8.2.0-18.0 (v4.19-v4.22) is offered: ${heads.join(', ')}`,
      );

      const listed = await sim.ctl(['upgrade', 'plan', '-o', 'json']);
      assertExit(listed, 0, 'plan (targets)');
      const doc = JSON.parse(listed.stdout) as TargetsDoc;
      const operators = doc.targets.map((t) => t.operator);
      assert.ok(!operators.includes('7.22.2-45'), `7.22.2-45 is not a target: ${operators.join(', ')}`);
      assert.notEqual(doc.recommended, '7.22.2-45');
      assertNoChanges(sim, 0, 'plan');
    });
  });
});
