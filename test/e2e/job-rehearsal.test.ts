import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../helpers/run-ctl.js';
import { tempDir } from '../helpers/temp.js';
import { kubectlPath, runTool } from '../helpers/tools.js';
import { getPath, withUpgradeSim } from './upgrade-support.js';

/**
 * Issue 30, "the Job can be rehearsed": the simulator serves batch/v1 Jobs, so the real kubectl
 * applies deploy/ (RBAC and the Job) to it as to a cluster. The emulator runs no job controller:
 * the Job is validated, defaulted and stored, and no pod runs it (docs/install.md).
 */
describe('the in-cluster Job, rehearsed on the simulator (e2e)', () => {
  it('kubectl apply -f deploy/ creates the Job as the API server would; a Job that restarts in place is refused', async () => {
    await withUpgradeSim('happy-path', async (sim) => {
      const resources = await sim.kubectl(['api-resources', '--api-group=batch', '-o', 'name']);
      assert.match(resources, /^jobs\.batch$/m);

      // Server-side dry run first: judged, not kept.
      const dry = await sim.kubectl([
        'apply',
        '--dry-run=server',
        '-f',
        path.join(repoRoot, 'deploy', 'job.yaml'),
      ]);
      assert.match(dry, /job\.batch\/ctl-upgrade created \(server dry run\)/);
      assert.deepEqual(await sim.list(['jobs', '-n', 'redis']), []);

      const applied = await sim.kubectl(['apply', '-f', path.join(repoRoot, 'deploy')]);
      assert.match(applied, /job\.batch\/ctl-upgrade created/);
      assert.match(applied, /serviceaccount\/ctl-upgrade created/);
      const job = await sim.get(['job', 'ctl-upgrade', '-n', 'redis']);
      assert.equal(getPath(job, ['spec', 'backoffLimit']), 2, 'as written');
      assert.equal(getPath(job, ['spec', 'completions']), 1, 'defaulted');
      assert.equal(getPath(job, ['spec', 'parallelism']), 1, 'defaulted');
      assert.equal(getPath(job, ['spec', 'completionMode']), 'NonIndexed', 'defaulted');
      assert.equal(getPath(job, ['spec', 'podReplacementPolicy']), 'Failed', 'with a podFailurePolicy');
      assert.equal(getPath(job, ['spec', 'template', 'spec', 'restartPolicy']), 'Never');
      const listed = await sim.kubectl(['get', 'jobs', '-n', 'redis', '-o', 'name']);
      assert.equal(listed.trim(), 'job.batch/ctl-upgrade');
      const again = await sim.kubectl(['apply', '-f', path.join(repoRoot, 'deploy', 'job.yaml')]);
      assert.match(again, /job\.batch\/ctl-upgrade unchanged/);

      const dir = tempDir('ctl-job-');
      const bad = path.join(dir, 'always.yaml');
      writeFileSync(
        bad,
        'apiVersion: batch/v1\nkind: Job\nmetadata: {name: always, namespace: redis}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: busybox}]\n',
      );
      const refused = await runTool(kubectlPath(), ['apply', '-f', bad], {
        env: { ...sim.sandbox.env, KUBECONFIG: sim.cluster.kubeconfigPath },
      });
      assert.notEqual(refused.code, 0, 'a Job whose pods restart in place is refused');
      assert.match(refused.stderr, /spec\.template\.spec\.restartPolicy: Unsupported value: "Always"/);
    });
  });
});
