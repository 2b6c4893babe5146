import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { ExitCode, OperationError } from '../../../src/errors.js';
import { clusterStep } from '../../../src/steps/cluster.js';
import { REC_API, recObject, type StepBed, startStepBed, statefulSetObject, until } from './emulator-bed.js';

/**
 * The cluster step with auto-upgrade on, against the Kubernetes emulator (real watches): the
 * operator need not write versionTag into the spec (redis-facts.md §12), so the step sees the
 * upgrade start on the StatefulSet's node image as well as on the resource's state.
 */

const FROM = '7.4.6-22';
const TARGET = '7.8.2-60';
const EXPIRED = 'token expired';

describe('cluster step with auto-upgrade (emulator)', () => {
  let bed: StepBed | undefined;
  afterEach(async () => {
    await bed?.close();
    bed = undefined;
  });

  async function autoUpgradeCluster(templateTag: string): Promise<StepBed> {
    bed = await startStepBed({ snapshot: (s) => (s.cluster!.autoUpgrade = true) });
    const e = bed.emulator;
    e.create(
      REC_API,
      'RedisEnterpriseCluster',
      recObject(FROM, { upgradeSpec: { autoUpgradeRedisEnterprise: true } }),
    );
    e.patch(REC_API, 'RedisEnterpriseCluster', 'rec', { status: { state: 'Running' } }, true);
    e.create('apps/v1', 'StatefulSet', statefulSetObject(templateTag));
    return bed;
  }

  it("sees the operator start when the pods' image moves, with no spec write and no Upgrade state seen", async () => {
    const b = await autoUpgradeCluster(FROM);
    const running = clusterStep.run(b.ctx());
    await until(
      () => b.progress().some((m) => m.includes('waiting for it to start')),
      'the step to wait for the operator',
    );
    assert.equal(
      await Promise.race([
        running.then(() => 'done'),
        new Promise((r) => setTimeout(() => r('waiting'), 150)),
      ]),
      'waiting',
      'nothing has moved yet',
    );
    const template = (statefulSetObject(TARGET).spec as { template: object }).template;
    b.emulator.patch('apps/v1', 'StatefulSet', 'rec', { spec: { template } });
    const result = await running;
    assert.match(
      String(result.skipped),
      /auto-upgrade is on: the operator upgrades the cluster \(it rolls the pods to redislabs\/redis:7\.8\.2-60\)/,
    );
    assert.deepEqual(b.kubeWrites(), [], 'ctl changed nothing');
  });

  it('finds an automatic upgrade that is already over (the template at the target) and returns at once', async () => {
    const b = await autoUpgradeCluster(TARGET);
    const result = await clusterStep.run(b.ctx());
    assert.match(String(result.skipped), /it rolls the pods to redislabs\/redis:7\.8\.2-60/);
    assert.deepEqual(b.warnings(), []);
    assert.deepEqual(b.kubeWrites(), []);
  });

  it("a credential plugin that fails at the step's two waits: one warning for the step, and the third failure in a row of either ends it (exit 1)", async () => {
    const b = await autoUpgradeCluster(FROM);
    // The kubeconfig's plugin works for the step's read, then fails for every request.
    const config = b.deps.kube.config as unknown as {
      applyToFetchOptions(options: object): Promise<unknown>;
    };
    const works = config.applyToFetchOptions.bind(config);
    let failing = false;
    let refused = 0;
    config.applyToFetchOptions = (options) => {
      if (!failing) return works(options);
      refused += 1;
      return Promise.reject(
        new OperationError(`the kubeconfig's credential plugin /bin/login failed (exit 1): ${EXPIRED}`, {
          hint: 'Run the same command as the kubeconfig and fix what it reports.',
        }),
      );
    };
    const ctx = b.ctx();
    const error = await clusterStep
      .run({
        ...ctx,
        progress: (message) => {
          if (message.includes('waiting for it to start')) failing = true;
          ctx.progress(message);
        },
      })
      .then(
        () => assert.fail('expected the step to end'),
        (e: unknown) => e,
      );
    assert.ok(error instanceof OperationError, String(error));
    assert.equal(error.exitCode, ExitCode.failed);
    assert.match(
      error.message,
      new RegExp(
        `^GET /apis/\\S+: ctl could not send it to the Kubernetes API server \\S+, 3 times in a row, so ctl stopped waiting: the kubeconfig's credential plugin /bin/login failed \\(exit 1\\): ${EXPIRED}$`,
      ),
    );
    assert.equal(error.hint, 'Run the same command as the kubeconfig and fix what it reports.');
    // Both waits (the resource, the StatefulSet) met the plugin: one warning, not one each.
    assert.ok(refused >= 4, `${refused} requests refused: both waits met the plugin`);
    const said = b.warnings().filter((w) => w.includes('ctl could not send it'));
    assert.equal(said.length, 1, said.join('\n'));
    assert.match(
      said[0]!,
      new RegExp(
        `: ${EXPIRED}; ctl tries again after a pause \\(3 such failures in a row end the wait; shown once a step\\)$`,
      ),
    );
  });

  it('still answers to the state Upgrade on the resource', async () => {
    const b = await autoUpgradeCluster(FROM);
    const running = clusterStep.run(b.ctx());
    await until(
      () => b.progress().some((m) => m.includes('waiting for it to start')),
      'the step to wait for the operator',
    );
    b.emulator.patch(REC_API, 'RedisEnterpriseCluster', 'rec', { status: { state: 'Upgrade' } }, true);
    const result = await running;
    assert.match(String(result.skipped), /it has started: state Upgrade/);
  });
});
