import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers/temp.js';
import {
  assertExit,
  changes,
  describeEntries,
  getPath,
  parseEvents,
  withUpgradeSim,
} from './upgrade-support.js';

/**
 * ctl on an OperatorHub install as a real OLM install behaves (issue 27): OLM signs the webhook
 * it makes from the CSV's webhookdefinitions with its own CA. Scenarios are written here, with
 * namespaces and names of their own.
 */

interface PlanJson {
  checks: { id: string; status: string; message: string; fix: string }[];
  blocked: boolean;
}

/** An OperatorHub scenario file in a temporary folder removed on exit. */
export function olmScenarioFile(options: {
  name: string;
  namespace: string;
  cluster: string;
  operator?: string;
  versionTag?: string;
  apiVersion?: string;
  olm?: string;
  openshift?: string;
  /** The cluster's Kubernetes (its OpenShift is 4.(N-13)); default 1.29, OpenShift 4.16. */
  kubernetesVersion?: string;
  extra?: string;
}): string {
  const file = path.join(tempDir('ctl-olm-install-'), `${options.name}.yaml`);
  writeFileSync(
    file,
    `name: ${options.name}
description: "OperatorHub install written by test/e2e/upgrade-olm-install.test.ts"
dialect: redis
platform: openshift
kubernetesVersion: "${options.kubernetesVersion ?? '1.29'}"
namespace: ${options.namespace}
${options.openshift ?? ''}
operator:
  version: ${options.operator ?? '7.4.6-2'}
  installedBy: olm
  olm:
    channel: production
    approval: Manual
${options.olm ?? ''}
cluster:
  name: ${options.cluster}
  versionTag: ${options.versionTag ?? '7.4.6-22.rhel8-openshift'}
  repository: registry.connect.redhat.com/redislabs/redis-enterprise
  apiVersion: ${options.apiVersion ?? '7.4.6-22'}
databases:
  - { name: sessions, version: "7.2" }
${options.extra ?? ''}
`,
  );
  return file;
}

const check = (plan: PlanJson, id: string) => plan.checks.find((c) => c.id === id);

describe('admission-tls when OLM manages the webhook certificate (e2e)', () => {
  it("webhookCa olm: the webhook trusts OLM's CA; admission-tls passes and says so, with or without the Secret", async () => {
    const file = olmScenarioFile({ name: 'olm-own-ca', namespace: 'payments', cluster: 'ledger' });
    await withUpgradeSim(file, async (sim) => {
      const [webhook] = await sim.list(['validatingwebhookconfigurations']);
      const olmSecret = await sim.get(['secret', 'redis-enterprise-operator-service-cert', '-n', 'payments']);
      const caBundle = getPath(webhook, ['webhooks', '0', 'clientConfig', 'caBundle']);
      assert.equal(caBundle, getPath(olmSecret, ['data', 'olmCAKey']), "the caBundle is OLM's CA");

      const plan = await sim.ctl(['upgrade', 'plan', '--to', '7.8.6-20', '-o', 'json']);
      assertExit(plan, 0, 'plan');
      const tls = check(JSON.parse(plan.stdout) as PlanJson, 'admission-tls');
      assert.equal(tls?.status, 'pass', JSON.stringify(tls));
      assert.match(
        tls?.message ?? '',
        /OLM manages the certificate of .*CSV redis-enterprise-operator\.v7\.4\.6-2/,
      );

      await sim.kubectl(['delete', 'secret', 'admission-tls', '-n', 'payments']);
      const without = await sim.ctl(['upgrade', 'plan', '--to', '7.8.6-20', '-o', 'json']);
      assertExit(without, 0, 'plan without admission-tls');
      const after = check(JSON.parse(without.stdout) as PlanJson, 'admission-tls');
      assert.equal(after?.status, 'pass', JSON.stringify(after));
      assert.match(after?.message ?? '', /OLM manages the certificate/);
    });
  });

  it("webhookCa operator: the operator's admission-tls signs it, and the check still says so", async () => {
    const file = olmScenarioFile({
      name: 'olm-operator-ca',
      namespace: 'billing',
      cluster: 'main',
      olm: '    webhookCa: operator',
    });
    await withUpgradeSim(file, async (sim) => {
      const [webhook] = await sim.list(['validatingwebhookconfigurations']);
      const secret = await sim.get(['secret', 'admission-tls', '-n', 'billing']);
      assert.equal(
        getPath(webhook, ['webhooks', '0', 'clientConfig', 'caBundle']),
        getPath(secret, ['data', 'cert']),
      );
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '7.8.6-20', '-o', 'json']);
      assertExit(plan, 0, 'plan');
      assert.equal(check(JSON.parse(plan.stdout) as PlanJson, 'admission-tls')?.status, 'pass');
    });
  });
});

