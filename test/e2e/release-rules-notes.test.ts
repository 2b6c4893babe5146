import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { checkIn, writeScenario } from '../helpers/plan-checks.js';
import { tempDir } from '../helpers/temp.js';
import { assertExit, withUpgradeSim } from './upgrade-support.js';

/**
 * Issue 37, "Rules as data": rules taken from the notes' breaking changes and known limitations
 * whose triggers are of the generic kinds field-value, platform, install-method, modules-in-use
 * and all-of (docs/reference.md "Release rules"). The built ctl against the simulator, on
 * scenarios written here (names and namespaces used nowhere else).
 */

const scenario = (name: string, body: string): string =>
  writeScenario('test/e2e/release-rules-notes.test.ts', name, body);

describe('release rules from the notes, new trigger kinds (issue 37, e2e)', { timeout: 600_000 }, () => {
  it('a memcached REDB and an REDB with a module list on the way to 7.22.2-45: two warnings, each naming its database and source', async () => {
    const file = scenario(
      'rrn-memcached-moduleslist',
      `dialect: redis
namespace: pantry
operator: { version: 7.22.2-40 }
cluster: { name: larder, versionTag: 7.22.2-133, apiVersion: 7.22.2-133 }
modules:
  - { name: search, version: 2.10.5, platforms: [rhel9/x86_64] }
databases:
  - { name: shelves, version: "7.4", modules: [{ name: search, version: 2.10.5 }] }
  - { name: crates, version: "7.4" }
objects:
  - apiVersion: app.redislabs.com/v1alpha1
    kind: RedisEnterpriseDatabase
    metadata: { name: jars, namespace: pantry }
    spec: { type: memcached, memorySize: 100MB, redisEnterpriseCluster: { name: larder } }
`,
    );
    await withUpgradeSim(file, async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '7.22.2-45', '--max-hops', '1', '-o', 'json']);
      const rules = checkIn(plan.stdout, 'release-rules');
      assert.equal(rules.status, 'warn', rules.message);
      assert.match(
        rules.message,
        /rule memcached-redis-version .*spec\.type: memcached on REDB pantry\/jars/,
      );
      assert.doesNotMatch(rules.message, /spec\.type: memcached on REDB pantry\/(shelves|crates)/);
      assert.match(rules.message, /8-2-0-releases\/8-2-0-12-july2026\.md/);
      assert.match(
        rules.message,
        /rule modules-list-latest-7-8-to-7-22 .*spec\.modulesList of REDB pantry\/shelves/,
      );
      assert.doesNotMatch(rules.message, /spec\.modulesList of REDB pantry\/crates/);
      assert.match(rules.fix, /--databases/);
      assert.match(rules.fix, /upgradeModulesToLatest/);

      // From 8.0.2-2 on the module-list limitation is no longer in the notes; memcached still is.
      const later = checkIn(
        (await sim.ctl(['upgrade', 'plan', '--to', '8.0.20-27', '--max-hops', '1', '-o', 'json'])).stdout,
        'release-rules',
      );
      assert.match(later.message, /rule memcached-redis-version/);
      assert.doesNotMatch(later.message, /modules-list-latest/);
    });
  });

  it('OpenShift with a module in use, --to 6.2.10-34: exit 3 naming the rule and its notes', async () => {
    const file = scenario(
      'rrn-ocp-modules-6-2-10-34',
      `dialect: redis
namespace: quarry
platform: openshift
openshiftVersion: "4.9.12"
operator: { version: 6.2.10-4 }
cluster: { name: flint, versionTag: 6.2.10-90, apiVersion: 6.2.10-90 }
modules:
  - { name: search, version: 2.2.6, platforms: [rhel7/x86_64] }
databases:
  - { name: chisel, version: "6.2", modules: [{ name: search, version: 2.2.6 }] }
`,
    );
    await withUpgradeSim(file, async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '6.2.10-34', '--max-hops', '1', '-o', 'json']);
      assertExit(plan, 3, 'plan');
      const rules = checkIn(plan.stdout, 'release-rules');
      assert.equal(rules.status, 'fail', rules.message);
      assert.match(
        rules.message,
        /rule openshift-modules-skip-6-2-10-34 \(6\.2\.10-34\).*OpenShift 4\.9\.12, module search \(used by chisel\)/,
      );
      assert.match(rules.message, /previous-releases\/k8s-6-2-10-34-2022-05\.md/);
      assert.match(rules.fix, /Do not upgrade to 6\.2\.10-34/);
      // 6.2.10-45 is not ruled out.
      const other = await sim.ctl(['upgrade', 'plan', '--to', '6.2.10-45', '--max-hops', '1', '-o', 'json']);
      assert.doesNotMatch(checkIn(other.stdout, 'release-rules').message, /openshift-modules-skip/);
    });
  });

  it('the same cluster on Kubernetes: the 6.2.10-34 rule is not set off', async () => {
    const file = scenario(
      'rrn-k8s-modules-6-2-10-34',
      `dialect: redis
namespace: gravel
operator: { version: 6.2.10-4 }
cluster: { name: slate, versionTag: 6.2.10-90, apiVersion: 6.2.10-90 }
modules:
  - { name: search, version: 2.2.6, platforms: [rhel7/x86_64] }
databases:
  - { name: mallet, version: "6.2", modules: [{ name: search, version: 2.2.6 }] }
`,
    );
    await withUpgradeSim(file, async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '6.2.10-34', '--max-hops', '1', '-o', 'json']);
      const rules = checkIn(plan.stdout, 'release-rules');
      assert.doesNotMatch(rules.message, /openshift-modules-skip/);
      assert.notEqual(rules.status, 'fail', rules.message);
    });
  });

  it('LDAP set on the cluster resource, --to 8.0.16-24 (RS 8.0.16-29): exit 3 with 8.0.16-25 as the fix; 8.0.16-25 is not held', async () => {
    const file = scenario(
      'rrn-ldap-8-0-16',
      `dialect: redis
namespace: ledger
operator: { version: 8.0.6-8 }
cluster: { name: abacus, versionTag: 8.0.6-54, apiVersion: 8.0.6-54 }
databases:
  - { name: tally, version: "7.4" }
`,
    );
    await withUpgradeSim(file, async (sim) => {
      await sim.kubectl([
        'patch',
        'rec',
        'abacus',
        '-n',
        'ledger',
        '--type',
        'merge',
        '-p',
        '{"spec":{"ldap":{"protocol":"LDAPS","servers":[{"host":"ldap.ledger.example","port":636}]}}}',
      ]);
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.0.16-24', '--max-hops', '1', '-o', 'json']);
      assertExit(plan, 3, 'plan');
      const rules = checkIn(plan.stdout, 'release-rules');
      assert.equal(rules.status, 'fail', rules.message);
      assert.match(rules.message, /rule ldap-ca-8-0-10-to-8-0-16-29 .*spec\.ldap of REC ledger\/abacus/);
      assert.match(rules.message, /rs-8-0-releases\/_index\.md/);
      assert.match(rules.fix, /--to 8\.0\.16-25/);
      // The value of the LDAP settings is never printed.
      assert.doesNotMatch(plan.stdout, /ldap\.ledger\.example/);
      const fixed = checkIn(
        (await sim.ctl(['upgrade', 'plan', '--to', '8.0.16-25', '--max-hops', '1', '-o', 'json'])).stdout,
        'release-rules',
      );
      assert.doesNotMatch(fixed.message, /rule ldap-/);
    });
  });

  it('RedisGraph installed and used by no database, RHEL 8 cluster to a RHEL 9 target: exit 3 naming the module', async () => {
    const file = scenario(
      'rrn-graph-rhel9',
      `dialect: redis
namespace: atlas
operator: { version: 7.4.6-2 }
cluster: { name: meridian, versionTag: 7.4.6-22, apiVersion: 7.4.6-22 }
modules:
  - { name: graph, version: 2.10.12, platforms: [rhel8/x86_64] }
databases:
  - { name: parallels, version: "7.2" }
`,
    );
    await withUpgradeSim(file, async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '7.8.6-20', '--max-hops', '1', '-o', 'json']);
      assertExit(plan, 3, 'plan');
      const rules = checkIn(plan.stdout, 'release-rules');
      assert.equal(rules.status, 'fail', rules.message);
      assert.match(rules.message, /rule redisgraph-blocks-rhel9 .*module graph 2\.10\.12 \(installed\)/);
      assert.match(rules.fix, /Remove RedisGraph from the cluster/);
      // A target that keeps RHEL 8 images is not held by it.
      const same = checkIn(
        (await sim.ctl(['upgrade', 'plan', '--to', '7.4.6-12', '--max-hops', '1', '-o', 'json'])).stdout,
        'release-rules',
      );
      assert.doesNotMatch(same.message, /rule redisgraph-blocks-rhel9/);
    });
  });

  it('a --catalog rule of the new kinds (OpenShift version and OLM together) is judged on a real OLM install without code', async () => {
    const file = scenario(
      'rrn-catalog-olm-ocp',
      `dialect: redis
namespace: foundry
platform: openshift
kubernetesVersion: "1.30"
openshiftVersion: "4.17.9"
operator:
  version: 7.22.2-40
  installedBy: olm
  olm:
    channel: 7.22.2
    approval: Manual
    startingCSV: redis-enterprise-operator.v7.22.2-40
cluster:
  name: anvil
  versionTag: 7.22.2-133
  repository: registry.connect.redhat.com/redislabs/redis-enterprise
  apiVersion: 7.22.2-133
databases:
  - { name: ingot, version: "7.4" }
`,
    );
    const rules = path.join(tempDir('ctl-release-notes-catalog-'), 'site-rules.json');
    const rule = (versions: string[]) =>
      JSON.stringify({
        format: 1,
        updated: '2026-11-29',
        releases: [],
        rules: [
          {
            id: 'site-hold-olm-ocp',
            summary: 'a site rule: no OLM upgrade to 7.22.2-45 on these OpenShift versions',
            appliesTo: { operators: ['7.22.2-45'] },
            triggers: [
              {
                kind: 'all-of',
                triggers: [
                  { kind: 'platform', platform: 'openshift', versions },
                  { kind: 'install-method', methods: ['olm'] },
                ],
              },
            ],
            effect: 'block',
            fix: 'Wait for the platform team.',
            source: ['a site rule written by the test'],
          },
        ],
      });
    await withUpgradeSim(file, async (sim) => {
      const planWithRules = () =>
        sim.ctl([
          'upgrade',
          'plan',
          '--to',
          '7.22.2-45',
          '--max-hops',
          '1',
          '--catalog',
          rules,
          '-o',
          'json',
        ]);
      writeFileSync(rules, rule(['4.16', '4.17']));
      const plan = await planWithRules();
      assertExit(plan, 3, 'plan');
      const check = checkIn(plan.stdout, 'release-rules');
      assert.equal(check.status, 'fail', check.message);
      assert.match(
        check.message,
        /rule site-hold-olm-ocp .*OpenShift 4\.17\.9, an operator installed by OLM \(OperatorHub\)/,
      );
      assert.match(check.fix, /Wait for the platform team/);
      // Another OpenShift version: the all-of is not complete, nothing is set off.
      writeFileSync(rules, rule(['4.18']));
      const other = await planWithRules();
      assert.doesNotMatch(checkIn(other.stdout, 'release-rules').message, /rule site-hold-olm-ocp/);
    });
  });
});
