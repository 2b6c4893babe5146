import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { type AuditEntry, clusterVersionObject, type Scenario } from '../helpers/simulator.js';
import {
  assertExit,
  assertNoChanges,
  assertUpgraded,
  changes,
  describeEntries,
  getPath,
  type KubeObject,
  parseEvents,
  readState,
  type UpgradeSim,
  SharedUpgradeSim,
  withUpgradeSim,
} from './upgrade-support.js';

/**
 * ctl on an operator installed from OperatorHub (OLM owns its Deployment; the simulator's
 * `olm-*` scenarios): the plan shows the Subscription, the target CSV and the channel that has
 * it; the run switches the channel, approves exactly the target's InstallPlan (never the one
 * pending for a later CSV; none with Automatic approval), waits for the CSV, then upgrades the
 * cluster with the digest the target CSV relates, and never writes an OLM-owned object with a
 * bundle or helm (the simulator's audit of ctl's requests).
 */

const TARGET = '7.8.6-20';
const TARGET_CSV = `redis-enterprise-operator.v${TARGET}`;
const TAG = '7.8.6-315';
const SUBSCRIPTION = 'redis-enterprise-operator-cert';
const RUN = ['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json'];
/**
 * From 7.8.6-20, the head of channel 7.8.6 (olm-automatic, olm-channel-switch), the 8.2.0 head
 * has an edge: 8.2.0-18.0's spec.skips lists 7.8.6-20.1 (docs/simulator-internals.md "OperatorHub"), so
 * these runs switch the channel to 8.2.0 and go there.
 */
const HEAD_TARGET = '8.2.0-18';
const HEAD_TARGET_CSV = `redis-enterprise-operator.v${HEAD_TARGET}`;
const HEAD_TAG = '8.2.0-78.18';
const HEAD_DB = '8.6';
/**
 * 8.2.0-18 supports OpenShift 4.20-4.22 (src/release/catalog.json): the clusters these runs
 * upgrade run 4.20 (Kubernetes 1.33), as the simulator's ClusterVersion `version` says.
 */
const ON_HEAD_PLATFORM = {
  patch: (scenario: Scenario): Scenario => ({
    ...scenario,
    kubernetesVersion: '1.33',
    openshiftVersion: '4.20.0',
    objects: [
      clusterVersionObject('4.20.0'),
      ...scenario.objects.filter((object) => object.kind !== 'ClusterVersion'),
    ],
  }),
};
const HEAD_RUN = ['upgrade', 'run', '--to', HEAD_TARGET, '--yes', '-o', 'json'];

interface PlanJson {
  target: { method: string };
  olm?: {
    installedCSV: string;
    subscription: { name: string; channel: string; approval: string; source: string } | null;
    pendingInstallPlans: { name: string; csv: string }[];
    targetCSV: string;
    channelHead: string | null;
    channelHasTarget: boolean;
    targetChannel: string | null;
    targetInstallPlan: { name: string; approved: boolean } | null;
  };
  checks: { id: string; status: string; message: string; fix: string }[];
  steps: { id: string; actions: { description: string; command: string }[] }[];
  blocked: boolean;
}

const writes = (sim: UpgradeSim, re: RegExp, from = 0): AuditEntry[] =>
  changes(sim, from).filter((entry) => re.test(entry.path.split('?')[0] ?? ''));

/** No bundle apply or helm call touched what OLM owns: the Deployment, CRDs, RBAC, helm's Secrets. */
function assertNothingOlmOwnedWritten(sim: UpgradeSim, from = 0): void {
  const forbidden = writes(
    sim,
    /\/deployments\b|\/customresourcedefinitions\b|\/serviceaccounts\b|\/roles\b|\/rolebindings\b|\/clusterserviceversions\b|\/secrets\b/,
    from,
  );
  assert.deepEqual(forbidden, [], describeEntries(forbidden));
}

async function installPlans(sim: UpgradeSim): Promise<KubeObject[]> {
  return sim.list(['installplan', '-n', 'redis']);
}

