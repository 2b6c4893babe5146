import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { PreflightError } from '../../../src/errors.js';
import {
  operatorImageOverrides,
  pinnedOperatorImage,
  releaseConfigOf,
} from '../../../src/planning/helm-values.js';
import { createOperatorStep } from '../../../src/steps/operator.js';
import { createPreflightStep } from '../../../src/steps/preflight.js';
import { planUpgrade } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from '../planning/snapshot-fixture.js';
import { deployment, type FakeCluster, harness, makeDeploymentsReady } from './fakes.js';

const TARGET = '7.8.2-6';

/** A release installed with `--set operator.image.tag=7.4.6-2` (a pin users add for air-gapped mirrors). */
const PINNED_VALUES = {
  operator: { image: { repository: 'mirror.example/redislabs/operator', tag: '7.4.6-2' } },
};

function upgradesImage(cluster: FakeCluster) {
  return () =>
    cluster.update('apps/v1', 'Deployment', 'redis-enterprise-operator', 'redis', (d) => {
      const spec = d.spec as { template: { spec: { containers: { image: string }[] } } };
      spec.template.spec.containers[0]!.image = `redislabs/operator:${TARGET}`;
      d.metadata = { ...d.metadata, generation: (d.metadata?.generation ?? 1) + 1 };
    });
}

