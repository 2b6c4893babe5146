import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import { writeModulePackage } from '../helpers/module-package.js';
import { tempDir } from '../helpers/temp.js';
import {
  assertExit,
  assertNoChanges,
  assertUpgraded,
  describeEntries,
  TARGET,
  withUpgradeSim,
} from './upgrade-support.js';

/**
 * The module packages an older ramp-packer made (RedisLabsModules/RAMP): before February 2023
 * module.json listed no `operating_systems`; for a few weeks it listed `os_list` instead, and
 * before that only `os`, which is "Linux" (platform.system()) unless the packer was told
 * otherwise. The cluster reads either list (RAMP/unpacker.py), and a RHEL8 build does not lift
 * the freeze of an upgrade to RHEL9 images. The module-packages check must judge them before the
 * run: a RHEL8 list blocks the plan, a RHEL9 list lets the run lift the freeze, and a package that
 * names no release makes the check say that it cannot tell. Names and namespace are used nowhere
 * else.
 */

const NAMESPACE = 'catalog';
const TAG = clusterTagFor(TARGET) ?? '';

/** module-without-rhel9's cluster, in namespace `catalog` with a cluster named `shop`. */
function world(): string {
  const file = path.join(tempDir('ctl-module-os-'), 'module-os-catalog.yaml');
  writeFileSync(
    file,
    `name: module-os-catalog
description: "ReJSON 2.6.10 installed only for rhel8, written by test/e2e/module-package-os.test.ts"
dialect: redis
namespace: ${NAMESPACE}
operator:
  version: 7.4.6-2
cluster:
  name: shop
  versionTag: 7.4.6-22
modules:
  - { name: ReJSON, version: 2.6.10, platforms: [rhel8/x86_64] }
databases:
  - { name: carts, version: "7.2", modules: [{ name: ReJSON, version: 2.6.10 }] }
`,
  );
  return file;
}

interface PlanJson {
  blocked: boolean;
  checks: { id: string; status: string; message: string }[];
}

describe('module packages of older packers (e2e)', () => {
  it('an os_list of rhel8 blocks plan and run; an os of Linux only is said to be unknown; an os_list of rhel9 lifts the freeze', async () => {
    await withUpgradeSim(world(), async (sim) => {
      const accepted = [
        '--to',
        TARGET,
        '-n',
        NAMESPACE,
        '--ignore-check',
        'modules-compatible',
        '--remediate',
      ];
      const rejson = (file: string, older: { os?: string; osList?: string[] }) =>
        writeModulePackage(sim.sandbox.dir, { file, module: 'ReJSON', version: '2.6.10', older });
      const modulePackages = async (file: string) => {
        const plan = await sim.ctl(['upgrade', 'plan', ...accepted, '--module-file', file, '-o', 'json']);
        const doc = JSON.parse(plan.stdout) as PlanJson;
        const check = doc.checks.find((c) => c.id === 'module-packages');
        assert.ok(check, plan.stdout);
        return { code: plan.code, check, stderr: plan.stderr };
      };

      // Packed in January 2023 on RHEL8: `os_list: ["rhel8"]`.
      const rhel8 = rejson('rejson.Linux-rhel8-x86_64.2.6.10.zip', { osList: ['rhel8'] });
      const refused = await modulePackages(rhel8);
      assert.equal(refused.code, 3, refused.stderr);
      assert.equal(refused.check.status, 'fail');
      assert.match(
        refused.check.message,
        /no --module-file holds the RHEL9 build of ReJSON 2\.6\.10; given: rejson\.Linux-rhel8-x86_64\.2\.6\.10\.zip holds ReJSON 2\.6\.10 \(rhel8, x86_64\)/,
      );
      const run = await sim.ctl(['upgrade', 'run', ...accepted, '--module-file', rhel8, '--yes']);
      assertExit(run, 3, 'the run with the RHEL8 package');
      assert.match(run.stderr, /- module-packages: /);
      // A package that says only `os: rhel8` was built for RHEL8 too.
      assert.equal(
        (await modulePackages(rejson('rejson-os-rhel8.zip', { os: 'rhel8' }))).check.status,
        'fail',
      );
      assertNoChanges(sim, 0, 'the blocked plans and run');

      // Only `os: Linux`: the kernel, not the release. The cluster decides; the plan says so.
      const unknown = await modulePackages(rejson('rejson-2.6.10.zip', {}));
      assert.equal(unknown.code, 0, unknown.stderr);
      assert.equal(unknown.check.status, 'pass');
      assert.match(
        unknown.check.message,
        /rejson-2\.6\.10\.zip does not say which OS it was built for .* so the plan cannot tell whether it is the RHEL9 build/,
      );
      assertNoChanges(sim, 0, 'the plan of an unknown package');

      // Packed in January 2023 on RHEL9: `os_list: ["rhel9"]`, which the cluster reads.
      const rhel9 = rejson('rejson.Linux-rhel9-x86_64.2.6.10.zip', { osList: ['rhel9'] });
      const taken = await modulePackages(rhel9);
      assert.equal(taken.check.status, 'pass');
      assert.match(taken.check.message, /hold the RHEL9 build of ReJSON 2\.6\.10/);
      const fixed = await sim.ctl(['upgrade', 'run', ...accepted, '--module-file', rhel9, '--yes']);
      assertExit(fixed, 0, 'the run with the RHEL9 package');
      const uploads = sim.cluster.audit.filter('POST', '/v2/modules');
      assert.deepEqual(
        uploads.map((u) => u.status),
        [200],
        describeEntries(uploads),
      );
      await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
    });
  });
});
