import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import type { CtlResult } from '../helpers/run-ctl.js';
import {
  assertExit,
  assertUpgraded,
  changes,
  describeEntries,
  parseEvents,
  readState,
  TARGET,
  type UpgradeSim,
  withUpgradeSim,
} from './upgrade-support.js';

/**
 * `ctl upgrade run` (the BUILT binary) on the OpenShift SCC scenarios: the simulator admits
 * pods against the SCCs their service account may use, so a wrong order (the SCC removed
 * before the roll, or not re-applied when the new pods need it) leaves the StatefulSet short
 * and the run fails. End state read with the real kubectl.
 */

const SCC = 'redis-enterprise-scc-v2';
const ROLE = `system:openshift:scc:${SCC}`;
// 7.22.0-6 is the first operator whose pods run unprivileged; 7.22.0-7 is in the catalog.
const UNPRIVILEGED = '7.22.0-7';
// The first chart whose openshift.scc.install defaults to false.
const CHART_WITHOUT_SCC = '7.22.0-11';

async function sccNames(sim: UpgradeSim): Promise<string[]> {
  return (await sim.list(['scc'])).map((s) => s.metadata.name);
}

/** `openshift.io/scc` of each cluster pod: which SCC admitted it. */
async function podSccs(sim: UpgradeSim): Promise<string[]> {
  const pods = await sim.list(['pods', '-l', 'redis.io/cluster=rec']);
  return pods.map(
    (pod) =>
      (pod.metadata as { annotations?: Record<string, string> }).annotations?.['openshift.io/scc'] ?? '',
  );
}

async function failedCreates(sim: UpgradeSim): Promise<string> {
  return sim.kubectl(['get', 'events', '--field-selector', 'reason=FailedCreate', '-o', 'name']);
}

/**
 * When the simulated operator logged the end of the roll ("Upgrade completed" in its log, as the
 * real operator says things: it raises no documented Event for it, redis-facts.md §12).
 */
function upgradeCompletedAt(sim: UpgradeSim): number {
  const completed = sim.cluster.operator.logEntries.find((entry) => entry.msg === 'Upgrade completed');
  assert.ok(completed, "the operator's log says Upgrade completed");
  return completed.ts * 1000;
}

function sccDeletes(sim: UpgradeSim) {
  return changes(sim).filter(
    (e) => e.method === 'DELETE' && /\/securitycontextconstraints\/redis-enterprise-scc-v2$/.test(e.path),
  );
}

/** `ctl upgrade run --to <version> --yes -o json`, which must reach the operator, the RS and database 7.4. */
async function upgradeTo(
  sim: UpgradeSim,
  version: string,
  platform: 'kubernetes' | 'openshift' = 'kubernetes',
): Promise<CtlResult> {
  const result = await sim.ctl(['upgrade', 'run', '--to', version, '--yes', '-o', 'json']);
  assertExit(result, 0);
  await assertUpgraded(sim, {
    operator: version,
    tag: clusterTagFor(version, platform) ?? '',
    dbVersion: '7.4',
  });
  return result;
}

