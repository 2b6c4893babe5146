import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import {
  assertExit,
  assertNoChanges,
  assertUpgraded,
  changes,
  describeEntries,
  readState,
  TARGET,
  withUpgradeSim,
} from './upgrade-support.js';
import { rejsonRhel9Package } from '../helpers/module-package.js';

/**
 * The scenarios where the upgrade must not go ahead, or must stop half-way and say how to go
 * on: preflight failures (exit 3, nothing changed), the operator's InvalidUpgrade (exit 1 in
 * monitor), and the frozen upgrade (exit 1 with the commands, then --remediate).
 */

const TAG = clusterTagFor(TARGET) ?? '';

describe('ctl upgrade: preflight failures change nothing (e2e)', () => {
  const cases = [
    { scenario: 'license-invalid', check: 'license-valid' },
    // Two hops would reach the target (upgrade-hops.test.ts); --max-hops 1 forbids them.
    { scenario: 'old-operator', check: 'operator-min-version', extra: ['--max-hops', '1'] },
    { scenario: 'old-database', check: 'database-min-version' },
  ];
  for (const { scenario, check, extra } of cases as { scenario: string; check: string; extra?: string[] }[]) {
    it(`${scenario}: run exits 3 naming ${check}, with no mutating request`, async () => {
      await withUpgradeSim(scenario, async (sim) => {
        const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', ...(extra ?? [])]);
        assertExit(result, 3);
        assert.match(result.stderr, new RegExp(`- ${check}: `));
        assert.match(result.stderr, /nothing was changed/);
        assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
        assertNoChanges(sim, 0, `${scenario} run`);
        assert.equal(readState(sim).steps.preflight?.status, 'failed');
      });
    });
  }
});

describe('ctl upgrade on license-invalid past its check (e2e)', () => {
  it('--ignore-check license-valid: the operator refuses, and the monitor says what the licence is and the fix (exit 1)', async () => {
    await withUpgradeSim('license-invalid', async (sim) => {
      const run = await sim.ctl([
        'upgrade',
        'run',
        '--to',
        TARGET,
        '--yes',
        '--ignore-check',
        'license-valid',
      ]);
      assertExit(run, 1);
      assert.match(run.stderr, /refused the upgrade of rec: state InvalidUpgrade/);
      // The license-valid check's own fix (the licence lives in a Secret), then resume.
      assert.match(
        run.stderr,
        /hint: The cluster's licence is Invalid \(status\.licenseStatus\.licenseState\): Put a valid licence in Secret rec-license \(kubectl --kubeconfig \S+ create secret generic rec-license -n redis --from-file=license=LICENSE_FILE, with --dry-run=client -o yaml \| kubectl --kubeconfig \S+ apply -f - to replace it\); then run ctl again: it resumes the upgrade where it stopped\.\n/,
      );
      assert.equal(readState(sim).steps.monitor?.status, 'failed');
    });
  });
});

describe('ctl upgrade on invalid-upgrade (e2e)', () => {
  it('plan exits 3 naming auto-upgrade-digest; run exits 3 and changes nothing', async () => {
    await withUpgradeSim('invalid-upgrade', async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET]);
      assertExit(plan, 3, 'plan');
      assert.match(plan.stdout + plan.stderr, /auto-upgrade-digest/);
      const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes']);
      assertExit(run, 3, 'run');
      assert.match(run.stderr, /- auto-upgrade-digest: /);
      assertNoChanges(sim, 0, 'plan and run');
    });
  });

  it('--ignore-check auto-upgrade-digest: the monitor step fails (exit 1) with the Warning events and the fix', async () => {
    await withUpgradeSim('invalid-upgrade', async (sim) => {
      const run = await sim.ctl([
        'upgrade',
        'run',
        '--to',
        TARGET,
        '--yes',
        '--ignore-check',
        'auto-upgrade-digest',
      ]);
      assertExit(run, 1);
      assert.match(run.stderr, /refused the upgrade of rec: state InvalidUpgrade/);
      // The operator's own Warning, as kubectl shows it.
      const events = JSON.parse(await sim.kubectl(['get', 'events', '-n', 'redis', '-o', 'json'])) as {
        items: { type: string; message: string }[];
      };
      const warnings = events.items.filter((e) => e.type === 'Warning');
      assert.ok(warnings.length > 0, 'the operator raised a Warning');
      for (const warning of warnings) assert.ok(run.stderr.includes(warning.message), warning.message);
      // The fix: turn auto-upgrade off or drop the digest, as commands.
      assert.match(run.stderr, /"upgradeSpec":{"autoUpgradeRedisEnterprise":false/);
      assert.match(run.stderr, /"digestHash":null/);
      const state = readState(sim);
      assert.equal(state.steps.monitor?.status, 'failed');
      assert.equal(state.steps.operator?.status, 'done');
      assert.equal(state.result, 'failed');
    });
  });
});

