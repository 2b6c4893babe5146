/**
 * The ctl commands the OLM steps' hints print name the cluster ctl was given (`--kubeconfig`,
 * `--context`, `-n`, `--cluster`, each quoted), and nothing when nothing was given: pasted, they
 * act on the cluster the run read, not on the default kubeconfig's namespace.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OperationError } from '../../../src/errors.js';
import { OLM_API_VERSION } from '../../../src/planning/olm.js';
import type { CtlTarget } from '../../../src/planning/equivalent-commands.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import { installedOlmDigests } from '../../../src/steps/olm-digests.js';
import { upgradeThroughOlm } from '../../../src/steps/operator-olm.js';
import { FakeCluster, harness } from './fakes.js';

const NAMED: CtlTarget = {
  kubeconfigs: ['/k/prod.yaml'],
  context: 'prod east',
  namespace: 'red is',
  cluster: 'rec',
};

/** The snapshot as a run given NAMED's values reads it. */
function named(s: Snapshot): void {
  s.kubeTarget = { kubeconfigs: ['/k/prod.yaml'], context: 'prod east' };
  s.requestedNamespace = 'red is';
  s.requestedCluster = 'rec';
}

async function hintOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => assert.fail('expected an OperationError'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof OperationError, String(error));
  return error.hint ?? '';
}

describe('olm-digests: the target CSV not installed yet', () => {
  const source = (ctlTarget: CtlTarget) => ({
    olm: { csv: 'redis-enterprise-operator.v7.4.6-2', installPlans: [] },
    namespace: 'redis',
    operatorTarget: '7.8.2-6',
    platform: 'openshift' as const,
    currentTag: '7.4.6-22',
    ctlTarget,
  });

  it('the operator step to run first names the cluster given, each value quoted', async () => {
    const hint = await hintOf(installedOlmDigests(new FakeCluster().clients(), source(NAMED)));
    assert.match(
      hint,
      /^Run the operator step first \(ctl --kubeconfig \/k\/prod\.yaml --context 'prod east' upgrade run --to 7\.8\.2-6 -n 'red is' --cluster rec --only operator\), or check oc --kubeconfig \/k\/prod\.yaml --context 'prod east' get csv -n redis;/,
    );
  });

  it('and nothing when nothing was given', async () => {
    const hint = await hintOf(installedOlmDigests(new FakeCluster().clients(), source({})));
    assert.match(
      hint,
      /^Run the operator step first \(ctl upgrade run --to 7\.8\.2-6 --only operator\), or check oc get csv -n redis;/,
    );
  });
});

describe('operator-olm: no channel offers the target', () => {
  /** A Subscription on channel 7.4 of a package none of whose channels has the target. */
  function olmHarness(mutate: (s: Snapshot) => void) {
    const h = harness({
      snapshot: (s) => {
        s.olm = {
          csv: 'redis-enterprise-operator.v7.4.6-2',
          subscription: { name: 'redis-enterprise', package: 'redis-enterprise', channel: '7.4' },
          installPlans: [],
          channels: [
            {
              name: '7.4',
              currentCSV: 'redis-enterprise-operator.v7.4.6-2',
              entries: ['redis-enterprise-operator.v7.4.6-2'],
            },
          ],
        };
        mutate(s);
      },
      target: { to: '7.8.2-6' },
    });
    h.cluster.put({
      apiVersion: OLM_API_VERSION,
      kind: 'Subscription',
      metadata: { name: 'redis-enterprise', namespace: 'redis' },
      spec: { name: 'redis-enterprise', channel: '7.4', installPlanApproval: 'Manual' },
      status: { installedCSV: 'redis-enterprise-operator.v7.4.6-2' },
    });
    return h;
  }

  it('the plan that shows the operator-method check names the cluster given', async () => {
    const h = olmHarness(named);
    const hint = await hintOf(upgradeThroughOlm(h.ctx(), h.cluster.wait(), 'redis'));
    assert.equal(
      hint,
      "Run ctl --kubeconfig /k/prod.yaml --context 'prod east' upgrade plan --to 7.8.2-6 -n 'red is' --cluster rec to see the operator-method check and its fix.",
    );
  });

  it('and nothing when nothing was given', async () => {
    const h = olmHarness(() => {});
    const hint = await hintOf(upgradeThroughOlm(h.ctx(), h.cluster.wait(), 'redis'));
    assert.equal(hint, 'Run ctl upgrade plan --to 7.8.2-6 to see the operator-method check and its fix.');
  });
});

/**
 * On a hop before the last (src/planning/hops.ts hopTarget sets Target.onTheWayTo), one run goes
 * through every hop: a ctl command a hint proposes names the run's final --to, never the hop's
 * release, which pasted would end the upgrade there.
 */