// Each test has its own simulated cluster and sandbox, and much of a run is waiting for ctl's
// next look: they run side by side.
describe('ctl upgrade run on OpenShift: the SCC (e2e)', { concurrency: true }, () => {
  it(`openshift-rbac-scc to ${UNPRIVILEGED}: pods roll under restricted-v2, then the RoleBinding and the SCC go`, async () => {
    await withUpgradeSim('openshift-rbac-scc', async (sim) => {
      const result = await upgradeTo(sim, UNPRIVILEGED);
      assert.deepEqual(await podSccs(sim), ['restricted-v2', 'restricted-v2', 'restricted-v2']);
      assert.ok(!(await sccNames(sim)).includes(SCC), 'the SCC is deleted');
      const bindings = await sim.list(['rolebindings', '-n', 'redis']);
      assert.ok(!bindings.some((b) => b.metadata.name === ROLE), 'the RoleBinding is deleted');

      // Removed only after the roll: by the monitor step, after the operator's UpgradeCompleted.
      const deletes = sccDeletes(sim);
      assert.equal(deletes.length, 1, describeEntries(changes(sim)));
      assert.ok(
        Date.parse(deletes[0]!.ts) >= upgradeCompletedAt(sim),
        `deleted at ${deletes[0]!.ts}, before the roll ended`,
      );
      const events = parseEvents(result.stdout);
      assert.ok(
        events.some((e) => e.step === 'monitor' && /the cluster has rolled: unbinding/.test(e.message)),
      );
      assert.match(
        readState(sim).steps['security-context']?.skipReason ?? '',
        /until the cluster has rolled/,
      );
      assert.equal(await failedCreates(sim), '');
    });
  });

  it(`openshift-shared-scc to ${UNPRIVILEGED}: only this cluster's RoleBinding goes, the SCC stays for redis-b`, async () => {
    await withUpgradeSim('openshift-shared-scc', async (sim) => {
      const result = await upgradeTo(sim, UNPRIVILEGED);
      assert.ok((await sccNames(sim)).includes(SCC), 'the shared SCC stays');
      assert.equal(sccDeletes(sim).length, 0);
      await sim.get(['rolebinding', ROLE, '-n', 'redis-b']);
      const own = await sim.list(['rolebindings', '-n', 'redis']);
      assert.ok(!own.some((b) => b.metadata.name === ROLE), "this cluster's RoleBinding is deleted");
      const warning = parseEvents(result.stdout).find((e) => e.type === 'warning' && e.step === 'monitor');
      assert.match(
        warning?.message ?? '',
        /redis-enterprise-scc-v2 is kept: other service accounts may still use it \(rolebinding redis-b\//,
      );
    });
  });

  it(`openshift-auto-adjust to ${UNPRIVILEGED}: the target scc.yaml is re-applied before the roll, the SCC admits the new pods and stays`, async () => {
    await withUpgradeSim('openshift-auto-adjust', async (sim) => {
      const before = await sim.get(['scc', SCC]);
      assert.equal(before.allowPrivilegeEscalation, false, 'the installed 7.4.6 SCC');
      await upgradeTo(sim, UNPRIVILEGED);
      const after = await sim.get(['scc', SCC]);
      assert.equal(after.allowPrivilegeEscalation, true, 'the 7.22 scc.yaml was applied');
      assert.deepEqual(after.users, ['system:serviceaccount:redis:rec'], 'still bound');
      assert.deepEqual(await podSccs(sim), [SCC, SCC, SCC]);
      assert.equal(await failedCreates(sim), '');
      assert.equal(sccDeletes(sim).length, 0);
    });
  });

  it('openshift-auto-adjust with --keep-scc: the new pods are refused, the monitor stops naming the SCC refusal', async () => {
    await withUpgradeSim('openshift-auto-adjust', async (sim) => {
      const result = await sim.ctl([
        'upgrade',
        'run',
        '--to',
        UNPRIVILEGED,
        '--yes',
        '--keep-scc',
        '--stall-timeout',
        '5s',
      ]);
      assertExit(result, 6);
      assert.match(
        result.stderr,
        /the StatefulSet cannot create pods: create Pod rec-2 in StatefulSet rec failed error/,
      );
      assert.match(
        result.stderr,
        /hint: OpenShift refuses the new pods: no SCC that rec may use allows them/,
      );
      assert.notEqual(await failedCreates(sim), '');
    });
  });

  it(`openshift-helm-scc to ${CHART_WITHOUT_SCC}: helm deletes the SCC, ctl re-applies it before the roll and removes it after`, async () => {
    await withUpgradeSim('openshift-helm-scc', async (sim) => {
      const plan = await sim.ctl(['upgrade', 'plan', '--to', CHART_WITHOUT_SCC]);
      assertExit(plan, 0, 'ctl upgrade plan');
      assert.match(plan.stdout, /the helm upgrade to chart 7\.22\.0-11 deletes redis-enterprise-scc-v2/);
      await upgradeTo(sim, CHART_WITHOUT_SCC);
      // helm's DELETE (the chart no longer renders it), ctl's apply, then ctl's DELETE after the roll.
      const scc = changes(sim).filter((e) =>
        /\/securitycontextconstraints\/redis-enterprise-scc-v2(\?|$)/.test(e.path),
      );
      assert.deepEqual(
        scc.map((e) => e.method),
        ['DELETE', 'PATCH', 'DELETE'],
        describeEntries(scc),
      );
      assert.ok(Date.parse(scc[2]!.ts) >= upgradeCompletedAt(sim), 'the last delete came after the roll');
      assert.ok(!(await sccNames(sim)).includes(SCC));
      assert.equal(await failedCreates(sim), '');
    });
  });

  it(`openshift-7-8 to ${TARGET}: the SCC of the target is re-applied and stays bound; pods stay under it`, async () => {
    await withUpgradeSim('openshift-7-8', async (sim) => {
      await upgradeTo(sim, TARGET, 'openshift');
      assert.ok((await sccNames(sim)).includes(SCC));
      await sim.get(['rolebinding', ROLE, '-n', 'redis']);
      assert.deepEqual(await podSccs(sim), [SCC, SCC, SCC]);
      const applies = changes(sim).filter(
        (e) => e.method === 'PATCH' && /\/securitycontextconstraints\/redis-enterprise-scc-v2\?/.test(e.path),
      );
      assert.equal(applies.length, 1, 'scc.yaml re-applied once');
      assert.equal(sccDeletes(sim).length, 0);
    });
  });
});
