import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkIn, type PlanCheck, writeScenario } from '../helpers/plan-checks.js';
import { assertExit, getPath, withUpgradeSim } from './upgrade-support.js';

/**
 * Issue 37, "Done when": the release notes' rules and the release lines' end of life (check
 * release-rules), every Active-Active participant judged by the operator that shipped its RS,
 * the manual Active-Active path asking the participants first, module advice that fits the
 * target's cluster resource, and OLM's OpenShift range. The built ctl against the simulator, on
 * scenarios written here (names and namespaces used nowhere else).
 */

const scenario = (name: string, body: string): string =>
  writeScenario('test/e2e/release-rules.test.ts', name, body);

interface PlanJson {
  checks: PlanCheck[];
  steps: {
    id: string;
    actions: { description: string; command: string; database?: Record<string, unknown> }[];
  }[];
  blocked: boolean;
}

describe('release rules, participants and OLM ranges (issue 37, e2e)', { timeout: 600_000 }, () => {
  it('a user-defined module in use and an 8.0.2-x target: exit 3 naming the rule and its source; no userDefinedModules advice', async () => {
    const file = scenario(
      'rr-custom-module',
      `dialect: redis
namespace: orbit
operator: { version: 7.22.2-43 }
cluster: { name: comet, versionTag: 7.22.2-179, apiVersion: 7.22.2-179 }
modules:
  - { name: search, version: 2.8.13, platforms: [rhel9/x86_64] }
  - { name: tidal, version: 1.4.0, platforms: [rhel8/x86_64] }
databases:
  - { name: moons, version: "7.4", modules: [{ name: tidal, version: 1.4.0 }] }
`,
    );
    await withUpgradeSim(file, async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.0.2-6', '--max-hops', '1', '-o', 'json']);
      assertExit(plan, 3, 'plan');
      const doc = JSON.parse(plan.stdout) as PlanJson;
      const rules = checkIn(doc, 'release-rules');
      assert.equal(rules.status, 'fail');
      assert.match(rules.message, /rule custom-modules-skip-8-0-2 .*module tidal \(used by moons\)/);
      assert.match(
        rules.message,
        /source: redis\/docs@63f31f69 content\/operate\/kubernetes\/release-notes\/8-0-2-releases\/8-0-2-2-october2025\.md/,
      );
      assert.match(rules.fix, /8\.0\.6-8 or later/);
      // The module's advice fits 8.0.2-6, whose REC has no spec.userDefinedModules.
      const modules = checkIn(doc, 'modules-compatible');
      assert.doesNotMatch(modules.fix, /userDefinedModules/);
      assert.match(modules.fix, /tidal is a user-defined module, which 8\.0\.2-6 does not support/);

      // From 8.0.6-8 the REC takes spec.userDefinedModules: the rule no longer blocks, it warns.
      const later = await sim.ctl(['upgrade', 'plan', '--to', '8.0.6-8', '--max-hops', '1', '-o', 'json']);
      const laterDoc = JSON.parse(later.stdout) as PlanJson;
      assert.equal(checkIn(laterDoc, 'release-rules').status, 'warn');
      assert.match(checkIn(laterDoc, 'modules-compatible').fix, /spec\.userDefinedModules/);

      // Text output names the rule too.
      const text = await sim.ctl(['upgrade', 'plan', '--to', '8.0.2-2', '--max-hops', '1']);
      assertExit(text, 3, 'text plan');
      assert.match(`${text.stdout}${text.stderr}`, /release-rules/);
    });
  });

  it('a deprecated module on the way to RS 8: a warning, and the plan is not blocked by it', async () => {
    const file = scenario(
      'rr-deprecated-module',
      `dialect: redis
namespace: lattice
operator: { version: 7.22.2-43 }
cluster: { name: prism, versionTag: 7.22.2-179, apiVersion: 7.22.2-179 }
modules:
  - { name: graph, version: 2.10.12, platforms: [rhel8/x86_64, rhel9/x86_64] }
databases:
  - { name: edges, version: "7.4", modules: [{ name: graph, version: 2.10.12 }] }
`,
    );
    await withUpgradeSim(file, async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.0.20-27', '--max-hops', '1', '-o', 'json']);
      const doc = JSON.parse(plan.stdout) as PlanJson;
      const rules = checkIn(doc, 'release-rules');
      assert.equal(rules.status, 'warn', rules.message);
      assert.match(rules.message, /rule rs8-rolling-upgrade-modules .*module graph/);
      assert.match(rules.message, /rs-8-0-releases\/_index\.md/);
    });
  });

  it('an REAADB whose participant runs an affected operator is held back, run exit 0, participant and fix named', async () => {
    const file = scenario(
      'rr-affected-participant',
      `dialect: redis
namespace: harbor
operator: { version: 7.22.2-43 }
cluster: { name: quay, versionTag: 7.22.2-179, apiVersion: 7.22.2-179 }
remoteClusters:
  - { name: rerc-pier, operator: 8.0.20-26 }
databases:
  - { name: ledger, version: "7.4" }
  - { name: manifest, version: "7.4", activeActive: true, participants: [rerc-pier] }
`,
    );
    await withUpgradeSim(file, async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.0.20-27', '--max-hops', '1', '-o', 'json']);
      assertExit(plan, 0, 'plan');
      const doc = JSON.parse(plan.stdout) as PlanJson;
      const rules = checkIn(doc, 'release-rules');
      assert.equal(rules.status, 'warn');
      assert.match(
        rules.message,
        /participant rerc-pier runs Redis Software 8\.0\.20-96, shipped with operator 8\.0\.20-26/,
      );
      const held = doc.steps
        .find((s) => s.id === 'databases')
        ?.actions.find((a) => a.database?.name === 'manifest');
      assert.match(String(held?.database?.heldBack), /advisory reaadb-empty-password/);

      const run = await sim.ctl(['upgrade', 'run', '--to', '8.0.20-27', '--max-hops', '1', '--yes']);
      assertExit(run, 0, 'run');
      assert.match(
        run.stderr,
        /manifest held back, not raised to 8\.6: participant rerc-pier runs Redis Software 8\.0\.20-96, shipped with operator 8\.0\.20-26, which is affected by advisory reaadb-empty-password .*upgrade the operator of rerc-pier to 8\.0\.20-27/,
      );
      const aa = await sim.get(['reaadb', 'manifest', '-n', 'harbor']);
      assert.equal(getPath(aa, ['spec', 'globalConfigurations', 'redisVersion']), '7.4', 'REAADB untouched');
    });
  });

  it('the manual Active-Active path with a participant on an old RS holds the database back instead of printing commands', async () => {
    const file = scenario(
      'rr-manual-old-participant',
      `dialect: redis
namespace: delta
operator: { version: 7.8.6-15 }
cluster: { name: estuary, versionTag: 7.8.6-263, apiVersion: 7.8.6-263 }
remoteClusters:
  - { name: rerc-reed, rsVersion: 7.2.4-64 }
databases:
  - { name: silt, version: "7.2" }
  - { name: tides, version: "7.2", activeActive: true, participants: [rerc-reed] }
`,
    );
    await withUpgradeSim(file, async (sim) => {
      const run = await sim.ctl(['upgrade', 'run', '--to', '7.22.2-45', '--max-hops', '1', '--yes']);
      assertExit(run, 0, 'run');
      assert.match(
        run.stderr,
        /tides held back, not raised to 7\.4: participant rerc-reed runs Redis Software 7\.2\.4-64, which does not bundle Redis 7\.4/,
      );
      assert.doesNotMatch(run.stderr, /rladmin upgrade db/);
      assert.doesNotMatch(run.stderr, /must be upgraded by hand/);
    });
  });

  it('OLM on OpenShift 4.20 never recommends or offers 7.22.2-45; --to it fails platform-supported', async () => {
    const file = scenario(
      'rr-olm-ocp420',
      `dialect: redis
namespace: redis
platform: openshift
kubernetesVersion: "1.33"
openshiftVersion: "4.20.2"
operator:
  version: 7.22.2-40
  installedBy: olm
  olm:
    channel: 7.22.2
    approval: Manual
    startingCSV: redis-enterprise-operator.v7.22.2-40
cluster:
  versionTag: 7.22.2-133
  repository: registry.connect.redhat.com/redislabs/redis-enterprise
  apiVersion: 7.22.2-133
databases:
  - { name: basin, version: "7.4" }
`,
    );
    await withUpgradeSim(file, async (sim) => {
      const list = await sim.ctl(['upgrade', 'plan', '-o', 'json']);
      const targets = JSON.parse(list.stdout) as {
        recommended: string | null;
        targets: { operator: string }[];
      };
      assert.ok(
        !targets.targets.some((t) => t.operator === '7.22.2-45'),
        `targets: ${targets.targets.map((t) => t.operator).join(', ')}`,
      );
      assert.notEqual(targets.recommended, '7.22.2-45');
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '7.22.2-45', '--max-hops', '1', '-o', 'json']);
      assertExit(plan, 3, 'plan --to 7.22.2-45');
      const platform = checkIn(JSON.parse(plan.stdout) as PlanJson, 'platform-supported');
      assert.equal(platform.status, 'fail');
      assert.match(
        platform.message,
        /OperatorHub does not offer 7\.22\.2-45 on OpenShift 4\.20.*v4\.15-v4\.19/,
      );
    });
  });

  it('a cluster on RS 7.4 is warned of its line end of life', async () => {
    const file = scenario(
      'rr-eol-74',
      `dialect: redis
namespace: sunset
operator: { version: 7.4.6-2 }
cluster: { name: dusk, versionTag: 7.4.6-22, apiVersion: 7.4.6-22 }
databases:
  - { name: ember, version: "7.2" }
`,
    );
    await withUpgradeSim(file, async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.2.0-18', '-o', 'json']);
      const rules = checkIn(JSON.parse(plan.stdout) as PlanJson, 'release-rules');
      assert.equal(rules.status, 'warn');
      assert.match(
        rules.message,
        // Worded by the day the test runs on: before, on and after the line's last day.
        /this cluster runs Redis Software 7\.4, which (?:reaches its end of life on 2026-11-30|reaches its end of life today \(2026-11-30\)|reached its end of life on 2026-11-30)/,
      );
    });
  });
});