/** The REC's digestHash is the one the installed target CSV relates for the REC's repository, not the old one. */
async function assertDigestFollowsCsv(
  sim: UpgradeSim,
  oldDigest: unknown,
  targetCsv = TARGET_CSV,
): Promise<void> {
  const rec = await sim.get(['rec', 'rec', '-n', 'redis']);
  const repository = getPath(rec, ['spec', 'redisEnterpriseImageSpec', 'repository']) as string;
  const digest = getPath(rec, ['spec', 'redisEnterpriseImageSpec', 'digestHash']);
  const csv = await sim.get(['csv', targetCsv, '-n', 'redis']);
  const related = (getPath(csv, ['spec', 'relatedImages']) as { image: string }[]).map((r) => r.image);
  assert.ok(
    related.includes(`${repository}@${String(digest)}`),
    `digest ${String(digest)} in ${related.join(', ')}`,
  );
  assert.notEqual(digest, oldDigest, 'a new tag never keeps the old digest');
}

async function assertCsvSucceeded(sim: UpgradeSim, targetCsv = TARGET_CSV): Promise<void> {
  const csv = await sim.get(['csv', targetCsv, '-n', 'redis']);
  assert.equal(getPath(csv, ['status', 'phase']), 'Succeeded');
  const sub = await sim.get(['subscription', SUBSCRIPTION, '-n', 'redis']);
  assert.equal(getPath(sub, ['status', 'installedCSV']), targetCsv);
}

describe('ctl upgrade plan on an OLM-owned operator (e2e)', () => {
  /** The plans change nothing: one cluster for both. */
  const olmManual = new SharedUpgradeSim('olm-manual');
  after(() => olmManual.close());

  // The sim's KUBECONFIG names one file: each printed oc command names it (kube-target.ts).
  it('--method bundle exits 3 naming operator-method and the OLM way, changing nothing', async () => {
    await olmManual.use('plan --method bundle', async (sim) => {
      const result = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '--method', 'bundle']);
      assertExit(result, 3);
      const output = `${result.stdout}\n${result.stderr}`;
      assert.match(
        output,
        /FAIL operator-method\s+the operator is installed by OLM \(Subscription redis-enterprise-operator-cert/,
      );
      assert.match(output, /OLM puts back any bundle change to its Deployment/);
      assert.ok(
        output.includes(
          `oc --kubeconfig ${sim.env.KUBECONFIG} patch subscription ${SUBSCRIPTION} -n redis --type merge -p '{"spec":{"channel":"7.8.6"}}'`,
        ),
        output,
      );
      assert.match(output, /Blocked: .*operator-method/);
      assertNoChanges(sim, 0, 'plan --method bundle');
    });
  });

  it('--method auto picks olm and shows the Subscription, the target CSV, the channel that has it and the oc commands', async () => {
    await olmManual.use('plan --method auto', async (sim) => {
      const text = await sim.ctl(['upgrade', 'plan', '--to', TARGET]);
      assertExit(text, 0);
      assert.match(
        text.stdout,
        /installed by OLM: Subscription redis-enterprise-operator-cert \(channel production, approval Manual, source certified-operators\), installed CSV redis-enterprise-operator\.v7\.4\.6-2/,
      );
      assert.match(text.stdout, /operator\s+7\.4\.6-2\s+-> 7\.8\.6-20 \(olm\)/);
      assert.match(
        text.stdout,
        /InstallPlan install-\w+ waits for approval \(CSV redis-enterprise-operator\.v8\.0\.20-25\)/,
      );
      assert.match(
        text.stdout,
        /target CSV redis-enterprise-operator\.v7\.8\.6-20: not the head of channel production \(redis-enterprise-operator\.v8\.0\.20-25\); channel 7\.8\.6 has it/,
      );
      assert.ok(
        text.stdout.includes(
          `oc --kubeconfig ${sim.env.KUBECONFIG} patch subscription ${SUBSCRIPTION} -n redis --type merge -p '{"spec":{"channel":"7.8.6"}}'`,
        ),
        text.stdout,
      );
      assert.match(
        text.stdout,
        /oc --kubeconfig \S+ patch installplan .* -n redis --type merge -p '\{"spec":\{"approved":true\}\}'/,
      );
      // The node image's digest: read from the target CSV's relatedImages when the line runs.
      assert.match(
        text.stdout,
        /REDIS_ENTERPRISE_DIGEST=\$\(kubectl --kubeconfig \S+ get csv redis-enterprise-operator\.v7\.8\.6-20 -n redis -o 'jsonpath=\{range \.spec\.relatedImages\[\*\]\}\{\.name\}\{"\\t"\}\{\.image\}\{"\\n"\}\{end\}' \| RELATED_NAME=redis-enterprise-node RELATED_REPOSITORY=\S+ awk '[^']+'\) && kubectl .*"digestHash":"'"\$\{REDIS_ENTERPRISE_DIGEST:\?\}"'"/,
      );

      const json = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json']);
      assertExit(json, 0);
      const plan = JSON.parse(json.stdout) as PlanJson;
      assert.equal(plan.target.method, 'olm');
      assert.equal(plan.blocked, false);
      assert.equal(plan.olm?.installedCSV, 'redis-enterprise-operator.v7.4.6-2');
      assert.equal(plan.olm?.targetCSV, TARGET_CSV);
      // olm-manual runs OpenShift 4.18: the newest production bundle OperatorHub offers there is
      // 8.0.20-25.0 (v4.18-v4.21); 8.2.0-x start at v4.19.
      assert.equal(plan.olm?.channelHead, 'redis-enterprise-operator.v8.0.20-25');
      assert.equal(plan.olm?.channelHasTarget, false);
      assert.equal(plan.olm?.targetChannel, '7.8.6');
      assert.equal(plan.olm?.targetInstallPlan, null);
      const status = (id: string) => plan.checks.find((check) => check.id === id)?.status;
      assert.equal(status('operator-method'), 'pass');
      assert.equal(status('olm-cluster-name'), 'pass');
      assert.equal(status('olm-approval'), 'pass');
      assert.equal(status('auto-upgrade-digest'), 'pass');
      assert.equal(
        status('permissions'),
        'pass',
        JSON.stringify(plan.checks.find((c) => c.id === 'permissions')),
      );
      assertNoChanges(sim, 0, 'plan --method auto');
    });
  });

  it('a cluster not named rec: a warning with the SCC grant its pods need, and the run upgrades it', async () => {
    // The certified CSV grants the SCC to service account rec only; its description says what
    // another name needs (oc adm policy add-scc-to-user ... :<name of REC>).
    await withUpgradeSim(
      'olm-manual',
      async (sim) => {
        const json = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json']);
        assertExit(json, 0, 'plan');
        const plan = JSON.parse(json.stdout) as PlanJson;
        const check = plan.checks.find((c) => c.id === 'olm-cluster-name');
        assert.equal(check?.status, 'warn');
        assert.match(check?.message ?? '', /expects the cluster to be named rec .* this cluster is prod/);
        assert.match(check?.fix ?? '', /system:serviceaccount:redis:prod/);
        const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json']);
        assertExit(run, 0, 'run');
        await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
      },
      { patch: (scenario) => ({ ...scenario, cluster: { ...scenario.cluster, name: 'prod' } }) },
    );
  });
});

