import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import { tempDir } from '../helpers/temp.js';
import { kubectlFor, runTool } from '../helpers/tools.js';
import {
  assertExit,
  describeEntries,
  getPath,
  parseEvents,
  readState,
  TARGET,
  type UpgradeSim,
  withUpgradeSim,
} from './upgrade-support.js';

/**
 * What ctl says it will do, it then does: the plan's admission step on a webhook that is already
 * current, the reason of a stop on a multi-hop path, and the way on that a multi-hop run through
 * OLM gives when OLM offers another CSV first. Each case failed before its fix (ctl 4641606): the
 * plan said "Apply the webhook" and the run skipped it; a stop's reason said neither that no
 * direct upgrade exists nor why that release; the hint's `ctl upgrade run --to <offered>` was
 * refused (exit 2) because a multi-hop run was never replaced. With the operator already at the
 * target (the cluster not), the plan skipped the admission step while the run re-applied an edited
 * webhook (before ctl rhel9-admission). A run that resumes an unfinished record on a cluster
 * otherwise at the target re-applied an edited webhook the plan called current (before ctl
 * plan-agree): it now skips the step as the plan says.
 */

interface PlanDoc {
  blocked: boolean;
  steps: { id: string; skip: string | null; actions: { description: string; command: string }[] }[];
  hops?: { hop: number; reason: string | null; target: { operator: string } }[];
}

const WEBHOOK = 'redis-enterprise-admission';
/** The happy path's own operator, so that the cluster can be put at the target. */
const AT = '7.4.6-2';
const AT_TAG = clusterTagFor(AT) ?? '';
/** Long enough for the killed run, the plan and the wait below to see the restarted operator not ready first. */
const OPERATOR_START_S = 12;

