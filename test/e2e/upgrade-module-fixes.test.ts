import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers/temp.js';
import { assertExit, withUpgradeSim } from './upgrade-support.js';

/**
 * The modules-compatible fix fits the target's RS (issue 27): before RS 8 a module without a
 * RHEL9 build is uploaded (POST /v2/modules); from RS 8 a bundled module comes with the
 * database upgrade and a custom one goes into spec.userDefinedModules (from 8.0.6-8, the first REC
 * with the field; issue 37), and no upload is offered.
 */

function scenarioFile(name: string, operator: string, tag: string, dbVersion: string): string {
  const file = path.join(tempDir('ctl-module-fixes-'), `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
description: "Modules without RHEL9 builds, written by test/e2e/upgrade-module-fixes.test.ts"
dialect: redis
namespace: geo
operator:
  version: ${operator}
cluster:
  name: atlas
  versionTag: ${tag}
modules:
  - { name: search, version: 2.8.4, platforms: [rhel8/x86_64] }
  - { name: geofence, version: 1.2.3, platforms: [rhel8/x86_64] }
databases:
  - { name: places, version: "${dbVersion}", modules: [{ name: search, version: 2.8.4 }] }
  - { name: zones, version: "${dbVersion}", modules: [{ name: geofence, version: 1.2.3 }] }
`,
  );
  return file;
}

interface PlanJson {
  checks: { id: string; status: string; message: string; fix: string }[];
}

async function modulesCheck(file: string, target: string): Promise<PlanJson['checks'][number]> {
  return withUpgradeSim(file, async (sim) => {
    const plan = await sim.ctl(['upgrade', 'plan', '--to', target, '--max-hops', '1', '-o', 'json']);
    const doc = JSON.parse(plan.stdout) as PlanJson;
    const check = doc.checks.find((c) => c.id === 'modules-compatible');
    assert.ok(check, plan.stdout + plan.stderr);
    return check;
  });
}

describe('modules-compatible fixes fit the target RS (e2e)', () => {
  it('a 7.8 target still takes uploads: POST /v2/modules', async () => {
    const check = await modulesCheck(scenarioFile('modules-to-78', '7.4.6-2', '7.4.6-22', '7.2'), '7.8.6-19');
    assert.equal(check.status, 'fail', JSON.stringify(check));
    assert.match(check.fix, /POST .*\/v2\/modules/);
  });

  it('an RS 8 target: upgrade the database for bundled search, spec.userDefinedModules for geofence, no upload', async () => {
    const check = await modulesCheck(
      scenarioFile('modules-to-80', '7.22.2-43', '7.22.2-179', '7.4'),
      '8.0.6-8',
    );
    assert.equal(check.status, 'fail', JSON.stringify(check));
    // What to do, concretely: which field, which version, and that the run does it.
    assert.match(
      check.fix,
      /search is bundled from RS 8: upgrade places to Redis 8 or later, which enables and upgrades it with no module package to install: once the cluster runs RS 8, set spec\.redisVersion of its database resource to "8\.0" or later \(ctl upgrade run does it in its databases step, to the target's default version, unless --databases leaves it out\)/,
    );
    assert.match(check.fix, /geofence is a user-defined module: list it in spec\.userDefinedModules/);
    // The running 7.22 cluster resource has no such field yet: ctl sets it with the new versionTag.
    assert.match(check.fix, /ctl --kubeconfig \S+ upgrade run --to 8\.0\.6-8 --user-defined-modules FILE/);
    assert.doesNotMatch(
      check.fix,
      /kubectl (--kubeconfig \S+ )?patch rec atlas -n geo --type merge -p '\{"spec":\{"userDefinedModules"/,
    );
    assert.doesNotMatch(check.fix, /-X POST/);
  });

  it('frozen on an RS 8 target (module-without-rhel9 to 8.0.6-8): no --remediate --module-file offered, a fix to act on', async () => {
    await withUpgradeSim('module-without-rhel9', async (sim) => {
      const run = await sim.ctl([
        'upgrade',
        'run',
        '--to',
        '8.0.6-8',
        '--ignore-check',
        'modules-compatible',
        '--yes',
      ]);
      assertExit(run, 1, 'run frozen on ReJSON');
      assert.match(
        run.stderr,
        /error: the cluster upgrade is frozen: module ReJSON 2\.6\.10 has no rhel9 build installed/,
      );
      // The 8.0.6-8 cluster takes no uploads (catalog: bundled modules from 8.0.2-2), and
      // --remediate refuses every module there: neither is offered.
      assert.match(
        run.stderr,
        /\nhint: The 8\.0\.6-8 cluster takes no module uploads, so --remediate cannot fix ReJSON: do what the commands above say, then run the same ctl command again; it resumes the monitor step\.\n/,
      );
      // Neither in the commands printed nor in the hint (the operator's log above them may name
      // the upload: the simulator's line names every remedy).
      const advice = run.stderr.slice(run.stderr.indexOf('fix it through the management API'));
      assert.doesNotMatch(advice, /--module-file|MODULE_RHEL9_ZIP|v2\/modules/);
      assert.match(
        run.stderr,
        /# ReJSON is bundled from RS 8: upgrade profiles to Redis 8 or later, which enables and upgrades it with no module package to install: once the cluster runs RS 8, set spec\.redisVersion of its database resource to "8\.0" or later/,
      );
    });
  });
});
