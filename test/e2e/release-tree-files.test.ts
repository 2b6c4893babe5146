/**
 * The plan's `target-available` check asks for the files of the release tree that the run reads
 * next to --bundle, not only for the bundle: people download bundle.yaml alone (the install page
 * shows `kubectl apply -f bundle.yaml`) and pass it as --bundle. Before, the plan said Ready and
 * the run upgraded the operator, then stopped in the admission step ("cannot read
 * .../admission/webhook.yaml: no such file"), or in the operator step on a cluster watching
 * other namespaces (multi-namespace-redb/role.yaml), or in the security-context step on OpenShift
 * (openshift/scc.yaml, which it applies while the pods still need the SCC).
 */

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { tempDir } from '../helpers/temp.js';
import { assertExit, startUpgradeSim, TARGET, type UpgradeSim } from './upgrade-support.js';

const BLOCKED = 3;

/**
 * `files` of the simulator's release tree of TARGET, copied into `root` (a folder of the test's
 * own): the --bundle template of the first of them.
 */
async function localTree(sim: UpgradeSim, files: readonly string[], root: string): Promise<string> {
  const served = (sim.env.CTL_BUNDLE ?? '').replaceAll('{version}', TARGET);
  for (const file of files) {
    const answer = await fetch(new URL(file, served), { signal: AbortSignal.timeout(10_000) });
    assert.equal(answer.status, 200, `the simulator serves ${file}`);
    const to = path.join(root, TARGET, file);
    mkdirSync(path.dirname(to), { recursive: true });
    writeFileSync(to, await answer.text());
  }
  return path.join(root, '{version}', files[0] ?? 'bundle.yaml');
}

describe(
  'the plan asks for the release files the run reads next to --bundle (e2e)',
  { timeout: 600_000 },
  () => {
    const sims: UpgradeSim[] = [];
    after(async () => {
      await Promise.all(sims.map((s) => s.close()));
    });

    async function start(scenario: string, rename: { namespace: string; cluster: string }) {
      const sim = await startUpgradeSim(scenario, {
        patch: (s) => ({
          ...s,
          namespace: rename.namespace,
          cluster: { ...s.cluster, name: rename.cluster },
        }),
      });
      sims.push(sim);
      return sim;
    }

    it('bundle.yaml alone: Blocked, naming admission/webhook.yaml; with it next to the bundle: the run ends', async () => {
      const sim = await start('happy-path', { namespace: 'ledger-prod', cluster: 'books' });
      const root = tempDir('ctl-release-tree-');
      const bundle = await localTree(sim, ['bundle.yaml'], root);
      const args = ['-n', 'ledger-prod', '--to', TARGET, '--bundle', bundle];

      const mark = sim.cluster.audit.entries.length;
      const alone = await sim.ctl(['upgrade', 'plan', ...args]);
      assertExit(alone, BLOCKED);
      assert.match(
        alone.stdout,
        /FAIL target-available +the bundle of 7\.8\.2-6 is there, but not admission\/webhook\.yaml next to it, which the run applies: no such file \S+admission\/webhook\.yaml/,
      );
      assert.match(alone.stdout, /fix: Keep the release's files in their folders next to the bundle/);
      // --ignore-check cannot get past it: the run would stop after the operator is upgraded.
      assertExit(await sim.ctl(['upgrade', 'plan', ...args, '--ignore-check', 'target-available']), BLOCKED);
      assertExit(await sim.ctl(['upgrade', 'run', ...args, '--yes']), BLOCKED);
      // The plan's access reviews and the run's lock (a Lease taken and given back) change nothing.
      const writes = sim.cluster.audit.entries
        .slice(mark)
        .filter(
          (e) =>
            e.mutating &&
            e.api === 'kube' &&
            !/^\/apis\/(authorization|coordination)\.k8s\.io\//.test(e.path),
        );
      assert.deepEqual(writes, [], 'nothing was changed');

      await localTree(sim, ['admission/webhook.yaml'], root);
      const whole = await sim.ctl(['upgrade', 'plan', ...args]);
      assertExit(whole, 0);
      assert.match(
        whole.stdout,
        /ok +target-available +the bundle of 7\.8\.2-6 is there \(\S+ exists; admission\/webhook\.yaml next to it\)/,
      );
      assertExit(await sim.ctl(['upgrade', 'run', ...args, '--yes']), 0);
    });

    it('a cluster watching other namespaces: the multi-namespace-redb files too', async () => {
      const sim = await start('multi-namespace', { namespace: 'shop-data', cluster: 'till' });
      const bundle = await localTree(
        sim,
        ['bundle.yaml', 'admission/webhook.yaml'],
        tempDir('ctl-release-tree-'),
      );
      const plan = await sim.ctl(['upgrade', 'plan', '-n', 'shop-data', '--to', TARGET, '--bundle', bundle]);
      assertExit(plan, BLOCKED);
      assert.match(
        plan.stdout,
        /but not multi-namespace-redb\/role\.yaml and multi-namespace-redb\/role_binding\.yaml next to it/,
      );
    });

    it('OpenShift, a target whose pods still need the SCC: openshift/scc.yaml too', async () => {
      const sim = await start('openshift', { namespace: 'orders-ocp', cluster: 'fulfil' });
      const root = tempDir('ctl-release-tree-');
      const bundle = await localTree(sim, ['openshift.bundle.yaml', 'admission/webhook.yaml'], root);
      const args = ['-n', 'orders-ocp', '--to', TARGET, '--bundle', bundle];
      const plan = await sim.ctl(['upgrade', 'plan', ...args]);
      assertExit(plan, BLOCKED);
      assert.match(
        plan.stdout,
        /FAIL target-available +the bundle of 7\.8\.2-6 is there, but not openshift\/scc\.yaml next to it, which the run applies/,
      );
      await localTree(sim, ['openshift/scc.yaml'], root);
      const whole = await sim.ctl(['upgrade', 'plan', ...args]);
      assertExit(whole, 0);
      assert.match(whole.stdout, /admission\/webhook\.yaml, openshift\/scc\.yaml next to it\)/);
    });

    it('a helm-installed operator watching other namespaces: the multi-namespace-redb files of the release tree', async () => {
      const sim = await startUpgradeSim('helm-installed', {
        patch: (s) => ({
          ...s,
          namespace: 'grid-ops',
          operator: { ...s.operator, watchNamespaces: ['grid-apps'] },
          cluster: { ...s.cluster, name: 'meter' },
        }),
      });
      sims.push(sim);
      const root = tempDir('ctl-release-tree-');
      const bundle = await localTree(sim, ['bundle.yaml'], root);
      const args = ['-n', 'grid-ops', '--to', TARGET, '--bundle', bundle];
      const plan = await sim.ctl(['upgrade', 'plan', ...args]);
      assertExit(plan, BLOCKED);
      assert.match(
        plan.stdout,
        /FAIL target-available +chart \S+ \S+ is there \(.*\), but not multi-namespace-redb\/role\.yaml and multi-namespace-redb\/role_binding\.yaml of the release tree, which the run applies/,
      );
      await localTree(
        sim,
        ['multi-namespace-redb/role.yaml', 'multi-namespace-redb/role_binding.yaml'],
        root,
      );
      const whole = await sim.ctl(['upgrade', 'plan', ...args]);
      assertExit(whole, 0);
      assert.match(whole.stdout, /of the release tree there too/);
    });
  },
);
