import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Scenario } from '../helpers/simulator.js';
import { tempDir } from '../helpers/temp.js';
import { assertExit, changes, describeEntries, type UpgradeSim, withUpgradeSim } from './upgrade-support.js';

/**
 * A target release without a trustworthy upstream git tag (7.8.6-11: its tag holds 8.0.10-21's
 * bundle, redis-facts.md §1) and no --bundle: every step that acts and reads a file of the
 * release tree (src/steps/release-files.ts) makes the plan refuse up front (exit 2), naming
 * --bundle and the nearest tagged release, whatever the method and with the operator already at
 * the target. The hint names a tagged release to go to instead only when the plan of `--to <it>`
 * would take it on this cluster (no known advisory, supported on its platform version,
 * src/planning/release-neighbour.ts), and otherwise says none does. Before, the plan refused
 * only the bundle method's operator step and the redb-role files, and only while the operator was not at the target: the admission step (bundle, OLM with a
 * webhook OLM does not own) and the security-context step (OpenShift, any method) then read
 * `v7.8.6-11/...`, another release's files. Where no acting step reads one (helm on Kubernetes),
 * the plan goes on.
 */

const UNTAGGED = '7.8.6-11';
/** The hint's end on the simulator's Kubernetes 1.33 (happy-path), newer than any 7.8.6 release lists. */
const NO_NEIGHBOUR_ON_133 =
  /\. No other 7\.8\.6 release has a tag, no known advisory and support for Kubernetes 1\.33: `ctl [^`]*upgrade plan` lists the targets this cluster can take\./;
/**
 * On the simulator's OpenShift (its ClusterVersion follows the scenario's Kubernetes version),
 * which the 7.8.6 line supports: 7.8.6-20, the first tagged release of the line no advisory affects.
 */
function neighbourOnOpenshift(version: string): RegExp {
  return new RegExp(
    `, or upgrade to --to 7\\.8\\.6-20, the nearest release with a tag, no known advisory and support for OpenShift ${version.replaceAll('.', '\\.')}\\.`,
  );
}
const USAGE = 2;
/** No --bundle and no CTL_BUNDLE: the release files are the upstream tag's, which has none. */
const NO_BUNDLE = { CTL_BUNDLE: '' };

interface PlanDoc {
  steps: { id: string; skip: string | null; actions: { command: string }[] }[];
  checks: { id: string; status: string; message: string }[];
}

/** The refusal: exit 2, why (`why`), --bundle, then `advice` (a release to go to, or none); nothing changed. */
async function assertRefused(
  sim: UpgradeSim,
  why: RegExp,
  advice: RegExp,
  bundleFile = 'bundle.yaml',
): Promise<void> {
  for (const command of [['plan'], ['run', '--yes']]) {
    const result = await sim.ctl(['upgrade', ...command, '--to', UNTAGGED], { env: NO_BUNDLE });
    assertExit(result, USAGE, `upgrade ${command[0]} without --bundle`);
    assert.match(
      result.stderr,
      /no upstream release files for operator 7\.8\.6-11: git tag v7\.8\.6-11 of RedisLabs\/redis-enterprise-k8s-docs holds another release's bundle \(8\.0\.10-21\); /,
    );
    assert.match(result.stderr, why);
    assert.match(
      result.stderr,
      new RegExp(
        `hint: Pass --bundle FILE_OR_URL with the ${bundleFile.replaceAll('.', '\\.')} of 7\\.8\\.6-11 \\(its .* next to it, as in the release tree\\)${advice.source}`,
      ),
    );
  }
  assert.deepEqual(changes(sim), [], describeEntries(changes(sim)));
}

/** The operator already at UNTAGGED, the cluster still on its 7.4.6 image: the run has work. */
function atUntagged(scenario: Scenario): Scenario {
  return { ...scenario, operator: { ...scenario.operator, version: UNTAGGED } };
}

describe('a target release without a trustworthy tag: the plan refuses what the run cannot locate (e2e)', () => {
  it('bundle method, operator already at the target: the admission step would read webhook.yaml; with --bundle it plans', async () => {
    await withUpgradeSim(
      'happy-path',
      async (sim) => {
        await assertRefused(
          sim,
          /the admission step applies the release's webhook \(admission\/webhook\.yaml\)/,
          NO_NEIGHBOUR_ON_133,
        );
        // With the simulator's release tree as --bundle (CTL_BUNDLE): planned, and the admission
        // step reads webhook.yaml from beside it.
        const plan = await sim.ctl(['upgrade', 'plan', '--to', UNTAGGED, '-o', 'json']);
        assertExit(plan, 0, 'plan with CTL_BUNDLE');
        const steps = (JSON.parse(plan.stdout) as PlanDoc).steps;
        assert.equal(steps.find((s) => s.id === 'operator')?.skip, `the operator already runs ${UNTAGGED}`);
        const admission = steps.find((s) => s.id === 'admission');
        assert.equal(admission?.skip, null);
        assert.ok(
          admission?.actions.some((a) => a.command.includes('/bundles/7.8.6-11/admission/webhook.yaml')),
          JSON.stringify(admission),
        );
      },
      { patch: atUntagged },
    );
  });

  it('helm on Kubernetes, operator at the target: the chart manages the webhook, no file to read, planned', async () => {
    await withUpgradeSim(
      'helm-installed',
      async (sim) => {
        const plan = await sim.ctl(['upgrade', 'plan', '--to', UNTAGGED, '-o', 'json'], { env: NO_BUNDLE });
        assertExit(plan, 0, 'plan without --bundle');
        const steps = (JSON.parse(plan.stdout) as PlanDoc).steps;
        assert.equal(
          steps.find((s) => s.id === 'admission')?.skip,
          'the helm chart manages the admission webhook',
        );
        assert.equal(steps.find((s) => s.id === 'cluster')?.skip, null, 'the run has work');
      },
      { patch: atUntagged },
    );
  });

  it('helm on OpenShift, operator at the target: the security-context step would read scc.yaml', async () => {
    await withUpgradeSim(
      'openshift-helm-scc',
      (sim) =>
        assertRefused(
          sim,
          /the security-context step applies redis-enterprise-scc-v2 of the release/,
          neighbourOnOpenshift('4.17'),
          'openshift.bundle.yaml',
        ),
      { patch: atUntagged },
    );
  });

  it('OLM, operator at the target: the SCC too, though OLM installs the operator and its webhook', async () => {
    const file = path.join(tempDir('ctl-untagged-'), 'olm-untagged.yaml');
    writeFileSync(
      file,
      `name: olm-untagged