// Each run has a cluster of its own: two go side by side, and the SIGKILL test's 8 s of a starting
// operator (its one real wait) is spent running another test.
describe('ctl upgrade run through OLM (e2e)', { concurrency: 2 }, () => {
  it('Manual approval on production: switches to 7.8.6, approves only the target plan, reaches the target operator and RS', async () => {
    await withUpgradeSim('olm-manual', async (sim) => {
      const oldDigest = getPath(await sim.get(['rec', 'rec', '-n', 'redis']), [
        'spec',
        'redisEnterpriseImageSpec',
        'digestHash',
      ]);
      const later = (await installPlans(sim)).map((p) => p.metadata.name);
      assert.equal(later.length, 1, 'OLM has a plan for the production head');

      const run = await sim.ctl(RUN);
      assertExit(run, 0, 'run');
      await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
      await assertCsvSucceeded(sim);
      await assertDigestFollowsCsv(sim, oldDigest);

      const plans = await installPlans(sim);
      const laterPlan = plans.find((p) => p.metadata.name === later[0]);
      assert.equal(
        getPath(laterPlan, ['spec', 'approved']),
        false,
        'the plan of the production head is never approved',
      );
      const approvals = writes(sim, /\/installplans\//);
      assert.equal(approvals.length, 1, describeEntries(approvals));
      const targetPlan = plans.find((p) => approvals[0]?.path.includes(`/installplans/${p.metadata.name}`));
      assert.deepEqual(getPath(targetPlan, ['spec', 'clusterServiceVersionNames']), [TARGET_CSV]);
      assert.equal(writes(sim, /\/subscriptions\//).length, 1, 'one channel switch');
      assert.equal(
        getPath(await sim.get(['subscription', SUBSCRIPTION, '-n', 'redis']), ['spec', 'channel']),
        '7.8.6',
      );
      assertNothingOlmOwnedWritten(sim);
    });
  });

  it('an operator image by digest only (no tag): the version comes from the owning CSV; the run reaches the target', async () => {
    await withUpgradeSim('olm-digest', async (sim) => {
      const image = async (): Promise<string> => {
        const deployment = await sim.get(['deployment', 'redis-enterprise-operator', '-n', 'redis']);
        const containers = getPath(deployment, ['spec', 'template', 'spec', 'containers']) as {
          image: string;
        }[];
        return containers[0]?.image ?? '';
      };
      assert.match(await image(), /^[^:]+(:\d+)?\/[^:]+@sha256:[0-9a-f]{64}$/, 'no tag, only a digest');
      const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json']);
      assertExit(plan, 0, 'plan');
      const doc = JSON.parse(plan.stdout) as { current: { operator: string | null }; blocked: boolean };
      assert.equal(doc.current.operator, '7.4.6-2', 'from redis-enterprise-operator.v7.4.6-2');
      assert.equal(doc.blocked, false);

      const run = await sim.ctl(RUN);
      assertExit(run, 0, 'run');
      assert.match(await image(), /@sha256:/, 'OLM keeps naming it by digest');
      const operatorDone = parseEvents(run.stdout).find(
        (e) => e.type === 'step-done' && e.step === 'operator',
      );
      assert.equal(getPath(operatorDone?.data, ['operatorVersion']), TARGET);
      await assertCsvSucceeded(sim);
      const rec = await sim.get(['rec', 'rec', '-n', 'redis']);
      assert.equal(getPath(rec, ['spec', 'redisEnterpriseImageSpec', 'versionTag']), TAG);
      assert.equal(getPath(rec, ['status', 'state']), 'Running');
      assertNothingOlmOwnedWritten(sim);
    });
  });

  it('Automatic approval: switches the channel and lets OLM approve (no InstallPlan write)', async () => {
    await withUpgradeSim(
      'olm-automatic',
      async (sim) => {
        const oldDigest = getPath(await sim.get(['rec', 'rec', '-n', 'redis']), [
          'spec',
          'redisEnterpriseImageSpec',
          'digestHash',
        ]);
        const run = await sim.ctl(HEAD_RUN);
        assertExit(run, 0, 'run');
        await assertUpgraded(sim, { operator: HEAD_TARGET, tag: HEAD_TAG, dbVersion: HEAD_DB });
        await assertCsvSucceeded(sim, HEAD_TARGET_CSV);
        await assertDigestFollowsCsv(sim, oldDigest, HEAD_TARGET_CSV);
        assert.deepEqual(
          writes(sim, /\/installplans\//),
          [],
          'ctl approves nothing under Automatic approval',
        );
        assert.equal(writes(sim, /\/subscriptions\//).length, 1, 'one channel switch');
        assertNothingOlmOwnedWritten(sim);
      },
      ON_HEAD_PLATFORM,
    );
  });

  it('channel switch, SIGKILL after the approval: the next run resumes to the wait and approves nothing twice', async () => {
    await withUpgradeSim(
      'olm-channel-switch',
      async (sim) => {
        const ctl = sim.spawnCtl(HEAD_RUN);
        await ctl.waitFor(
          'the wait for the target CSV',
          (e) =>
            e.type === 'progress' &&
            e.step === 'operator' &&
            /redis-enterprise-operator\.v8\.2\.0-18: phase/.test(e.message),
        );
        ctl.child.kill('SIGKILL');
        const killed = await ctl.result;
        assert.equal(killed.signal, 'SIGKILL');
        assert.notEqual(
          getPath(await sim.get(['csv', HEAD_TARGET_CSV, '-n', 'redis']), ['status', 'phase']),
          'Succeeded',
          'killed while the target CSV installs',
        );
        assert.equal(writes(sim, /\/installplans\//).length, 1, 'approved once before the kill');

        // An approved plan is half an upgrade: a run to another target may not replace it.
        const other = await sim.ctl(['upgrade', 'run', '--to', '8.2.0-15', '--yes']);
        assertExit(other, 2, 'a run to another target over the approved one');
        assert.match(
          other.stderr,
          /an unfinished upgrade to 8\.2\.0-18 is recorded in .*; this run targets 8\.2\.0-15/,
        );
        assert.match(other.stderr, /hint: Finish it \(ctl upgrade run --to 8\.2\.0-18/);

        const resumed = await sim.ctl(HEAD_RUN);
        assertExit(resumed, 0, 'the resumed run');
        const events = parseEvents(resumed.stdout);
        const progress = events
          .filter((e) => e.type === 'progress' && e.step === 'operator')
          .map((e) => e.message);
        const operatorStep = readState(sim).steps.operator;
        if (operatorStep?.status === 'skipped') {
          // OLM finished the roll while the refused run planned (a loaded machine: more than
          // operatorStart seconds from the kill to the resumed run's read of the Deployment).
          // The step then has nothing left to wait for, and says so: still nothing approved again.
          assert.match(operatorStep.skipReason ?? '', /^already at 8\.2\.0-18$/, progress.join('\n'));
          assert.deepEqual(progress, [], 'a skipped step reports no progress');
        } else {
          assert.equal(operatorStep?.status, 'done', 'the resumed operator step');
          assert.ok(
            progress.some((m) =>
              /^resuming an interrupted operator upgrade \(olm from 7\.8\.6-20 to 8\.2\.0-18\)/.test(m),
            ),
            progress.join('\n'),
          );
          assert.ok(
            progress.some((m) => /redis-enterprise-operator\.v8\.2\.0-18: phase/.test(m)) ||
              progress.length === 1,
            progress.join('\n'),
          );
        }
        assert.ok(!progress.some((m) => /^approving|^switching/.test(m)), progress.join('\n'));
        assert.equal(writes(sim, /\/installplans\//).length, 1, 'never approved twice');
        assert.equal(writes(sim, /\/subscriptions\//).length, 1, 'the channel switched once');
        await assertUpgraded(sim, { operator: HEAD_TARGET, tag: HEAD_TAG, dbVersion: HEAD_DB });
        await assertCsvSucceeded(sim, HEAD_TARGET_CSV);
        assertNothingOlmOwnedWritten(sim);
      },
      // The new operator takes 8 s to become ready after OLM rolls it: the kill, sent as soon as
      // ctl reports the CSV's phase, lands while the CSV is still Installing however loaded the
      // machine is (with 2 s, ctl could see it Succeeded and finish the step before the kill).
      // The rest of the scenario's waits are at zero, as in every other test of this file.
      {
        ...ON_HEAD_PLATFORM,
        timing: { operatorStart: 8, podRestart: 0, databaseUpgrade: 0, failover: 0 },
      },
    );
  });

  it('run --plan executes a saved OLM plan as saved', async () => {
    await withUpgradeSim(
      'olm-channel-switch',
      async (sim) => {
        const file = path.join(sim.sandbox.dir, 'plan.json');
        const plan = await sim.ctl(['upgrade', 'plan', '--to', HEAD_TARGET, '--out', file]);
        assertExit(plan, 0, 'plan --out');
        const saved = JSON.parse(readFileSync(file, 'utf8')) as PlanJson;
        assert.equal(saved.target.method, 'olm');
        assert.equal(saved.olm?.targetChannel, '8.2.0');
        const run = await sim.ctl(['upgrade', 'run', '--plan', file, '--yes', '-o', 'json']);
        assertExit(run, 0, 'run --plan');
        await assertUpgraded(sim, { operator: HEAD_TARGET, tag: HEAD_TAG, dbVersion: HEAD_DB });
        await assertCsvSucceeded(sim, HEAD_TARGET_CSV);
        assert.equal(writes(sim, /\/installplans\//).length, 1, 'one approval');
        assertNothingOlmOwnedWritten(sim);
      },
      ON_HEAD_PLATFORM,
    );
  });
});