const SCC = 'redis-enterprise-scc-v2';

/**
 * A second OperatorHub-installed cluster in namespace `namespace`: the service account `rec`
 * and what OLM made of its CSV's permissions there, a Role and RoleBinding with a generated name
 * granting `use` of the SCC (certified CSV 7.4.6-2.0; operator-lifecycle-manager rbac.go).
 */
function olmInstalledNeighbour(namespace: string): string {
  const name = 'redis-enterprise-operator.v7.4.6-2-rec-5d8f6c9b7a';
  return `objects:
  - { apiVersion: v1, kind: Namespace, metadata: { name: ${namespace} } }
  - { apiVersion: v1, kind: ServiceAccount, metadata: { name: rec, namespace: ${namespace} } }
  - apiVersion: rbac.authorization.k8s.io/v1
    kind: Role
    metadata:
      name: ${name}
      namespace: ${namespace}
      labels: { olm.owner: redis-enterprise-operator.v7.4.6-2, olm.owner.kind: ClusterServiceVersion, olm.owner.namespace: ${namespace} }
    rules:
      - apiGroups: [security.openshift.io]
        resourceNames: [redis-enterprise-scc, ${SCC}]
        resources: [securitycontextconstraints]
        verbs: [use]
  - apiVersion: rbac.authorization.k8s.io/v1
    kind: RoleBinding
    metadata: { name: ${name}, namespace: ${namespace} }
    roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: ${name} }
    subjects: [{ kind: ServiceAccount, name: rec, namespace: ${namespace} }]`;
}

