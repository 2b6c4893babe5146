/**
 * The helm release's name comes from the operator Deployment's `meta.helm.sh/release-name`
 * annotation: whatever the cluster holds. The BUILT ctl, against a simulated cluster whose
 * operator came from helm, with that annotation edited into an option of helm's
 * (`--post-renderer=...`) or a label selector (`x,owner!=helm`): the plan is not Ready, fails
 * helm-release-healthy (firm: --ignore-check cannot pass it) saying why and what to do, and
 * never sends the name as a selector. `--helm-release` given one is refused at once (exit 2).
 */

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertExit, SharedUpgradeSim, TARGET, withUpgradeSim } from './upgrade-support.js';

interface PlanJson {
  blocked: boolean;
  checks: { id: string; status: string; message: string; fix?: string }[];
}

const HOSTILE = ['--post-renderer=/tmp/x', 'x,owner!=helm', 'Redis_Enterprise'];

describe('a helm release name helm would not accept (built ctl, simulated cluster)', () => {
  for (const name of HOSTILE) {
    it(`the annotation says ${JSON.stringify(name)}: helm-release-healthy fails, no selector made of it`, async () => {
      await withUpgradeSim('helm-installed', async (sim) => {
        await sim.kubectl([
          'annotate',
          'deployment',
          'redis-enterprise-operator',
          '-n',
          'redis',
          `meta.helm.sh/release-name=${name}`,
          '--overwrite',
        ]);
        const from = sim.cluster.audit.entries.length;
        for (const extra of [[], ['--ignore-check', 'helm-release-healthy']]) {
          const result = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json', ...extra]);
          assertExit(result, 3, `plan ${extra.join(' ')}`);
          const plan = JSON.parse(result.stdout) as PlanJson;
          assert.equal(plan.blocked, true);
          const check = plan.checks.find((c) => c.id === 'helm-release-healthy');
          assert.equal(check?.status, 'fail', JSON.stringify(check));
          assert.match(check.message, /cannot be given to helm: release name: /);
          assert.match(check.fix ?? '', /--helm-release RELEASE_NAME/);
        }
        const asked = sim.cluster.audit.entries.slice(from).map((entry) => decodeURIComponent(entry.path));
        assert.ok(
          asked.every((path) => !path.includes(name)),
          `the name was sent: ${asked.filter((path) => path.includes(name)).join('\n')}`,
        );
      });
    });
  }
});

describe('--helm-release that helm would not accept (built ctl)', () => {
  const shared = new SharedUpgradeSim('helm-installed');
  after(() => shared.close());

  it('is refused with exit 2 before anything is read, naming the rule', async () => {
    await shared.use('--helm-release refused', async (sim) => {
      const from = sim.cluster.audit.entries.length;
      const result = await sim.ctl([
        'upgrade',
        'plan',
        '--to',
        TARGET,
        '--helm-release=--post-renderer=/tmp/x',
      ]);
      assertExit(result, 2);
      assert.match(result.stderr, /--helm-release "--post-renderer=\/tmp\/x" is not a helm release name/);
      assert.match(result.stderr, /lowercase letters, digits/);
      assert.equal(sim.cluster.audit.entries.length, from, 'nothing was asked of the cluster');
    });
  });

  it('a name helm takes plans as before', async () => {
    await shared.use('--helm-release accepted', async (sim) => {
      const result = await sim.ctl([
        'upgrade',
        'plan',
        '--to',
        TARGET,
        '--helm-release',
        'redis-enterprise',
        '-o',
        'json',
      ]);
      assertExit(result, 0);
      const plan = JSON.parse(result.stdout) as PlanJson;
      assert.equal(plan.checks.find((c) => c.id === 'helm-release-healthy')?.status, 'pass');
    });
  });
});
