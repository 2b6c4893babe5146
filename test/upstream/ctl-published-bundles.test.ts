/**
 * `ctl upgrade run` with the operator's published release files as --bundle (bundle.yaml and
 * admission/webhook.yaml of v7.22.2-40, then of 8.0.20-23, in the release tree's layout), two
 * upgrades one after the other on a simulated `happy-path` cluster: ctl reads the bundles as
 * kubectl does (their quoting included: the `yaml` package refused them, and the run stopped in
 * the operator step after a Ready plan), applies every object of them, and both upgrades finish.
 */

import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { tempDir } from '../helpers/temp.js';
import { assertExit, startUpgradeSim, type UpgradeSim } from '../e2e/upgrade-support.js';
import { upstreamFile } from './support.js';

/** The release tree of each published bundle, under one folder: the --bundle template. */
function releaseTree(): string {
  const root = tempDir('ctl-published-');
  const trees: [string, string][] = [
    ['7.22.2-40', 'bundle-v7.22.2-40.yaml'],
    ['8.0.20-23', 'bundle.yaml'],
  ];
  for (const [version, bundle] of trees) {
    mkdirSync(path.join(root, version, 'admission'), { recursive: true });
    copyFileSync(upstreamFile(bundle), path.join(root, version, 'bundle.yaml'));
    copyFileSync(
      upstreamFile('admission-webhook.yaml'),
      path.join(root, version, 'admission', 'webhook.yaml'),
    );
  }
  return path.join(root, '{version}', 'bundle.yaml');
}

describe('ctl upgrade run with the published bundles', { timeout: 300_000 }, () => {
  let sim: UpgradeSim | undefined;
  after(async () => {
    await sim?.close();
  });

  it('7.4.6-2 to 7.22.2-40, then to 8.0.20-23: Ready plans, and both runs finish', async () => {
    sim = await startUpgradeSim('happy-path', {
      patch: (s) => ({ ...s, namespace: 'kv-store', cluster: { ...s.cluster, name: 'kv' } }),
    });
    const bundle = releaseTree();
    for (const target of ['7.22.2-40', '8.0.20-23']) {
      const args = ['-n', 'kv-store', '--to', target, '--bundle', bundle];
      const plan = await sim.ctl(['upgrade', 'plan', ...args]);
      assertExit(plan, 0);
      assert.match(plan.stdout, /ok +target-available +the bundle of \S+ is there/);
      const run = await sim.ctl(['upgrade', 'run', ...args, '--yes']);
      assertExit(run, 0);
      assert.match(
        run.stderr + run.stdout,
        new RegExp(`upgrade to ${target.replace(/\./g, '\\.')} complete`),
      );
      // The operator runs the image the published bundle names.
      const store = sim.cluster.kube.store;
      const operator = store.get(
        store.resolve('apps/v1', 'Deployment'),
        'kv-store',
        'redis-enterprise-operator',
      );
      assert.match(JSON.stringify(operator), new RegExp(`operator:${target.replace(/\./g, '\\.')}"`));
    }
  });
});
