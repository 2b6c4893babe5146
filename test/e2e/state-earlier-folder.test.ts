import assert from 'node:assert/strict';
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { assertExit, TARGET, withUpgradeSim } from './upgrade-support.js';

/**
 * A run recorded by a ctl from before commit 8617bc7, which kept a context name of 201 to 255
 * characters whole as its state folder (today it is cut to 200 with a digest): `ctl upgrade
 * status` shows it and `ctl upgrade run` resumes it in that folder, making no other. The earlier
 * layout is made as that ctl left it: the run's context folder under its whole name.
 */

/** 230 characters, as EKS names a context (its ARN) with a long cluster name. */
const LONG_CONTEXT = `arn:aws:eks:eu-west-1:123456789012:cluster/${'payments-ledger-'.repeat(11)}${'x'.repeat(11)}`;

interface KubeconfigDoc {
  contexts: { name: string; context: Record<string, unknown> }[];
  'current-context': string;
}

describe('a run an earlier ctl recorded under a long context name (e2e)', () => {
  test('status finds it in the whole-named folder and the run resumes there', async () => {
    assert.equal(LONG_CONTEXT.length, 230);
    await withUpgradeSim('happy-path', async (sim) => {
      // The simulator's kubeconfig with its one context renamed.
      const doc = parse(readFileSync(sim.cluster.kubeconfigPath, 'utf8')) as KubeconfigDoc;
      doc.contexts[0]!.name = LONG_CONTEXT;
      doc['current-context'] = LONG_CONTEXT;
      const kubeconfig = path.join(sim.sandbox.dir, 'long-context.kubeconfig');
      writeFileSync(kubeconfig, stringify(doc), { mode: 0o600 });
      const env = { KUBECONFIG: kubeconfig };
      const root = path.join(sim.env.XDG_STATE_HOME ?? '', 'ctl');

      // A run that stopped after its preflight step, as an interrupted run records it.
      assertExit(
        await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '--only', 'preflight'], { env }),
        0,
      );
      const [today] = readdirSync(root);
      assert.equal(today?.length, 200, `today's folder is cut: ${today}`);
      const file = path.join(
        root,
        today,
        sim.cluster.scenario.namespace,
        `${sim.cluster.scenario.cluster.name}.json`,
      );
      const saved = JSON.parse(readFileSync(file, 'utf8')) as {
        steps: Record<string, { finishedAt?: string }>;
      };
      writeFileSync(file, JSON.stringify({ ...saved, result: 'interrupted' }), { mode: 0o600 });
      // ... kept where the earlier ctl kept it: the context's name whole, ':' and '/' as '_'.
      const earlier = LONG_CONTEXT.replace(/[:/]/g, '_');
      renameSync(path.join(root, today), path.join(root, earlier));
      const earlierFile = path.join(root, earlier, path.relative(path.join(root, today), file));

      const status = await sim.ctl(['upgrade', 'status'], { env, timeoutMs: 60_000 });
      assertExit(status, 0, 'status');
      assert.match(status.stdout, /^result {4}interrupted/m);
      assert.equal(/^state {5}(.+)$/m.exec(status.stdout)?.[1], earlierFile);
      assert.match(status.stdout, /resume with: /);

      const resumed = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes'], { env });
      assertExit(resumed, 0, 'resume');
      assert.match(`${resumed.stdout}${resumed.stderr}`, /resuming the upgrade to 7\.8\.2-6 at step /);
      const after = JSON.parse(readFileSync(earlierFile, 'utf8')) as {
        result: string;
        steps: Record<string, { finishedAt?: string }>;
      };
      assert.equal(after.result, 'succeeded');
      assert.equal(
        after.steps.preflight?.finishedAt,
        saved.steps.preflight?.finishedAt,
        'preflight not run again',
      );
      assert.deepEqual(readdirSync(root), [earlier], 'no other folder made');
    });
  });
});