describe('the OLM hints on a hop before the last name the final --to', () => {
  const FINAL = '8.0.2-2';

  it('olm-digests: the operator step to run first', async () => {
    const hint = await hintOf(
      installedOlmDigests(new FakeCluster().clients(), {
        olm: { csv: 'redis-enterprise-operator.v7.4.6-2', installPlans: [] },
        namespace: 'redis',
        operatorTarget: '7.8.2-6',
        platform: 'openshift',
        currentTag: '7.4.6-22',
        ctlTarget: {},
        onTheWayTo: FINAL,
      }),
    );
    assert.match(hint, /^Run the operator step first \(ctl upgrade run --to 8\.0\.2-2 --only operator\), /);
    assert.doesNotMatch(hint, /--to 7\.8\.2-6/);
  });

  /**
   * A hop to 7.8.2-6 under OLM, the Subscription on channel 7.8 whose head is the hop's CSV;
   * `subscription` is what the cluster holds (none: deleted since the snapshot).
   */
  function hopHarness(options: {
    inSnapshot?: boolean;
    subscription?: { status: Record<string, unknown> } | undefined;
  }) {
    const h = harness({
      snapshot: (s) => {
        s.olm = {
          csv: 'redis-enterprise-operator.v7.4.6-2',
          ...(options.inSnapshot === false
            ? {}
            : { subscription: { name: 'redis-enterprise', package: 'redis-enterprise', channel: '7.8' } }),
          installPlans: [],
          channels: [
            {
              name: '7.8',
              currentCSV: 'redis-enterprise-operator.v7.8.2-6',
              entries: [
                'redis-enterprise-operator.v7.8.2-6',
                'redis-enterprise-operator.v7.8.0-1',
                'redis-enterprise-operator.v7.4.6-2',
              ],
            },
          ],
        };
      },
      target: { to: '7.8.2-6' },
    });
    h.deps.target = { ...h.deps.target, onTheWayTo: FINAL };
    if (options.subscription) {
      h.cluster.put({
        apiVersion: OLM_API_VERSION,
        kind: 'Subscription',
        metadata: { name: 'redis-enterprise', namespace: 'redis' },
        spec: { name: 'redis-enterprise', channel: '7.8', installPlanApproval: 'Manual' },
        status: options.subscription.status,
      });
    }
    return h;
  }

  it('operator-olm: the Subscription not in the snapshot', async () => {
    const h = hopHarness({ inSnapshot: false });
    const hint = await hintOf(upgradeThroughOlm(h.ctx(), h.cluster.wait(), 'redis'));
    assert.match(hint, /then plan again: ctl upgrade plan --to 8\.0\.2-2\.$/);
  });

  it('operator-olm: the Subscription gone from the cluster', async () => {
    const h = hopHarness({});
    const hint = await hintOf(upgradeThroughOlm(h.ctx(), h.cluster.wait(), 'redis'));
    assert.equal(hint, 'Plan again: ctl upgrade plan --to 8.0.2-2.');
  });

  it('operator-olm: no channel has the CSV of the hop as its head', async () => {
    const h = hopHarness({
      subscription: { status: { installedCSV: 'redis-enterprise-operator.v7.4.6-2' } },
    });
    // The package as read: only a channel of the installed release.
    h.deps.snapshot.olm!.channels = [
      {
        name: '7.4',
        currentCSV: 'redis-enterprise-operator.v7.4.6-2',
        entries: ['redis-enterprise-operator.v7.4.6-2'],
      },
    ];
    const hint = await hintOf(upgradeThroughOlm(h.ctx(), h.cluster.wait(), 'redis'));
    assert.equal(hint, 'Run ctl upgrade plan --to 8.0.2-2 to see the operator-method check and its fix.');
  });

  it('operator-olm-offer: OLM offers another CSV first', async () => {
    const h = hopHarness({
      subscription: {
        status: {
          installedCSV: 'redis-enterprise-operator.v7.4.6-2',
          currentCSV: 'redis-enterprise-operator.v7.8.0-1',
          installPlanRef: { name: 'install-first' },
          state: 'UpgradePending',
        },
      },
    });
    const hint = await hintOf(upgradeThroughOlm(h.ctx(), h.cluster.wait(), 'redis'));
    // A hop before the last: the offered CSV is a stop before the hop's release, and the run to
    // it ends there; the hint says so and keeps the final --to for the run after it.
    assert.match(
      hint,
      /^Upgrade to 7\.8\.0-1 first, a stop OLM needs before 7\.8\.2-6 on the way to 8\.0\.2-2: ctl upgrade run --to 7\.8\.0-1 \(it replaces this run, which approved nothing, and ends at 7\.8\.0-1, not at 8\.0\.2-2\); then ctl upgrade run --to 8\.0\.2-2 again to go on from there\./,
    );
    assert.doesNotMatch(hint, /--to 7\.8\.2-6/);
  });

  it('operator-olm-offer: OLM offers no update, on a hop: the run after the way round keeps the final --to', async () => {
    const h = hopHarness({
      subscription: {
        status: {
          installedCSV: 'redis-enterprise-operator.v7.4.6-2',
          currentCSV: 'redis-enterprise-operator.v7.4.6-2',
          state: 'AtLatestKnown',
        },
      },
    });
    const hint = await hintOf(upgradeThroughOlm(h.ctx(), h.cluster.wait(), 'redis'));
    assert.match(
      hint,
      /upgrade to it first with ctl upgrade run --to VERSION \(it replaces this run, which approved nothing, and ends at VERSION\), then ctl upgrade run --to 8\.0\.2-2 again;/,
    );
    assert.doesNotMatch(hint, /--to 7\.8\.2-6/);
  });
});