describe('the SCC under OLM: whoever may use it, keeps it (e2e)', () => {
  it("OLM grants the SCC to rec by a Role; another namespace's OLM-installed cluster keeps it after the upgrade, and the run says why", async () => {
    const target = '7.22.0-17';
    const file = olmScenarioFile({
      name: 'olm-scc-neighbour',
      namespace: 'tenant-a',
      cluster: 'rec',
      openshift: 'openshift:\n  sccBinding: rbac',
      // OpenShift 4.18: 7.22.0-17 supports 4.18-4.20 (src/release/catalog.json).
      kubernetesVersion: '1.31',
      extra: olmInstalledNeighbour('tenant-b'),
    });
    await withUpgradeSim(file, async (sim) => {
      // OLM's own Role for rec in tenant-a, from the installed CSV's permissions.
      const roles = await sim.list(['roles', '-n', 'tenant-a']);
      const olmRole = roles.find((r) =>
        r.metadata.name.startsWith('redis-enterprise-operator.v7.4.6-2-rec-'),
      );
      assert.ok(olmRole, `OLM's Role for rec: ${roles.map((r) => r.metadata.name).join(', ')}`);

      const run = await sim.ctl(['upgrade', 'run', '--to', target, '--yes', '-o', 'json'], {
        timeoutMs: 180_000,
      });
      assertExit(run, 0, `run to ${target}`);
      assert.ok(
        (await sim.list(['scc'])).some((s) => s.metadata.name === SCC),
        'the SCC stays',
      );
      assert.equal(
        changes(sim).filter(
          (e) => e.method === 'DELETE' && e.path.endsWith(`/securitycontextconstraints/${SCC}`),
        ).length,
        0,
        describeEntries(changes(sim)),
      );
      const warning = parseEvents(run.stdout).find((e) => e.type === 'warning' && e.step === 'monitor');
      assert.match(
        warning?.message ?? '',
        /redis-enterprise-scc-v2 is kept: other service accounts may still use it \(rolebinding tenant-b\/redis-enterprise-operator\.v7\.4\.6-2-rec-5d8f6c9b7a \(system:serviceaccount:tenant-b:rec, Role tenant-b\/.*only this cluster's own grant was removed/,
      );
      // Only this cluster's own grant went: oc adm policy's RoleBinding in tenant-a.
      const left = await sim.list(['rolebindings', '-n', 'tenant-a']);
      assert.ok(
        !left.some((b) => b.metadata.name === `system:openshift:scc:${SCC}`),
        'own RoleBinding removed',
      );
      await sim.get(['rolebinding', 'redis-enterprise-operator.v7.4.6-2-rec-5d8f6c9b7a', '-n', 'tenant-b']);

      // The neighbour's next pod is still admitted under the SCC.
      await sim.kubectl([
        'run',
        'probe',
        '-n',
        'tenant-b',
        '--image=registry.connect.redhat.com/redislabs/redis-enterprise:probe',
        '--overrides={"spec":{"serviceAccountName":"rec","containers":[{"name":"probe","image":"registry.connect.redhat.com/redislabs/redis-enterprise:probe","securityContext":{"capabilities":{"add":["SYS_RESOURCE"]}}}]}}',
      ]);
      const probe = await sim.get(['pod', 'probe', '-n', 'tenant-b']);
      assert.equal(
        (probe.metadata as { annotations?: Record<string, string> }).annotations?.['openshift.io/scc'],
        SCC,
      );
    });
  });
});

interface HopsPlanJson extends PlanJson {
  hops?: { hop: number; target: { operator: string; clusterVersion: string | null } }[];
  olm?: { targetCSV: string; targetChannel: string | null };
}

describe('multi-hop under OLM: every hop is a channel head (e2e)', () => {
  it('from 7.2.4-7 the plan goes through heads the channels offer, and the run reaches the target', async () => {
    // 7.8.6-20 does not skip 7.2.4-7 (its bundle skips nothing older than 7.4.2-2.0). The head
    // of channel 7.4.6, 7.4.6-12, has no edge onward at all (no certified bundle lists
    // 7.4.6-12.0 in spec.skips, 8.2.0-18.0 included: certified-operators commit 0eb3663;
    // docs/simulator-internals.md "OperatorHub"), so the route goes through the head of channel 7.4.2,
    // 7.4.2-12, which skips 7.2.4-7 and which 7.8.6-20.1 skips. OpenShift 4.15 (Kubernetes 1.28):
    // where OperatorHub offers 7.4.2-12.0 (v4.11-v4.15) and 7.8.6-20 is still listed (deprecated).
    const target = '7.8.6-20';
    const file = olmScenarioFile({
      name: 'olm-two-hops',
      kubernetesVersion: '1.28',
      namespace: 'retail',
      cluster: 'rec',
      operator: '7.2.4-7',
      versionTag: '7.2.4-64.rhel8-openshift',
      apiVersion: '7.2.4-64',
    });
    await withUpgradeSim(file, async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', target, '-o', 'json']);
      assertExit(plan, 0, 'plan');
      const doc = JSON.parse(plan.stdout) as HopsPlanJson;
      assert.ok(doc.hops && doc.hops.length === 2, JSON.stringify(doc.hops?.map((h) => h.target)));
      assert.equal(doc.hops[0]?.target.operator, '7.4.2-12', 'around the dead end at 7.4.6-12');
      const manifest = await sim.get(['packagemanifest', 'redis-enterprise-operator-cert', '-n', 'retail']);
      const heads = (
        (manifest.status as { channels: { name: string; currentCSV: string }[] }).channels ?? []
      ).map((c) => c.currentCSV);
      for (const hop of doc.hops) {
        assert.ok(
          heads.some(
            (csv) => csv.endsWith(`.v${hop.target.operator}`) || csv.includes(`.v${hop.target.operator}.`),
          ),
          `hop ${hop.hop} to ${hop.target.operator} is a channel head (${heads.join(', ')})`,
        );
      }
      assert.equal(
        check(doc, 'operator-method')?.status,
        'pass',
        JSON.stringify(check(doc, 'operator-method')),
      );

      const run = await sim.ctl(['upgrade', 'run', '--to', target, '--yes'], { timeoutMs: 240_000 });
      assertExit(run, 0, `run to ${target}`);
      const sub = await sim.get(['subscription', 'redis-enterprise-operator-cert', '-n', 'retail']);
      assert.match(
        String(getPath(sub, ['status', 'installedCSV'])),
        /redis-enterprise-operator\.v7\.8\.6-20/,
      );
      const rec = await sim.get(['rec', 'rec', '-n', 'retail']);
      assert.equal(getPath(rec, ['status', 'state']), 'Running');
      assert.match(String(getPath(rec, ['spec', 'redisEnterpriseImageSpec', 'versionTag'])), /^7\.8\.6-315/);
    });
  });
});

describe('a Failed CSV under OLM (e2e)', () => {
  it('InstallCheckFailed is retried by OLM: ctl waits, the CSV comes back and the run reaches the target', async () => {
    const file = olmScenarioFile({
      name: 'olm-install-retried',
      namespace: 'orders',
      cluster: 'rec',
      olm: '    installFailure: InstallCheckFailed',
    });
    await withUpgradeSim(file, async (sim) => {
      const run = await sim.ctl(['upgrade', 'run', '--to', '7.8.6-20', '--yes', '-o', 'json'], {
        timeoutMs: 180_000,
      });
      assertExit(run, 0, 'run to 7.8.6-20');
      const progress = parseEvents(run.stdout).filter((e) => e.step === 'operator' && e.type === 'progress');
      assert.ok(
        progress.some((e) =>
          /redis-enterprise-operator\.v7\.8\.6-20: phase Failed \(InstallCheckFailed: install timeout\); OLM retries it/.test(
            e.message,
          ),
        ),
        progress.map((e) => e.message).join('\n'),
      );
      const csv = await sim.get(['csv', 'redis-enterprise-operator.v7.8.6-20', '-n', 'orders']);
      assert.equal(getPath(csv, ['status', 'phase']), 'Succeeded');
    });
  });

  it('the install does not get past InvalidInstallStrategy by itself: the run stops at once (exit 1), and the next plan fails olm-csv-healthy', async () => {
    const file = olmScenarioFile({
      name: 'olm-install-final',
      namespace: 'orders',
      cluster: 'rec',
      olm: '    installFailure: InvalidStrategy',
    });
    await withUpgradeSim(file, async (sim) => {
      const started = Date.now();
      const run = await sim.ctl(['upgrade', 'run', '--to', '7.8.6-20', '--yes', '--stall-timeout', '10m']);
      assertExit(run, 1, 'run to 7.8.6-20');
      assert.match(
        run.stderr,
        /ClusterServiceVersion redis-enterprise-operator\.v7\.8\.6-20 failed: InvalidInstallStrategy: install strategy invalid/,
      );
      assert.match(run.stderr, /The install does not get past InvalidInstallStrategy by itself\./);
      assert.doesNotMatch(run.stderr, /does not retry/);
      assert.ok(Date.now() - started < 60_000, 'stopped at once, not after the stall timeout');

      // The refused bundle installed nothing: the operator still runs the CSV before it.
      const deployment = await sim.get(['deployment', 'redis-enterprise-operator', '-n', 'orders']);
      assert.match(
        String(getPath(deployment, ['spec', 'template', 'spec', 'containers', '0', 'image'])),
        /:7\.4\.6-2$/,
      );
      // The failure, now on the cluster, is a plan check: the next plan does not try it again.
      const again = await sim.ctl(['upgrade', 'plan', '--to', '7.8.6-20', '-o', 'json']);
      assertExit(again, 3, 'plan after the failed install');
      const plan = JSON.parse(again.stdout) as PlanJson;
      const failed = check(plan, 'olm-csv-healthy');
      assert.equal(failed?.status, 'fail');
      assert.match(
        failed?.message ?? '',
        /redis-enterprise-operator\.v7\.8\.6-20 \(InvalidInstallStrategy: install strategy invalid/,
      );
      // KUBECONFIG names the simulator's file: the commands name it too.
      assert.match(
        failed?.fix ?? '',
        /oc --kubeconfig \S+ describe csv redis-enterprise-operator\.v7\.8\.6-20 -n orders/,
      );
      assert.match(
        failed?.fix ?? '',
        /oc --kubeconfig \S+ delete csv redis-enterprise-operator\.v7\.8\.6-20 -n orders/,
      );
    });
  });
});
