import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OperationError } from '../../../src/errors.js';
import { FIELD_MANAGER } from '../../../src/kube/write.js';
import { createOperatorStep } from '../../../src/steps/operator.js';
import { parseHelmHistory } from '../../../src/steps/operator-helm.js';
import { deploymentState } from '../../../src/steps/operator-rollout.js';
import { SERVER_SIDE_APPLY_FLAGS } from '../../../src/planning/equivalent-commands.js';
import type { Plan } from '../../../src/planning/plan.js';
import { deployment, type FakeCluster, harness, makeDeploymentsReady, stderrLines } from './fakes.js';
import { writeReleaseTree } from './release-tree.js';

const TARGET = '7.8.2-6';

function planned(plan: Plan, id: string): string[] {
  return plan.steps.find((s) => s.id === id)?.actions.map((a) => a.command) ?? [];
}

function bundleHarness(options: Parameters<typeof harness>[0] = {}) {
  const bundle = writeReleaseTree([TARGET]);
  const h = harness({ ...options, target: { bundle, ...options.target } });
  h.cluster.put(deployment('redislabs/operator:7.4.6-2', true));
  h.cluster.onTick = makeDeploymentsReady;
  return h;
}

/** `helm history -o json`: revision 1 deployed at 7.4.6-2, then the given newest revision. */
function helmHistory(status: string, chartVersion: string, revision = 3): string {
  const first = {
    revision: 1,
    status: revision === 1 ? status : 'superseded',
    chart: 'redis-enterprise-operator-7.4.6-2',
  };
  const newest = {
    revision,
    status,
    chart: `redis-enterprise-operator-${chartVersion}`,
    app_version: chartVersion,
  };
  return JSON.stringify(revision === 1 ? [first] : [first, newest]);
}

/** Stands in for helm upgrade: the chart changes the operator image. */
function helmUpgradesImage(cluster: FakeCluster, version: string) {
  return () =>
    cluster.update('apps/v1', 'Deployment', 'redis-enterprise-operator', 'redis', (d) => {
      const spec = d.spec as { template: { spec: { containers: { image: string }[] } } };
      spec.template.spec.containers[0]!.image = `redislabs/operator:${version}`;
      d.metadata = { ...d.metadata, generation: (d.metadata?.generation ?? 1) + 1 };
    });
}

