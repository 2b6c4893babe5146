import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connectApi } from '../../src/api/connect.js';
import { ApiWriter } from '../../src/api/writer.js';
import { Helm } from '../../src/exec/helm.js';
import { JsonReporter } from '../../src/io/progress.js';
import { createTestIo } from '../../src/io/test-io.js';
import { createKubeClients, type KubeClients, loadKubeConfig } from '../../src/kube/client.js';
import { createClusterReads, type KubeObject } from '../../src/kube/reads.js';
import { KubeWriter, readObject } from '../../src/kube/write.js';
import { startSimulatedCluster, type SimulatedCluster } from '../../src/sim/cluster.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { createAdmissionStep } from '../../src/steps/admission.js';
import { createClusterStep } from '../../src/steps/cluster.js';
import type { UpgradeDeps } from '../../src/steps/deps.js';
import { createOperatorStep } from '../../src/steps/operator.js';
import { createPreflightStep } from '../../src/steps/preflight.js';
import { createSecurityContextStep } from '../../src/steps/security-context.js';
import type { Step } from '../../src/run/step.js';
import { clusterTagFor } from '../../src/release/catalog.js';
import { planUpgrade, REQUIRED_PERMISSIONS } from '../../src/steps/index.js';
import { resolveUpgrade } from '../../src/planning/resolve.js';
import { runSteps } from '../../src/run/runner.js';
import { type ManagementReader, readSnapshot } from '../../src/planning/snapshot.js';
import { newState, StateFile } from '../../src/run/state.js';
import { resolveTarget } from '../../src/planning/target.js';
import { helmPath, makeToolSandbox, type ToolSandbox } from '../helpers/tools.js';
import { tempDir } from '../helpers/temp.js';

/**
 * The five steps of this file's owner (preflight, operator, admission, security-context,
 * cluster) in order through the real runner, against the simulated cluster: real client-node,
 * real watches, the real helm 3 binary, the simulator's bundles and chart repository.
 */

const TARGET = '7.8.2-6';
const TARGET_TAG = clusterTagFor(TARGET) ?? '';

interface Run {
  sim: SimulatedCluster;
  sandbox: ToolSandbox;
  kube: KubeClients;
  deps(dryRun?: boolean): Promise<UpgradeDeps>;
  run(options?: {
    dryRun?: boolean;
    stateFile?: StateFile;
  }): Promise<{ stderr: string; stdout: string; summary: unknown }>;
}

async function start(scenario: string, to = TARGET): Promise<Run> {
  const sandbox = makeToolSandbox('ctl-steps-');
  const sim = await startSimulatedCluster({
    scenario: loadScenario(scenario),
    fast: true,
    dir: join(sandbox.dir, 'sim'),
  });
  const loaded = await loadKubeConfig({ kubeconfig: sim.kubeconfigPath });
  const kube = await createKubeClients(loaded, () => {});
  const namespace = sim.scenario.namespace;
  const backupDir = tempDir('ctl-steps-backup-');

  const deps = async (
    dryRun = false,
    io = createTestIo().io,
    signal = new AbortController().signal,
  ): Promise<UpgradeDeps> => {
    const connection = await connectApi(
      { apiUrl: sim.apiUrl, passwordStdin: false, caFile: sim.caPath, insecure: false, authForm: 'auto' },
      { io, env: sim.env, stdin: process.stdin },
    );
    const snapshot = await readSnapshot({
      kube: createClusterReads(kube),
      context: loaded.contextName,
      namespace,
      requiredPermissions: REQUIRED_PERMISSIONS,
      management: connection.client() as unknown as ManagementReader,
    });
    const target = resolveTarget({ to, bundle: sim.env.CTL_BUNDLE, helmRepo: sim.env.CTL_HELM_REPO });
    const plan = planUpgrade(snapshot, target);
    const api = connection.client();
    const writes = { dryRun, io };
    return {
      kube,
      kubeWriter: new KubeWriter(kube, writes),
      api,
      apiWriter: new ApiWriter(api, writes),
      helm: new Helm({
        io,
        binary: helmPath(3),
        dryRun,
        signal,
        env: sandbox.env,
        kube: { kubeconfigs: [sim.kubeconfigPath] },
      }),
      settings: {
        remediate: false,
        moduleFiles: [],
        maxParallel: 1,
        keepScc: false,
        timeoutMs: 60_000,
        stallTimeoutMs: 30_000,
      },
      clock: { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) },
      snapshot,
      plan,
      target,
      resolved: resolveUpgrade(snapshot, target),
    };
  };

  const steps: Step<UpgradeDeps>[] = [
    createPreflightStep({ backupDir }),
    createOperatorStep(),
    createAdmissionStep(),
    createSecurityContextStep(),
    createClusterStep(),
  ];

  return {
    sim,
    sandbox,
    kube,
    deps: (dryRun) => deps(dryRun),
    run: async (options = {}) => {
      const test = createTestIo({ output: 'json' });
      const signal = new AbortController().signal;
      const dryRun = options.dryRun ?? false;
      const upgradeDeps = await deps(dryRun, test.io, signal);
      const state = newState(
        { context: loaded.contextName, namespace, cluster: sim.scenario.cluster.name },
        { operator: to },
        steps.map((s) => s.id),
      );
      const outcome = await runSteps({
        steps,
        state: (await options.stateFile?.load()) ?? state,
        stateFile: options.stateFile,
        reporter: new JsonReporter(test.io, () => new Date()),
        io: test.io,
        deps: upgradeDeps,
        dryRun,
        signal,
      }).catch((error: Error & { summary?: unknown }) => {
        assert.fail(
          `runSteps failed: ${error.message}\n${(error as { hint?: string }).hint ?? ''}\n${test.stdout()}\n${test.stderr()}`,
        );
      });
      return { stderr: test.stderr(), stdout: test.stdout(), summary: outcome.summary };
    },
  };
}