function helmHarness(helmVersion: string, values: unknown) {
  const h = harness({
    target: { method: 'helm' },
    snapshot: (s) => {
      s.operator!.helmRelease = { name: 'redis-enterprise', namespace: 'redis' };
      s.helmRelease = { name: 'redis-enterprise', namespace: 'redis', revision: 1, status: 'deployed' };
    },
  });
  h.cluster.put(deployment('redislabs/operator:7.4.6-2', true));
  // The chart's CRDs, as the upgraded chart leaves them (the step verifies them afterwards).
  for (const name of ['redisenterpriseclusters', 'redisenterprisedatabases']) {
    h.cluster.put({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${name}.app.redislabs.com` },
      spec: {
        versions: [
          { name: 'v1alpha1', served: true },
          { name: 'v1', served: true },
        ],
      },
    });
  }
  h.helm.answers.set('version', () => helmVersion);
  h.helm.answers.set('get', () => JSON.stringify(values));
  h.helm.answers.set('history', () =>
    JSON.stringify([{ revision: 1, status: 'deployed', chart: 'redis-enterprise-operator-7.4.6-2' }]),
  );
  h.helm.onChange = upgradesImage(h.cluster);
  h.cluster.onTick = makeDeploymentsReady;
  return h;
}

/** helm's Secret driver: data.release = base64(base64(gzip(release JSON))). */
function helmSecretData(config: unknown): Record<string, string> {
  const record = Buffer.from(gzipSync(JSON.stringify({ name: 'redis-enterprise', config }))).toString(
    'base64',
  );
  return { release: Buffer.from(record).toString('base64') };
}

describe('helm user values that keep the old operator', () => {
  it('reads operator.image.{tag,repository} and overrides only a tag other than the target', () => {
    const pinned = pinnedOperatorImage(PINNED_VALUES);
    assert.deepEqual(pinned, { tag: '7.4.6-2', repository: 'mirror.example/redislabs/operator' });
    const overrides = operatorImageOverrides(pinned, TARGET);
    assert.deepEqual(overrides.set, [`operator.image.tag=${TARGET}`]);
    assert.match(
      overrides.notes.join('\n'),
      /pins operator\.image\.repository=mirror\.example\/redislabs\/operator: kept/,
    );
    assert.deepEqual(operatorImageOverrides({ tag: TARGET }, TARGET).set, []);
    assert.deepEqual(operatorImageOverrides({}, TARGET), { set: [], notes: [] });
  });

  it("the plan reads the pin from helm's release Secret and shows the override in the command", () => {
    assert.deepEqual(releaseConfigOf(helmSecretData(PINNED_VALUES)), PINNED_VALUES);
    const snapshot = makeSnapshot((s) => {
      s.operator!.helmRelease = { name: 'redis-enterprise', namespace: 'redis' };
      s.helmRelease = {
        name: 'redis-enterprise',
        namespace: 'redis',
        revision: 1,
        status: 'deployed',
        pinnedOperatorImage: pinnedOperatorImage(releaseConfigOf(helmSecretData(PINNED_VALUES))),
      };
    });
    const plan = planUpgrade(snapshot, makeTarget({ method: 'helm' }));
    const upgrade = plan.steps.find((s) => s.id === 'operator')!.actions[0]!;
    assert.match(upgrade.command, /--set operator\.image\.tag=7\.8\.2-6 --reset-then-reuse-values$/);
    assert.match(upgrade.description, /pins operator\.image\.tag=7\.4\.6-2: overridden/);
    assert.ok(!JSON.stringify(plan).includes('"config"'));
  });

  it('the run reads helm get values and adds --set operator.image.tag=<target>', async () => {
    const h = helmHarness('v3.17.2', PINNED_VALUES);
    await h.run(createOperatorStep({ wait: h.cluster.wait() }));
    const read = h.helm.calls.find((c) => c.kind === 'read' && c.args[0] === 'get');
    assert.deepEqual(read?.args, [
      'get',
      'values',
      'redis-enterprise',
      '--namespace',
      'redis',
      '--output',
      'json',
    ]);
    const args = h.helm.calls.find((c) => c.kind === 'change')?.args ?? [];
    assert.ok(
      args.join(' ').includes(`--set operator.image.tag=${TARGET} --reset-then-reuse-values`),
      args.join(' '),
    );
    assert.ok(
      h.log.some((e) => e.type === 'warn' && /operator\.image\.tag=7\.4\.6-2: overridden/.test(e.text)),
    );
  });

  it('no pin, no --set', async () => {
    const h = helmHarness('v3.17.2', {});
    await h.run(createOperatorStep({ wait: h.cluster.wait() }));
    const args = h.helm.calls.find((c) => c.kind === 'change')?.args ?? [];
    assert.ok(!args.includes('--set'), args.join(' '));
  });
});

describe('preflight checks the helm client', () => {
  const run = (version: string, values: unknown) => {
    const h = helmHarness(version, values);
    return {
      h,
      result: h.run(createPreflightStep({ backupDir: '/nonexistent-ctl-test' }), { dryRun: true }),
    };
  };

  it('helm 3.9 fails before any change, with the fix', async () => {
    const { h, result } = run('v3.9.4', {});
    await assert.rejects(result, (error: PreflightError) => {
      assert.ok(error instanceof PreflightError);
      assert.match(error.message, /helm 3\.9 is older than 3\.10/);
      assert.match(error.hint ?? '', /Install helm 3\.14 or later/);
      return true;
    });
    assert.equal(h.helm.calls.filter((c) => c.kind === 'change').length, 0);
  });

  it('helm 3.12 with user values fails (they would be lost without --reset-then-reuse-values), naming keys only', async () => {
    const { result } = run('v3.12.3', { operator: { image: { tag: 'x' } }, secretish: 'CANARY-value' });
    await assert.rejects(result, (error: PreflightError) => {
      assert.match(error.message, /helm 3\.12 has no --reset-then-reuse-values.*\(operator, secretish\)/);
      assert.ok(!error.message.includes('CANARY'));
      return true;
    });
  });

  it('helm 3.12 without user values warns; helm 3.14 passes silently', async () => {
    const old = run('v3.12.3', {});
    await old.result;
    assert.ok(old.h.log.some((e) => e.type === 'warn' && /nothing is lost/.test(e.text)));
    const current = run('v3.14.0', {});
    await current.result;
    assert.ok(!current.h.log.some((e) => e.type === 'warn' && /helm/.test(e.text)));
  });

  it('the bundle method does not ask helm at all', async () => {
    const h = harness({});
    await h.run(createPreflightStep({ backupDir: '/nonexistent-ctl-test' }), { dryRun: true });
    assert.equal(h.helm.calls.length, 0);
  });
});