describe('operator step', () => {
  it('is skipped when the operator already runs the target and is ready', async () => {
    const h = harness({});
    h.cluster.put(deployment(`redislabs/operator:${TARGET}`, true));
    const result = await h.run(createOperatorStep({ wait: h.cluster.wait() }));
    assert.deepEqual(result, { skipped: `already at ${TARGET}` });
    assert.deepEqual(h.cluster.writes(), []);
  });

  it('never downgrades an operator that already runs a newer version', async () => {
    const h = bundleHarness();
    h.cluster.put(deployment('redislabs/operator:8.0.2-2', false));
    const result = await h.run(createOperatorStep({ wait: h.cluster.wait() }));
    assert.deepEqual(result, { skipped: `the operator already runs 8.0.2-2, newer than ${TARGET}` });
    assert.deepEqual(h.cluster.writes(), []);
  });

  it('bundle: records the intent, applies CRDs first, waits for the new operator and verifies the CRDs', async () => {
    const h = bundleHarness();
    const result = await h.run(createOperatorStep({ wait: h.cluster.wait() }));
    const firstWrite = h.log.findIndex((e) => e.type === 'write');
    const intent = h.log.findIndex((e) => e.type === 'intent');
    assert.ok(intent >= 0 && intent < firstWrite, 'the intent is recorded before the first write');
    const recorded = h.log[intent]?.data as Record<string, unknown>;
    assert.equal(recorded.method, 'bundle');
    assert.equal(recorded.from, '7.4.6-2');
    assert.equal(recorded.to, TARGET);
    assert.match(String(recorded.bundle), /\/7\.8\.2-6\/bundle\.yaml$/);
    assert.equal(recorded.objects, 8);
    const writes = h.cluster.writes();
    assert.deepEqual(writes.slice(0, 3), [
      'apply CustomResourceDefinition/redisenterpriseclusters.app.redislabs.com',
      'apply CustomResourceDefinition/redisenterprisedatabases.app.redislabs.com',
      'apply CustomResourceDefinition/redisenterpriseactiveactivedatabases.app.redislabs.com',
    ]);
    assert.ok(writes.includes('apply Deployment/redis-enterprise-operator -n redis'));
    assert.ok(
      writes.includes('apply Role/redis-enterprise-operator -n redis'),
      'namespaced objects get the namespace',
    );
    assert.equal(writes.at(-1), 'apply Deployment/redis-enterprise-operator -n redis');
    assert.deepEqual(result.outcome, {
      operatorVersion: TARGET,
      image: `redislabs/operator:${TARGET}`,
      method: 'bundle',
      crds: [
        'redisenterpriseclusters.app.redislabs.com',
        'redisenterprisedatabases.app.redislabs.com',
        'redisenterpriseactiveactivedatabases.app.redislabs.com',
      ],
      rolesReapplied: [],
    });
  });

  it('bundle: the plan shows the apply the step makes (file, namespace, server-side flags)', async () => {
    const bundle = writeReleaseTree([TARGET]);
    const h = harness({
      target: { bundle },
      snapshot: (s) => (s.watchedNamespaces = ['redis', 'app-a']),
    });
    h.cluster.put(deployment('redislabs/operator:7.4.6-2', true));
    h.cluster.onTick = makeDeploymentsReady;
    await h.run(createOperatorStep({ wait: h.cluster.wait() }));
    const file = bundle.replace('{version}', TARGET);
    const [apply, , roles] = planned(h.deps.plan, 'operator');
    assert.equal(apply, `kubectl apply ${SERVER_SIDE_APPLY_FLAGS.join(' ')} -n redis -f ${file}`);
    assert.ok(SERVER_SIDE_APPLY_FLAGS.includes(`--field-manager=${FIELD_MANAGER}`));
    const intent = h.log.find((e) => e.type === 'intent')?.data as { bundle: string };
    assert.equal(intent.bundle, file, 'the step applies the file the plan names');
    // The fake API server refuses an apply without force and field manager ctl.
    assert.ok(h.cluster.writes().includes('apply Deployment/redis-enterprise-operator -n redis'));
    // The roles come from next to the bundle, and land in the namespace the plan names.
    const role = file.replace('bundle.yaml', 'multi-namespace-redb/role.yaml');
    assert.ok(roles?.startsWith(`cat ${role} | `), roles);
    assert.match(roles ?? '', / -n app-a -f - && REF=/);
    assert.ok(h.cluster.get('rbac.authorization.k8s.io/v1', 'Role', 'redb-role', 'app-a'));
  });

  it('bundle: re-applies redb-role in every other watched namespace with the placeholders filled in', async () => {
    const h = bundleHarness({ snapshot: (s) => (s.watchedNamespaces = ['redis', 'app-a', 'app-b']) });
    const result = await h.run(createOperatorStep({ wait: h.cluster.wait() }));
    assert.deepEqual(result.outcome?.rolesReapplied, ['app-a', 'app-b']);
    const binding = h.cluster.get('rbac.authorization.k8s.io/v1', 'RoleBinding', 'redb-role', 'app-b');
    assert.deepEqual(binding?.subjects, [
      { kind: 'ServiceAccount', name: 'redis-enterprise-operator', namespace: 'redis' },
      { kind: 'ServiceAccount', name: 'rec', namespace: 'redis' },
    ]);
    assert.ok(h.cluster.get('rbac.authorization.k8s.io/v1', 'Role', 'redb-role', 'app-a'));
  });

  it('bundle dry-run: prints "would apply" lines only, changes nothing and does not wait', async () => {
    const h = bundleHarness({ snapshot: (s) => (s.watchedNamespaces = ['redis', 'app-a']) });
    const result = await h.run(
      createOperatorStep({
        wait: () => Promise.reject(new Error('must not wait in dry-run')),
      }),
      { dryRun: true },
    );
    assert.deepEqual(h.cluster.writes(), []);
    const lines = stderrLines(h.test);
    assert.ok(lines.length >= 10);
    for (const line of lines) assert.match(line, /^would apply /);
    assert.ok(lines.includes('would apply role/redb-role -n app-a'));
    assert.equal(result.outcome?.dryRun, true);
  });

  it('fails with exit 6 when the operator never becomes ready (the wait times out)', async () => {
    const h = bundleHarness();
    h.cluster.onTick = () => {};
    await assert.rejects(h.run(createOperatorStep({ wait: h.cluster.wait(3) })), (error: Error) => {
      assert.equal((error as { exitCode?: number }).exitCode, 6);
      assert.match(error.message, /redis-enterprise-operator to run 7\.8\.2-6/);
      return true;
    });
    assert.ok(
      h.log.some(
        (e) =>
          e.type === 'progress' &&
          e.text === `operator ${TARGET}: the Deployment controller has not picked up the new spec yet`,
      ),
      'the wait reports readiness as progress',
    );
  });

  describe('helm', () => {
    function helmHarness(options: Parameters<typeof harness>[0] = {}) {
      const h = harness({
        ...options,
        target: { method: 'helm', ...options.target },
        snapshot: (s) => {
          s.operator!.helmRelease = { name: 'redis-enterprise', namespace: 'redis' };
          s.helmRelease = { name: 'redis-enterprise', namespace: 'redis', revision: 1, status: 'deployed' };
          options.snapshot?.(s);
        },
      });
      h.cluster.put(deployment('redislabs/operator:7.4.6-2', true));
      h.cluster.put({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'redisenterpriseclusters.app.redislabs.com' },
        spec: {
          versions: [
            { name: 'v1alpha1', served: true },
            { name: 'v1', served: true },
          ],
        },
      });
      h.cluster.put({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'redisenterprisedatabases.app.redislabs.com' },
        spec: { versions: [{ name: 'v1alpha1', served: true }] },
      });
      h.helm.answers.set('version', () => 'v3.17.2');
      h.helm.answers.set('history', () => helmHistory('deployed', '7.4.6-2', 1));
      h.helm.onChange = helmUpgradesImage(h.cluster, TARGET);
      h.cluster.onTick = makeDeploymentsReady;
      return h;
    }

    it('runs helm upgrade with --repo, the chart version and --reset-then-reuse-values, then waits', async () => {
      const h = helmHarness({ target: { helmRepo: 'http://127.0.0.1:9/charts' } });
      const result = await h.run(createOperatorStep({ wait: h.cluster.wait() }));
      const change = h.helm.calls.filter((c) => c.kind === 'change');
      assert.deepEqual(
        change.map((c) => c.args),
        [
          [
            'upgrade',
            'redis-enterprise',
            'redis-enterprise-operator',
            '--version',
            TARGET,
            '--namespace',
            'redis',
            '--repo',
            'http://127.0.0.1:9/charts',
            '--reset-then-reuse-values',
          ],
        ],
      );
      const intent = h.log.findIndex((e) => e.type === 'intent');
      const write = h.log.findIndex((e) => e.type === 'write');
      assert.ok(intent >= 0 && intent < write, 'intent before helm upgrade');
      assert.equal(result.outcome?.operatorVersion, TARGET);
      assert.equal(result.outcome?.method, 'helm');
      assert.deepEqual(result.outcome?.crds, [
        'redisenterpriseclusters.app.redislabs.com',
        'redisenterprisedatabases.app.redislabs.com',
      ]);
    });

    it('adds --set openshift.mode=true on OpenShift and uses helm.redis.io for the default chart', async () => {
      const h = helmHarness({ snapshot: (s) => (s.platform = 'openshift') });
      await h.run(createOperatorStep({ wait: h.cluster.wait() }));
      const args = h.helm.calls.find((c) => c.kind === 'change')?.args ?? [];
      assert.ok(
        args.join(' ').includes('--repo https://helm.redis.io --set openshift.mode=true'),
        args.join(' '),
      );
    });

    it('falls back to no values flag on helm older than 3.14', async () => {
      const h = helmHarness();
      h.helm.answers.set('version', () => 'v3.12.0');
      await h.run(createOperatorStep({ wait: h.cluster.wait() }));
      const args = h.helm.calls.find((c) => c.kind === 'change')?.args ?? [];
      assert.ok(!args.includes('--reset-then-reuse-values'));
      assert.ok(!args.includes('--reuse-values'), 'never --reuse-values: it keeps the old chart defaults');
    });

    it('does not run helm again when the release is already deployed at the target chart (resume)', async () => {
      const h = helmHarness();
      h.helm.answers.set('history', () => helmHistory('deployed', TARGET, 2));
      helmUpgradesImage(h.cluster, TARGET)();
      const result = await h.run(createOperatorStep({ wait: h.cluster.wait() }));
      assert.equal(h.helm.calls.filter((c) => c.kind === 'change').length, 0);
      assert.equal(h.log.filter((e) => e.type === 'intent').length, 0);
      assert.equal(result.outcome?.operatorVersion, TARGET);
    });

    it('stops with the exact rollback when a killed helm left the release pending-upgrade', async () => {
      const h = helmHarness();
      h.helm.answers.set('history', () =>
        JSON.stringify([
          { revision: 1, status: 'superseded', chart: 'redis-enterprise-operator-7.4.2-2' },
          { revision: 2, status: 'superseded' },
          { revision: 4, status: 'pending-upgrade', chart: `redis-enterprise-operator-${TARGET}` },
          { revision: 3, status: 'deployed' },
        ]),
      );
      await assert.rejects(h.run(createOperatorStep({ wait: h.cluster.wait() })), (error: Error) => {
        assert.ok(error instanceof OperationError);
        assert.match(error.message, /stuck in pending-upgrade \(revision 4\)/);
        assert.match(error.hint ?? '', /helm rollback redis-enterprise 3 --namespace redis/);
        return true;
      });
      assert.equal(h.helm.calls.filter((c) => c.kind === 'change').length, 0);
    });

    it('explains a missing release', async () => {
      const h = helmHarness();
      h.helm.answers.set('history', () => {
        throw new OperationError('helm status failed: Error: release: not found');
      });
      await assert.rejects(
        h.run(createOperatorStep({ wait: h.cluster.wait() })),
        /helm release redis-enterprise was not found in namespace redis/,
      );
    });

    for (const [what, options] of [
      ['the default chart', {}],
      ['--helm-repo', { target: { helmRepo: 'http://127.0.0.1:9/charts' } }],
      ['OpenShift', { snapshot: (s) => (s.platform = 'openshift') }],
      [
        "a chart of the user's own helm repository",
        { target: { helmChart: 'mine/redis-enterprise-operator' } },
      ],
      ['--helm-release', { target: { helmRelease: 'renamed' } }],
    ] as [string, Parameters<typeof harness>[0]][]) {
      it(`the plan shows the helm command the step runs: ${what}`, async () => {
        const h = helmHarness(options);
        if (options.target?.helmRelease) {
          h.helm.answers.set('history', () => helmHistory('deployed', '7.4.6-2', 1));
        }
        await h.run(createOperatorStep({ wait: h.cluster.wait() }));
        const ran = h.helm.calls.filter((c) => c.kind === 'change').map((c) => ['helm', ...c.args].join(' '));
        assert.equal(ran.length, 1);
        assert.equal(planned(h.deps.plan, 'operator')[0], ran[0]);
      });
    }

    it('dry-run prints the helm command and changes nothing', async () => {
      const h = helmHarness();
      await h.run(createOperatorStep({ wait: () => Promise.reject(new Error('no wait')) }), {
        dryRun: true,
      });
      assert.deepEqual(h.cluster.writes(), []);
      assert.deepEqual(stderrLines(h.test), [
        `would run: helm upgrade redis-enterprise redis-enterprise-operator --version ${TARGET} --namespace redis --repo https://helm.redis.io --reset-then-reuse-values`,
      ]);
    });
  });
});

describe('operator helpers', () => {
  it('deploymentState: ready only when observed, updated and ready', () => {
    assert.equal(deploymentState(deployment('r/operator:7.8.2-6', true))?.ready, true);
    assert.equal(deploymentState(deployment('r/operator:7.8.2-6', false))?.ready, false);
    const stale = deployment('r/operator:7.8.2-6', true);
    stale.metadata = { ...stale.metadata, generation: 2 };
    assert.equal(deploymentState(stale)?.ready, false, 'a generation the controller has not observed');
    assert.equal(deploymentState(deployment('r/operator:7.8.2-6', true))?.version, '7.8.2-6');
    assert.equal(deploymentState(undefined), undefined);
  });

  it('parses helm history', () => {
    assert.deepEqual(parseHelmHistory(helmHistory('failed', '7.8.2-6', 5)), {
      status: 'failed',
      revision: 5,
      chartVersion: '7.8.2-6',
      lastDeployedRevision: 1,
    });
    assert.throws(() => parseHelmHistory('Error'), /not JSON/);
    assert.deepEqual(parseHelmHistory('[]'), {
      status: 'unknown',
      revision: undefined,
      chartVersion: undefined,
      lastDeployedRevision: undefined,
    });
  });
});