async function rec(run: Run): Promise<KubeObject | undefined> {
  return readObject(run.kube, {
    apiVersion: 'app.redislabs.com/v1',
    kind: 'RedisEnterpriseCluster',
    name: run.sim.scenario.cluster.name,
    namespace: run.sim.scenario.namespace,
  });
}

function imageSpecTag(object: KubeObject | undefined): unknown {
  const spec = (object?.spec ?? {}) as Record<string, { versionTag?: unknown }>;
  return (spec.engineEnterpriseImageSpec ?? spec.redisEnterpriseImageSpec)?.versionTag;
}

async function operatorImage(run: Run): Promise<string> {
  const deployment = await readObject(run.kube, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: 'redis-enterprise-operator',
    namespace: run.sim.scenario.namespace,
  });
  const spec = deployment?.spec as { template: { spec: { containers: { name: string; image: string }[] } } };
  return spec.template.spec.containers.find((c) => c.name === 'redis-enterprise-operator')?.image ?? '';
}

function events(
  stdout: string,
): { type: string; step?: string; message: string; data?: Record<string, unknown> }[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

for (const scenario of ['happy-path', 'helm-installed'] as const) {
  describe(`steps preflight..cluster against the simulator: ${scenario}`, () => {
    let run: Run;
    before(async () => {
      run = await start(scenario);
    });
    after(async () => {
      await run?.sim.stop();
      run?.sandbox.cleanup();
    });

    it('dry-run prints what would change and changes nothing', async () => {
      const before = await operatorImage(run);
      const plan = (await run.deps(true)).plan;
      const planned = plan.steps.find((s) => s.id === 'operator')?.actions[0]?.command ?? '';
      const { stderr } = await run.run({ dryRun: true });
      const lines = stderr.split('\n').filter(Boolean);
      assert.ok(lines.length > 0);
      for (const line of lines) assert.match(line, /^would /, line);
      if (scenario === 'helm-installed') {
        // The plan's command is the one the step runs (after helm's --kubeconfig).
        assert.match(planned, /^helm upgrade redis-enterprise /);
        assert.ok(
          lines.some((l) => l.startsWith('would run: ') && l.endsWith(planned.slice('helm'.length))),
          `${planned}\n${lines.join('\n')}`,
        );
      } else {
        assert.ok(lines.some((l) => l.startsWith('would apply deployment/redis-enterprise-operator')));
        assert.ok(!planned.includes('githubusercontent'), planned);
      }
      assert.ok(lines.some((l) => l.startsWith('would patch rec/rec')));
      assert.equal(await operatorImage(run), before);
      assert.equal(imageSpecTag(await rec(run)), '7.4.6-22');
    });

    it('runs the five steps: operator upgraded and ready, webhook trusted, cluster tag set', async () => {
      const dir = tempDir('ctl-steps-state-');
      const stateFile = new StateFile(join(dir, 'rec.json'));
      const plan = (await run.deps()).plan;
      const { stdout } = await run.run({ stateFile });
      const saved = await stateFile.load();
      const context = JSON.stringify(saved?.steps, null, 1);
      if (scenario === 'happy-path') {
        // The plan's apply names the bundle the step applied (CTL_BUNDLE, not GitHub).
        const bundle = run.sim.env.CTL_BUNDLE?.replace('{version}', TARGET);
        assert.equal(saved?.steps.operator?.intent?.bundle, bundle);
        assert.equal(
          plan.steps.find((s) => s.id === 'operator')?.actions[0]?.command,
          `kubectl apply --server-side --force-conflicts --field-manager=ctl -n redis -f ${bundle}`,
        );
      }
      assert.equal(saved?.result, 'succeeded', context);
      for (const id of ['preflight', 'operator', 'cluster'])
        assert.equal(saved?.steps[id]?.status, 'done', `${id}: ${context}`);
      assert.equal(saved?.steps.preflight?.status, 'done');
      assert.equal(saved?.steps.operator?.status, 'done');
      assert.equal(saved?.steps.operator?.outcome?.operatorVersion, TARGET);
      assert.equal(saved?.steps.operator?.intent?.to, TARGET);
      assert.equal(saved?.steps['security-context']?.skipReason, 'not OpenShift');
      assert.equal(saved?.steps.cluster?.status, 'done');
      assert.equal(saved?.steps.cluster?.outcome?.versionTag, TARGET_TAG);
      assert.match(await operatorImage(run), new RegExp(`:${TARGET}$`));
      assert.equal(imageSpecTag(await rec(run)), TARGET_TAG);

      if (scenario === 'happy-path') {
        // The seeded webhook already matches the release's and trusts admission-tls: nothing to do.
        assert.match(saved?.steps.admission?.skipReason ?? '', /already up to date/, context);
        const webhook = await readObject(run.kube, {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          name: 'redis-enterprise-admission',
        });
        const secret = await readObject(run.kube, {
          apiVersion: 'v1',
          kind: 'Secret',
          name: 'admission-tls',
          namespace: 'redis',
        });
        const entries = webhook?.webhooks as { clientConfig: { caBundle?: string } }[];
        assert.ok(entries.length > 0);
        for (const entry of entries) assert.equal(entry.clientConfig.caBundle, secret?.data?.cert);
      } else {
        assert.equal(saved?.steps.admission?.skipReason, 'the helm chart manages the admission webhook');
        const { stdout: status } = await new Helm({
          io: createTestIo().io,
          binary: helmPath(3),
          dryRun: false,
          signal: new AbortController().signal,
          env: run.sandbox.env,
          kube: { kubeconfigs: [run.sim.kubeconfigPath] },
        }).read(['history', 'redis-enterprise', '-n', 'redis', '-o', 'json']);
        const newest = (JSON.parse(status) as { revision: number; status: string; chart: string }[]).at(-1);
        assert.equal(newest?.status, 'deployed');
        assert.equal(newest?.chart, `redis-enterprise-operator-${TARGET}`);
      }
      assert.ok(events(stdout).some((e) => e.type === 'step-done' && e.step === 'cluster'));
    });

    it('a second run from scratch finds everything done and changes nothing', async () => {
      const audit = run.sim.audit;
      const writesBefore = countWrites(audit);
      const { stdout } = await run.run();
      const skips = events(stdout).filter((e) => e.type === 'step-skip');
      assert.ok(
        skips.some((e) => e.step === 'operator' && e.message === `already at ${TARGET}`),
        JSON.stringify(skips),
      );
      assert.ok(
        skips.some((e) => e.step === 'cluster'),
        JSON.stringify(skips),
      );
      if (scenario === 'happy-path') {
        assert.ok(
          skips.some((e) => e.step === 'admission' && /already up to date/.test(e.message)),
          JSON.stringify(skips),
        );
      }
      assert.equal(countWrites(audit), writesBefore, 'no write request on the second run');
    });
  });
}

/** Write requests to the Kubernetes emulator so far (access reviews ask, they change nothing). */
function countWrites(audit: SimulatedCluster['audit']): number {
  return audit.entries.filter(
    (e) => e.api === 'kube' && e.mutating && !/(accessreviews|rulesreviews)/.test(e.path),
  ).length;
}

describe('steps against the simulator: what only some clusters need', () => {
  it('legacy-webhook: deletes redb-admission and applies redis-enterprise-admission trusting admission-tls', async () => {
    const run = await start('legacy-webhook');
    try {
      const dir = tempDir('ctl-steps-state-');
      const stateFile = new StateFile(join(dir, 'rec.json'));
      const plan = (await run.deps()).plan;
      await run.run({ stateFile });
      const saved = await stateFile.load();
      assert.equal(saved?.steps.admission?.status, 'done', JSON.stringify(saved?.steps.admission));
      assert.equal(saved?.steps.admission?.outcome?.legacyDeleted, true);
      // The plan shows the webhook file the step used: next to CTL_BUNDLE, not on GitHub.
      const source = new URL(
        'admission/webhook.yaml',
        run.sim.env.CTL_BUNDLE?.replace('{version}', TARGET),
      ).toString();
      assert.equal(saved?.steps.admission?.intent?.source, source);
      const commands = plan.steps.find((s) => s.id === 'admission')?.actions.map((a) => a.command) ?? [];
      assert.equal(commands.length, 3, commands.join('\n'));
      assert.equal(commands[1], 'kubectl delete validatingwebhookconfiguration redb-admission');
      assert.ok(commands[2]?.includes(` curl -fsSL ${source} | `), commands[2]);
      const hook = (name: string) =>
        readObject(run.kube, {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          name,
        });
      assert.equal(await hook('redb-admission'), undefined);
      const current = await hook('redis-enterprise-admission');
      const secret = await readObject(run.kube, {
        apiVersion: 'v1',
        kind: 'Secret',
        name: 'admission-tls',
        namespace: 'redis',
      });
      const entries = current?.webhooks as {
        name: string;
        clientConfig: { caBundle?: string; service: { namespace: string } };
      }[];
      assert.equal(entries[0]?.name, 'redisenterprise.admission.redislabs');
      assert.equal(entries[0]?.clientConfig.service.namespace, 'redis');
      assert.equal(entries[0]?.clientConfig.caBundle, secret?.data?.cert);
    } finally {
      await run.sim.stop();
      run.sandbox.cleanup();
    }
  });

  it('multi-namespace: re-applies redb-role in app-a and app-b', async () => {
    const run = await start('multi-namespace');
    try {
      const dir = tempDir('ctl-steps-state-');
      const stateFile = new StateFile(join(dir, 'rec.json'));
      await run.run({ stateFile });
      const saved = await stateFile.load();
      assert.deepEqual(saved?.steps.operator?.outcome?.rolesReapplied, ['app-a', 'app-b']);
      for (const namespace of ['app-a', 'app-b']) {
        const binding = await readObject(run.kube, {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          name: 'redb-role',
          namespace,
        });
        const subjects = binding?.subjects as { name: string; namespace: string }[];
        assert.deepEqual(
          subjects.map((s) => `${s.namespace}/${s.name}`),
          ['redis/redis-enterprise-operator', 'redis/rec'],
        );
        const managers =
          (binding?.metadata as { managedFields?: { manager?: string }[] }).managedFields ?? [];
        assert.ok(
          managers.some((m) => m.manager === 'ctl'),
          'applied by ctl (server-side apply)',
        );
      }
    } finally {
      await run.sim.stop();
      run.sandbox.cleanup();
    }
  });

  it('openshift to 7.22.0-7: redis-enterprise-scc-v2 is still there after the cluster step (removed after the roll)', async () => {
    const run = await start('openshift', '7.22.0-7');
    try {
      const scc = () =>
        readObject(run.kube, {
          apiVersion: 'security.openshift.io/v1',
          kind: 'SecurityContextConstraints',
          name: 'redis-enterprise-scc-v2',
        });
      assert.ok(await scc(), 'the scenario starts with the SCC');
      const dir = tempDir('ctl-steps-state-');
      const stateFile = new StateFile(join(dir, 'rec.json'));
      await run.run({ stateFile });
      const saved = await stateFile.load();
      assert.equal(saved?.steps['security-context']?.status, 'skipped', JSON.stringify(saved?.steps));
      assert.match(saved?.steps['security-context']?.skipReason ?? '', /until the cluster has rolled/);
      assert.equal(saved?.steps.cluster?.status, 'done');
      assert.ok(await scc(), 'nothing removed the SCC before the monitor step');
      assert.match(await operatorImage(run), /:7\.22\.0-7$/);
    } finally {
      await run.sim.stop();
      run.sandbox.cleanup();
    }
  });
});