/** Waits (bounded) until the operator Deployment is ready again after its restart. */
async function untilOperatorReady(sim: UpgradeSim): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const deployment = await sim.get(['deployment', 'redis-enterprise-operator', '-n', 'redis']);
    if (getPath(deployment, ['status', 'readyReplicas']) === 1) return;
    if (Date.now() > deadline)
      assert.fail(
        'timed out after 90 s waiting for the operator Deployment redis-enterprise-operator to be ready',
      );
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Writes to the webhook that are not dry runs (kubectl diff's server-side apply is one). */
function webhookWrites(sim: UpgradeSim, from: number) {
  return sim.cluster.audit.entries
    .slice(from)
    .filter(
      (e) =>
        e.api === 'kube' &&
        e.mutating &&
        e.path.includes(`/validatingwebhookconfigurations/${WEBHOOK}`) &&
        !/[?&]dryRun=All/.test(e.path),
    );
}

/** A printed command run by `sh -c` as a person pastes it, kubectl on the PATH the scenario's. */
async function paste(sim: UpgradeSim, command: string) {
  const bin = path.join(sim.sandbox.dir, 'paste-bin');
  mkdirSync(bin, { recursive: true });
  try {
    symlinkSync(kubectlFor(sim.cluster.scenario.kubernetesVersion), path.join(bin, 'kubectl'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return runTool('sh', ['-c', command], {
    env: { ...sim.sandbox.env, PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` },
    cwd: sim.sandbox.dir,
    timeoutMs: 60_000,
  });
}

describe('the plan says what the run does (e2e)', () => {
  it('admission: a webhook already current is "compared, applied only if it differs", and the run writes nothing', async () => {
    await withUpgradeSim('happy-path', async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json']);
      assertExit(plan, 0, 'plan');
      const admission = (JSON.parse(plan.stdout) as PlanDoc).steps.find((s) => s.id === 'admission');
      assert.equal(admission?.skip, null, 'the run reads the release webhook.yaml, so the step is planned');
      const compare = admission?.actions[1];
      assert.match(
        compare?.description ?? '',
        new RegExp(
          `^Compare the live webhook ${WEBHOOK} with the one of ${TARGET.replaceAll('.', '\\.')} for namespace redis \\(caBundle from Secret admission-tls\\) and apply it only if they differ`,
        ),
      );
      assert.match(compare?.command ?? '', /\/bundles\/7\.8\.2-6\/admission\/webhook\.yaml/);

      const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json']);
      assertExit(run, 0, 'run');
      const skipped = parseEvents(run.stdout).find((e) => e.type === 'step-skip' && e.step === 'admission');
      assert.match(
        skipped?.message ?? '',
        new RegExp(`${WEBHOOK} is already up to date and trusts admission-tls`),
      );
      assert.deepEqual(webhookWrites(sim, 0), [], describeEntries(webhookWrites(sim, 0)));

      // The plan's command does the same by hand: nothing to write while the webhook matches ...
      const before = sim.cluster.audit.entries.length;
      const same = await paste(sim, compare?.command ?? '');
      assert.equal(same.code, 0, same.stderr);
      assert.deepEqual(webhookWrites(sim, before), [], describeEntries(webhookWrites(sim, before)));
      // ... and one apply, back to the release's, once it differs.
      await sim.kubectl([
        'patch',
        'validatingwebhookconfiguration',
        WEBHOOK,
        '--type=json',
        '-p=[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Ignore"}]',
      ]);
      const changed = sim.cluster.audit.entries.length;
      const differs = await paste(sim, compare?.command ?? '');
      assert.equal(differs.code, 0, differs.stderr);
      assert.equal(webhookWrites(sim, changed).length, 1, describeEntries(webhookWrites(sim, changed)));
      const webhook = await sim.get(['validatingwebhookconfiguration', WEBHOOK]);
      assert.equal(getPath(webhook, ['webhooks', '0', 'failurePolicy']), 'Fail');
    });
  });

  it('admission, the operator already at the target: the plan compares, and the run re-applies an edited webhook', async () => {
    await withUpgradeSim('happy-path', async (sim) => {
      // The operator at the target, the cluster not yet: the run still has work, so it runs the
      // admission step, which reads webhook.yaml and writes when the live webhook differs.
      const operator = await sim.ctl([
        'upgrade',
        'run',
        '--to',
        TARGET,
        '--only',
        'operator',
        '--yes',
        '-o',
        'json',
      ]);
      assertExit(operator, 0, 'run --only operator');
      await sim.kubectl([
        'patch',
        'validatingwebhookconfiguration',
        WEBHOOK,
        '--type=json',
        '-p=[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Ignore"}]',
      ]);

      const plan = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json']);
      assertExit(plan, 0, 'plan');
      const steps = (JSON.parse(plan.stdout) as PlanDoc).steps;
      assert.equal(steps.find((s) => s.id === 'operator')?.skip, `the operator already runs ${TARGET}`);
      const admission = steps.find((s) => s.id === 'admission');
      assert.equal(admission?.skip, null, 'the run reads webhook.yaml and may write, so the step is planned');
      assert.match(
        admission?.actions[1]?.description ?? '',
        new RegExp(
          `^Compare the live webhook ${WEBHOOK} with the one of ${TARGET.replaceAll('.', '\\.')} for namespace redis \\(caBundle from Secret admission-tls\\) and apply it only if they differ: the operator already runs ${TARGET.replaceAll('.', '\\.')} and the webhook trusts admission-tls`,
        ),
      );

      const before = sim.cluster.audit.entries.length;
      const run = await sim.ctl([
        'upgrade',
        'run',
        '--to',
        TARGET,
        '--only',
        'admission',
        '--yes',
        '-o',
        'json',
      ]);
      assertExit(run, 0, 'run --only admission');
      const done = parseEvents(run.stdout).find((e) => e.type === 'step-done' && e.step === 'admission');
      assert.ok(done, run.stdout);
      assert.equal(webhookWrites(sim, before).length, 1, describeEntries(webhookWrites(sim, before)));
      const webhook = await sim.get(['validatingwebhookconfiguration', WEBHOOK]);
      assert.equal(getPath(webhook, ['webhooks', '0', 'failurePolicy']), 'Fail');
    });
  });

  it('admission, a resumed run on a cluster otherwise at the target: the run skips the step as the plan says', async () => {
    await withUpgradeSim(
      'happy-path',
      async (sim) => {
        // An operator restart (not ready for OPERATOR_START_S): the operator step has work. A run
        // killed in it leaves an unfinished record (every step after it still to run).
        await sim.kubectl([
          ...['patch', 'deployment', 'redis-enterprise-operator', '-n', 'redis', '--type', 'merge', '-p'],
          JSON.stringify({
            spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': 'now' } } } },
          }),
        ]);
        const killed = sim.spawnCtl(['upgrade', 'run', '--to', AT, '--yes', '-o', 'json']);
        await killed.waitFor(
          'the operator step applying the bundle',
          (e) => e.type === 'progress' && e.step === 'operator' && /^applying \d+ objects/.test(e.message),
        );
        killed.child.kill('SIGKILL');
        assert.equal((await killed.result).signal, 'SIGKILL');
        const recorded = readState(sim);
        assert.equal(recorded.steps.operator?.status, 'in-progress', JSON.stringify(recorded));
        assert.equal(recorded.steps.admission?.status, 'pending', JSON.stringify(recorded));
        await untilOperatorReady(sim);
        // Someone edits the live webhook; it still trusts admission-tls.
        await sim.kubectl([
          'patch',
          'validatingwebhookconfiguration',
          WEBHOOK,
          '--type=json',
          '-p=[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Ignore"}]',
        ]);

        // The plan (which reads no state): nothing to do, the admission step skipped as idle.
        const plan = await sim.ctl(['upgrade', 'plan', '--to', AT, '-o', 'json']);
        assertExit(plan, 0, 'plan');
        const steps = (JSON.parse(plan.stdout) as PlanDoc).steps;
        const idle = `${WEBHOOK} is current and trusts admission-tls`;
        assert.equal(steps.find((s) => s.id === 'admission')?.skip, idle);
        assert.ok(
          steps.every((s) => s.id === 'preflight' || s.skip !== null),
          JSON.stringify(steps.map((s) => [s.id, s.skip])),
        );

        // The run resumes the record, and does what the plan said of the admission step: skip it,
        // writing nothing (before: it read webhook.yaml and re-applied the edited webhook).
        const before = sim.cluster.audit.entries.length;
        const run = await sim.ctl(['upgrade', 'run', '--to', AT, '--yes', '-o', 'json'], {
          timeoutMs: 120_000,
        });
        assertExit(run, 0, 'the resumed run');
        const events = parseEvents(run.stdout);
        const admission = events.filter(
          (e) => e.step === 'admission' && (e.type === 'step-skip' || e.type === 'step-done'),
        );
        assert.deepEqual(
          admission.map((e) => [e.type, e.message]),
          [['step-skip', idle]],
        );
        assert.deepEqual(webhookWrites(sim, before), [], describeEntries(webhookWrites(sim, before)));
        const webhook = await sim.get(['validatingwebhookconfiguration', WEBHOOK]);
        assert.equal(getPath(webhook, ['webhooks', '0', 'failurePolicy']), 'Ignore');
        assert.equal(readState(sim).result, 'succeeded');
      },
      {
        timing: { operatorStart: OPERATOR_START_S },
        // The cluster on the catalog tag of AT, the happy path's own operator: only the restart to wait for.
        patch: (scenario) => ({
          ...scenario,
          cluster: { ...scenario.cluster, versionTag: AT_TAG, apiVersion: AT_TAG },
        }),
      },
    );
  });

  it('a stop the rules require says so: no direct upgrade, the source, and why this release', async () => {
    await withUpgradeSim('old-operator', async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.2.0-18', '-o', 'json']);
      assertExit(plan, 0, 'plan');
      const hops = (JSON.parse(plan.stdout) as PlanDoc).hops;
      assert.deepEqual(
        hops?.map((h) => h.target.operator),
        ['7.4.6-12', '8.2.0-18'],
      );
      const reason =
        'operator-min-version: upgrades to 8.2.0-18 need operator and cluster at 7.4.2-2 or later, so no direct upgrade exists (the release notes of every release from 7.8.2: "Upgrades from versions earlier than 7.4.2-2 are not supported"); 7.4.6-12 is the newest catalogued release before 7.8.2-6 (the first release with that rule) that no known advisory affects';
      assert.equal(hops?.[0]?.reason, reason);
      assert.equal(hops?.[1]?.reason, null);
      const text = await sim.ctl(['upgrade', 'plan', '--to', '8.2.0-18']);
      assertExit(text, 0, 'plan (text)');
      assert.ok(text.stdout.includes(`Hop 1: operator 7.2.4-12 -> 7.4.6-12`), text.stdout);
      assert.ok(text.stdout.includes(`(${reason})`), text.stdout);
    });
  });

  it('OLM offers another CSV on a hop before the last: the hint says it is a stop, its run replaces this one, the final --to follows', async () => {
    // OpenShift 4.9, operator 6.2.8-15 from OperatorHub: 6.2.18-41 needs the Kubernetes-only stop
    // 6.2.10-45 (RS below 6.2.10). In channel 6.2.10 only 6.2.10-34 skips the installed CSV
    // (scenario key operator.olm.skips), so OLM offers it, not 6.2.10-45.
    const file = path.join(tempDir('ctl-plan-says-'), 'olm-hop-offer.yaml');
    writeFileSync(
      file,
      `name: olm-hop-offer
description: "OperatorHub 6.2.8-15, two hops; OLM offers 6.2.10-34 at the first (test/e2e/plan-says-what-run-does.test.ts)"
dialect: redis
platform: openshift
openshiftVersion: "4.9"
operator:
  version: 6.2.8-15
  installedBy: olm
  olm:
    channel: "6.2.8"
    approval: Manual
    skips: ['6.2.10-34']
cluster:
  versionTag: 6.2.8-64.rhel8-openshift
  repository: registry.connect.redhat.com/redislabs/redis-enterprise
  apiVersion: 6.2.8-64
databases:
  - { name: cache, version: "6.2" }
`,
    );
    await withUpgradeSim(file, async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', '6.2.18-41', '-o', 'json']);
      assertExit(plan, 0, 'plan');
      const hops = (JSON.parse(plan.stdout) as PlanDoc).hops;
      assert.deepEqual(
        hops?.map((h) => h.target.operator),
        ['6.2.10-45', '6.2.18-41'],
      );
      assert.match(
        hops?.[0]?.reason ?? '',
        /^upgrade-path: RS 6\.2\.8 cannot go straight to 6\.2\.18, so no direct upgrade exists \(the Kubernetes upgrade docs, .*\); 6\.2\.10-45 is the stop those docs name/,
      );

      const first = await sim.ctl(['upgrade', 'run', '--to', '6.2.18-41', '--yes']);
      assertExit(first, 1, 'run to 6.2.18-41');
      assert.match(
        first.stderr,
        /OLM offers redis-enterprise-operator\.v6\.2\.10-34, not the target redis-enterprise-operator\.v6\.2\.10-45/,
      );
      assert.match(
        first.stderr,
        /hint: Upgrade to 6\.2\.10-34 first, a stop OLM needs before 6\.2\.10-45 on the way to 6\.2\.18-41: ctl --kubeconfig \S+ upgrade run --to 6\.2\.10-34 \(it replaces this run, which approved nothing, and ends at 6\.2\.10-34, not at 6\.2\.18-41\); then ctl --kubeconfig \S+ upgrade run --to 6\.2\.18-41 again to go on from there\./,
      );

      // The hint's first command: it replaces the multi-hop run (before: refused, exit 2).
      const through = await sim.ctl(['upgrade', 'run', '--to', '6.2.10-34', '--yes']);
      assertExit(through, 0, 'run to 6.2.10-34');
      assert.match(
        through.stderr,
        /the run to 6\.2\.18-41 recorded in .* stopped at the operator step having approved nothing \(in hop 1 of 2, to 6\.2\.10-45; the operator still runs 6\.2\.8-15\): this run to 6\.2\.10-34 replaces it/,
      );
      // Its second: the final --to, from where the first left the cluster.
      const last = await sim.ctl(['upgrade', 'run', '--to', '6.2.18-41', '--yes']);
      assertExit(last, 0, 'run to 6.2.18-41');
      const sub = await sim.get(['subscription', 'redis-enterprise-operator-cert', '-n', 'redis']);
      assert.equal(getPath(sub, ['status', 'installedCSV']), 'redis-enterprise-operator.v6.2.18-41');
      const rec = await sim.get(['rec', 'rec', '-n', 'redis']);
      assert.match(String(getPath(rec, ['spec', 'redisEnterpriseImageSpec', 'versionTag'])), /^6\.2\.18-72/);
    });
  });
});
