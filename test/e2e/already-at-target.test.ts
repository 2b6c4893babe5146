import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import { assertExit, getPath, withUpgradeSim } from './upgrade-support.js';

/**
 * "Already at the target" means ready at the target. An operator that runs the target's image but
 * is not ready (a restart not finished; in a real cluster also a crash loop or an image that
 * cannot be pulled) is not done: the plan shows the operator step, which applies the target again
 * and waits for it (as `kubectl apply` then `kubectl rollout status` would), and the run goes on
 * through it instead of printing "already at" and exiting 0 over an operator that is down.
 */

/** happy-path's operator; the cluster is put on its catalog tag, so the run has nothing else to do. */
const TO = '7.4.6-2';
const TAG = clusterTagFor(TO) ?? '';
/**
 * Long enough that the plan and the run both see the restarted operator not ready yet: a kubectl
 * get and a plan come between the restart and the run (a few seconds on a loaded machine).
 */
const OPERATOR_START_S = 12;

describe('already at the target, but the operator is not ready (e2e)', { timeout: 300_000 }, () => {
  it('plan and run do not call it done: the run waits for the operator, then ends', async () => {
    await withUpgradeSim(
      'happy-path',
      async (sim) => {
        // Ready at the target: nothing to do, as before.
        const done = await sim.ctl(['upgrade', 'run', '--to', TO, '--yes']);
        assertExit(done, 0, 'a run on a cluster ready at the target');
        assert.match(
          done.stdout,
          new RegExp(`^redis/rec is already at ${TO} \\(cluster ${TAG}\\): nothing to do$`, 'm'),
        );

        // A restart of the operator (a changed pod template, as kubectl rollout restart makes).
        await sim.kubectl([
          ...['patch', 'deployment', 'redis-enterprise-operator', '-n', 'redis', '--type', 'merge', '-p'],
          JSON.stringify({
            spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': 'now' } } } },
          }),
        ]);
        const deployment = await sim.get(['deployment', 'redis-enterprise-operator', '-n', 'redis']);
        assert.equal(
          getPath(deployment, ['status', 'readyReplicas']),
          0,
          'the restarted operator is not ready',
        );

        const plan = await sim.ctl(['upgrade', 'plan', '--to', TO]);
        assertExit(plan, 0, 'plan');
        assert.doesNotMatch(plan.stdout, /Already at|skip: the operator already runs/);
        assert.match(
          plan.stdout,
          /2\. operator +Upgrade the operator\n +- The operator already runs 7\.4\.6-2 but is not ready \(0\/1\): the run applies it again and waits for it; see why\n +\$ kubectl --kubeconfig \S+ describe deployment redis-enterprise-operator -n redis\n/,
        );
        assert.match(plan.stdout, /Ready to run\./);

        const run = await sim.ctl(['upgrade', 'run', '--to', TO, '--yes'], { timeoutMs: 120_000 });
        assertExit(run, 0, 'a run with the operator at the target but not ready');
        assert.doesNotMatch(run.stdout, /already at/);
        assert.match(run.stdout, /^operator +done /m);
        assert.match(run.stdout, /^result: succeeded$/m);
        const after = await sim.get(['deployment', 'redis-enterprise-operator', '-n', 'redis']);
        assert.equal(getPath(after, ['status', 'readyReplicas']), 1, 'the run ended with the operator ready');
      },
      {
        timing: { operatorStart: OPERATOR_START_S },
        patch: (scenario) => ({
          ...scenario,
          cluster: { ...scenario.cluster, versionTag: TAG, apiVersion: TAG },
        }),
      },
    );
  });
});