describe('ctl upgrade on module-without-rhel9 (e2e)', () => {
  it('stops in monitor (exit 1) with the commands; a file that is no package is refused with advice; --remediate --module-file completes', async () => {
    await withUpgradeSim('module-without-rhel9', async (sim) => {
      // modules-compatible fails first: nothing starts without --ignore-check. Its fix is the upload
      // of the RHEL9 build of the version in use (RedisJSON has RHEL9 builds from 2.6.7), and no
      // release rule blocks: nothing has to be removed, as it would for RedisGraph.
      const blocked = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes']);
      assertExit(blocked, 3, 'without --ignore-check');
      assert.match(
        blocked.stderr,
        /- modules-compatible: modules without a RHEL9 build: ReJSON 2\.6\.10 \(platforms: rhel8\/x86_64; used by profiles\)/,
      );
      assert.doesNotMatch(blocked.stderr, /- release-rules: /);
      const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json']);
      assertExit(plan, 3, 'the plan');
      const checks = (JSON.parse(plan.stdout) as { checks: { id: string; status: string; fix: string }[] })
        .checks;
      assert.match(
        checks.find((c) => c.id === 'modules-compatible')?.fix ?? '',
        /^For each module: upload the RHEL9 build of ReJSON 2\.6\.10, the version the databases use: curl .* -X POST -F module=@MODULE_RHEL9_ZIP https:\/\/localhost:9443\/v2\/modules\. Or let ctl upload it when the upgrade freezes: ctl --kubeconfig \S+ upgrade run --to 7\.8\.2-6 --ignore-check modules-compatible --remediate --module-file RHEL9_PACKAGE \(its RHEL9 package\)\.$/,
      );
      assert.doesNotMatch(plan.stdout, /RedisGraph|remove it/);
      assertNoChanges(sim, 0, 'the blocked run');

      // Accepted, the run meets the freeze the simulator plays.
      const base = ['upgrade', 'run', '--to', TARGET, '--yes', '--ignore-check', 'modules-compatible'];
      const frozen = await sim.ctl(base);
      assertExit(frozen, 1, 'the frozen run');
      assert.match(
        frozen.stderr,
        /the cluster upgrade is frozen: module ReJSON 2\.6\.10 has no rhel9 build installed \(used by profiles \(uid \d+\)\)/,
      );
      // The operator's own account, read from its log through the Kubernetes API (pods/log).
      // KUBECONFIG names the simulator's file: each command names it too.
      assert.match(frozen.stderr, /kubectl --kubeconfig \S+ logs deploy\/redis-enterprise-operator -n redis/);
      assert.match(frozen.stderr, /Upgrade Error: database profiles \(uid \d+\) uses module ReJSON 2\.6\.10/);
      assert.match(frozen.stderr, /kubectl --kubeconfig \S+ port-forward svc\/rec 9443:9443 -n redis/);
      assert.match(frozen.stderr, /# install the RHEL9 build of each module, of the version in use:/);
      assert.match(
        frozen.stderr,
        /-X POST -F module=@REJSON-2\.6\.10-RHEL9-PACKAGE\.zip https:\/\/localhost:9443\/v2\/modules/,
      );
      assert.match(frozen.stderr, /--remediate --module-file/);
      assert.equal(readState(sim).steps.monitor?.status, 'failed');
      assert.equal(sim.cluster.audit.filter('POST', '/v2/modules').length, 0);

      // A file the cluster does not take as a module package (HTTP 400 invalid_module): the
      // advice is another file, not the same command again with the same file.
      const notAPackage = path.join(sim.sandbox.dir, 'rejson-rhel9.zip');
      writeFileSync(notAPackage, 'neither a package nor named as one');
      const refused = await sim.ctl([...base, '--remediate', '--module-file', notAPackage]);
      assertExit(refused, 1, 'the run with a file that is no module package');
      assert.match(refused.stderr, /error: POST \/v2\/modules failed with HTTP 400: .*invalid_module/);
      assert.match(
        refused.stderr,
        /hint: The cluster did not take rejson-rhel9\.zip as a module package\. Pass the RHEL9 package of ReJSON 2\.6\.10 \(the zip Redis publishes, with the module and its module\.json\) with --module-file instead, then run ctl again with --remediate: it resumes the monitor step\./,
      );
      assert.equal(readState(sim).steps.monitor?.status, 'failed');

      // RedisJSON's RHEL9 package (its name: redis/docs rs/references/rest-api/requests/modules/
      // _index.md), a zip with its module.json, which the simulated management API reads.
      const moduleFile = rejsonRhel9Package(sim.sandbox.dir);
      const fixed = await sim.ctl([...base, '--remediate', '--module-file', moduleFile]);
      assertExit(fixed, 0, 'the remediating run');
      const uploads = sim.cluster.audit.filter('POST', '/v2/modules');
      assert.equal(uploads.length, 2, describeEntries(uploads));
      assert.deepEqual(
        uploads.map((u) => u.status),
        [400, 200],
      );
      await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
      assert.equal(readState(sim).result, 'succeeded');
      // Only one versionTag change across the four runs.
      const recPatches = changes(sim).filter((e) =>
        /\/redisenterpriseclusters\/rec$/.test(e.path.split('?')[0] ?? ''),
      );
      assert.equal(recPatches.length, 1);
    });
  });
});
