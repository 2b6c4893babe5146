import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkIn, writeScenario } from '../helpers/plan-checks.js';
import { assertExit, withUpgradeSim } from './upgrade-support.js';

/**
 * Issue 37 items 1 and 2 on the simulator's module kinds: ctl judges a module by what the
 * management API says of it (`is_bundled`), not by its name, so a custom build named like a
 * bundled module is a custom module, and a deprecated one warns on the way to RS 8. The built
 * ctl against the simulator, on scenarios written here (names and namespaces used nowhere else).
 */

const scenario = (name: string, body: string): string =>
  writeScenario('test/e2e/module-kinds.test.ts', name, body);

/** A 7.22 cluster whose database `ledgerline` uses `search` 2.10.40, of the given kind. */
function searchCluster(name: string, kind: 'bundled' | 'custom'): string {
  return scenario(
    name,
    `dialect: redis
namespace: fjord-${kind}
operator: { version: 7.22.2-43 }
cluster: { name: skerry, versionTag: 7.22.2-179, apiVersion: 7.22.2-179 }
modules:
  - { name: search, version: 2.10.40, platforms: [rhel9/x86_64], kind: ${kind} }
databases:
  - { name: ledgerline, version: "7.4", modules: [{ name: search, version: 2.10.40 }] }
  - { name: plain, version: "7.4" }
`,
  );
}

describe(
  'module kinds: what the management API says wins over the name (issue 37, e2e)',
  { timeout: 600_000 },
  () => {
    it('a custom build named search, in use, and an 8.0.2-x target: exit 3 naming custom-modules-skip-8-0-2 and its source', async () => {
      await withUpgradeSim(searchCluster('mk-custom-search', 'custom'), async (sim) => {
        const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.0.2-6', '--max-hops', '1', '-o', 'json']);
        assertExit(plan, 3, 'plan');
        const rules = checkIn(plan.stdout, 'release-rules');
        assert.equal(rules.status, 'fail', rules.message);
        assert.match(rules.message, /rule custom-modules-skip-8-0-2 .*module search \(used by ledgerline\)/);
        assert.match(
          rules.message,
          /source: redis\/docs@\w+ content\/operate\/kubernetes\/release-notes\/8-0-2-releases\//,
        );
        assert.match(rules.fix, /8\.0\.6-8 or later/);
      });
    });

    it('the bundled search of the same name and version does not set the rule off', async () => {
      await withUpgradeSim(searchCluster('mk-bundled-search', 'bundled'), async (sim) => {
        const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.0.2-6', '--max-hops', '1', '-o', 'json']);
        const rules = checkIn(plan.stdout, 'release-rules');
        assert.notEqual(rules.status, 'fail', rules.message);
        assert.doesNotMatch(rules.message, /custom-modules-skip-8-0-2 \(/);
        assert.doesNotMatch(rules.message, /module search/);
        assert.notEqual(plan.code, 3, `${plan.stdout}\n${plan.stderr}`);
      });
    });

    it('a custom build named search without a RHEL9 build: modules-compatible advises spec.userDefinedModules, not the bundled path', async () => {
      const file = scenario(
        'mk-custom-search-rhel8',
        `dialect: redis
namespace: moraine
operator: { version: 7.22.2-43 }
cluster: { name: cirque, versionTag: 7.22.2-179, apiVersion: 7.22.2-179 }
modules:
  - { name: search, version: 2.10.41, platforms: [rhel8/x86_64], kind: custom }
databases:
  - { name: scree, version: "7.4", modules: [{ name: search, version: 2.10.41 }] }
`,
      );
      await withUpgradeSim(file, async (sim) => {
        const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.0.6-8', '--max-hops', '1', '-o', 'json']);
        assertExit(plan, 3, 'plan');
        const modules = checkIn(plan.stdout, 'modules-compatible');
        assert.equal(modules.status, 'fail', modules.message);
        assert.match(modules.fix, /search is a user-defined module: list it in spec\.userDefinedModules/);
        // 7.22's cluster resource has no such field: ctl sets it with the new versionTag.
        assert.match(
          modules.fix,
          /ctl --kubeconfig \S+ upgrade run --to 8\.0\.6-8 --user-defined-modules FILE/,
        );
        assert.doesNotMatch(modules.fix, /kubectl (--kubeconfig \S+ )?patch rec cirque/);
        assert.doesNotMatch(modules.fix, /bundled from RS 8/);
      });
    });

    it('deprecated modules on the way to RS 8: RedisGears 2 in use and RedisGraph only installed both warn', async () => {
      const file = scenario(
        'mk-deprecated',
        `dialect: redis
namespace: tundra
operator: { version: 7.22.2-43 }
cluster: { name: permafrost, versionTag: 7.22.2-179, apiVersion: 7.22.2-179 }
modules:
  - { name: redisgears_2, version: 2.0.20, platforms: [rhel9/x86_64] }
  - { name: graph, version: 2.10.15, platforms: [rhel9/x86_64] }
databases:
  - { name: lichen, version: "7.4", modules: [{ name: redisgears_2, version: 2.0.20 }] }
`,
      );
      await withUpgradeSim(file, async (sim) => {
        const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.0.20-27', '--max-hops', '1', '-o', 'json']);
        const rules = checkIn(plan.stdout, 'release-rules');
        assert.equal(rules.status, 'warn', rules.message);
        assert.match(rules.message, /rule rs8-rolling-upgrade-modules /);
        assert.match(rules.message, /module redisgears_2 \(used by lichen\)/);
        assert.match(rules.message, /module graph 2\.10\.15 \(installed\)/);
        assert.match(rules.message, /content\/operate\/rs\/release-notes\/rs-8-0-releases\/_index\.md/);
        assert.notEqual(plan.code, 3, `${plan.stdout}\n${plan.stderr}`);
      });
    });

    it('on a cluster already on RS 8, a module the API reports as bundled is bundled whatever its name; an upload of the same name is custom', async () => {
      const onRs8 = (kind: 'bundled' | 'custom') =>
        scenario(
          `mk-rs8-${kind}`,
          `dialect: redis
namespace: mesa-${kind}
operator: { version: 8.0.20-27 }
cluster: { name: butte }
modules:
  - { name: vectorkit, version: 1.2.0, platforms: [rhel9/x86_64], kind: ${kind} }
databases:
  - { name: arroyo, version: "8.0", modules: [{ name: vectorkit, version: 1.2.0 }] }
`,
        );
      await withUpgradeSim(onRs8('bundled'), async (sim) => {
        const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.2.0-18', '--max-hops', '1', '-o', 'json']);
        const rules = checkIn(plan.stdout, 'release-rules');
        assert.doesNotMatch(rules.message, /vectorkit/);
      });
      await withUpgradeSim(onRs8('custom'), async (sim) => {
        const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.2.0-18', '--max-hops', '1', '-o', 'json']);
        const rules = checkIn(plan.stdout, 'release-rules');
        assert.equal(rules.status, 'warn', rules.message);
        assert.match(rules.message, /rule rs8-rolling-upgrade-modules .*module vectorkit \(used by arroyo\)/);
      });
    });
  },
);