description: "OperatorHub install of ${UNTAGGED}, the cluster still on 7.4.6 (test/e2e/untagged-release-files.test.ts)"
dialect: redis
platform: openshift
kubernetesVersion: "1.31"
operator:
  version: ${UNTAGGED}
  installedBy: olm
  olm:
    channel: "7.8.6"
    approval: Manual
cluster:
  versionTag: 7.4.6-22.rhel8-openshift
  repository: registry.connect.redhat.com/redislabs/redis-enterprise
  apiVersion: 7.4.6-22
databases:
  - { name: cache, version: "7.2" }
`,
    );
    await withUpgradeSim(file, async (sim) => {
      await assertRefused(
        sim,
        /the security-context step applies redis-enterprise-scc-v2 of the release/,
        neighbourOnOpenshift('4.18'),
        'openshift.bundle.yaml',
      );
      const plan = await sim.ctl(['upgrade', 'plan', '--to', UNTAGGED], { env: NO_BUNDLE });
      // OLM owns the webhook it installed from the CSV: the admission step reads nothing.
      assert.doesNotMatch(plan.stderr, /webhook/);
    });
  });

  it('the release the hint names plans on the same cluster: no refusal for its files, no advisory, its platform supported', async () => {
    await withUpgradeSim(
      'happy-path',
      async (sim) => {
        const refused = await sim.ctl(['upgrade', 'plan', '--to', UNTAGGED], { env: NO_BUNDLE });
        assertExit(refused, USAGE, 'plan to the untagged release without --bundle');
        const named =
          /, or upgrade to --to (\S+), the nearest release with a tag, no known advisory and support for Kubernetes 1\.32\./.exec(
            refused.stderr,
          );
        assert.ok(named, refused.stderr);
        const neighbour = named[1]!;
        assert.equal(neighbour, '7.8.6-20');
        // Its own plan, still without --bundle: the upstream tag locates its files, and the
        // checks the choice stands for pass.
        const plan = await sim.ctl(['upgrade', 'plan', '--to', neighbour, '-o', 'json'], { env: NO_BUNDLE });
        assert.doesNotMatch(plan.stderr, /no upstream release files/);
        assert.notEqual(plan.code, USAGE, plan.stderr);
        const checks = (JSON.parse(plan.stdout) as PlanDoc).checks;
        for (const id of ['release-advisories', 'platform-supported']) {
          const check = checks.find((c) => c.id === id);
          assert.equal(check?.status, 'pass', JSON.stringify(check));
        }
        assert.deepEqual(changes(sim), [], describeEntries(changes(sim)));
      },
      // Kubernetes 1.32, which the 7.8.6 line supports (the scenario's 1.33 is newer than it lists).
      { patch: (scenario) => ({ ...scenario, kubernetesVersion: '1.32' }) },
    );
  });
});
