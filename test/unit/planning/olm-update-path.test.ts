import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runChecks } from '../../../src/planning/checks/index.js';
import { planUpgradePath } from '../../../src/steps/index.js';
import type { OlmSnapshot } from '../../../src/planning/olm.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import { catalogOlmEdge, inSkipRange } from '../../../src/release/olm-graph.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

const csv = (bundle: string) => `redis-enterprise-operator.v${bundle}`;

/**
 * An OperatorHub install on `installed`, whose package has these channel heads. The Subscription
 * is as OLM shows it once resolved: UpgradePending under a head of its channel that skips the
 * installed CSV (by the certified bundles' edges), else AtLatestKnown.
 */
function olmWorld(
  installed: string,
  heads: Record<string, string>,
  channel = installed.split('-')[0]!,
): OlmSnapshot {
  const head = heads[channel];
  const offered = head !== undefined && catalogOlmEdge(csv(installed), csv(head)).kind === 'edge';
  return {
    csv: csv(installed),
    subscription: {
      name: 'redis-enterprise-operator-cert',
      package: 'redis-enterprise-operator-cert',
      channel,
      approval: 'Manual',
      installedCSV: csv(installed),
      currentCSV: csv(offered ? head : installed),
      state: offered ? 'UpgradePending' : 'AtLatestKnown',
    },
    installPlans: [],
    channels: Object.entries(heads).map(([name, head]) => ({
      name,
      currentCSV: csv(head),
      entries: [csv(head)],
    })),
  };
}

function onOlm(olm: OlmSnapshot, operator: string, tag: string) {
  return (s: Snapshot) => {
    s.platform = 'openshift';
    s.kubernetesVersion = 'v1.29.0';
    s.olm = structuredClone(olm);
    if (s.operator) {
      s.operator.version = operator;
      s.operator.image = `registry.connect.redhat.com/redislabs/redis-enterprise-operator:${operator}`;
    }
    if (s.cluster) s.cluster.image.versionTag = tag;
    s.api.nodes = s.api.nodes.map((n) => ({ ...n, software_version: tag.replace(/\.rhel8-openshift$/, '') }));
  };
}

function check(snapshot: Snapshot, to: string) {
  const found = runChecks(snapshot, makeTarget({ to }), { required: REQUIRED_PERMISSIONS }).find(
    (c) => c.id === 'olm-update-path',
  );
  assert.ok(found);
  return found;
}

describe('the certified bundles update edges (catalog olm section)', () => {
  it('reads spec.skips as the source has them: 7.8.2-6.8 skips 7.4.6-2.8 but not 7.4.6-7.5 (published later)', () => {
    assert.deepEqual(catalogOlmEdge(csv('7.4.6-2.8'), csv('7.8.2-6.8')), { kind: 'edge', via: 'skips' });
    assert.deepEqual(catalogOlmEdge(csv('7.4.6-7.5'), csv('7.8.2-6.8')), { kind: 'none' });
  });

  it('a CSV named without its rebuild number stands for the newest rebuild of its release', () => {
    assert.deepEqual(catalogOlmEdge(csv('7.4.6-7'), csv('7.8.2-6')), { kind: 'none' });
    assert.deepEqual(catalogOlmEdge(csv('7.4.6-2'), csv('7.8.2-6')), { kind: 'edge', via: 'skips' });
  });

  it('no bundle read skips 7.4.6-12.0; 7.4.6-11.0 is skipped by the September bundles', () => {
    for (const later of ['7.8.6-20.1', '7.22.2-45.1', '8.0.20-27.1', '8.2.0-15.1'])
      assert.equal(catalogOlmEdge(csv('7.4.6-12.0'), csv(later)).kind, 'none', later);
    assert.equal(catalogOlmEdge(csv('7.4.6-11.0'), csv('7.8.6-20.1')).kind, 'edge');
  });

  it('a target the catalog does not hold is unknown, not an edge', () => {
    assert.equal(catalogOlmEdge(csv('7.4.6-7.5'), csv('9.0.0-1.0')).kind, 'unknown');
    assert.equal(catalogOlmEdge(csv('7.4.6-7.5'), 'other-operator.v1.0.0').kind, 'unknown');
  });

  it('olm.skipRange comparators', () => {
    assert.equal(inSkipRange('7.4.6-7.5', '>=7.4.2 <7.8.2'), true);
    assert.equal(inSkipRange('7.8.2-6.8', '>=7.4.2 <7.8.2'), false);
    assert.equal(inSkipRange('7.4.6-7.5', '^7.4'), undefined);
  });
});

describe('olm-update-path', () => {
  const heads = {
    '7.4.6': '7.4.6-12.0',
    '7.8.2': '7.8.2-6.8',
    '7.8.4': '7.8.4-9.0',
    '7.8.6': '7.8.6-20.1',
    '7.22.0': '7.22.0-17.0',
  };

  it('OLM on 7.4.6-7 --to 7.8.2-6: fails, names the missing edge and the nearest target OLM reaches', () => {
    const result = check(
      makeSnapshot(onOlm(olmWorld('7.4.6-7.5', heads), '7.4.6-7', '7.4.6-275')),
      '7.8.2-6',
    );
    assert.equal(result.status, 'fail', result.message);
    assert.match(
      result.message,
      /no update edge from redis-enterprise-operator\.v7\.4\.6-7\.5 to redis-enterprise-operator\.v7\.8\.2-6\.8/,
    );
    assert.match(
      result.fix,
      /nearest target OLM can reach from redis-enterprise-operator\.v7\.4\.6-7\.5: 7\.8\.6-20 \(ctl upgrade plan --to 7\.8\.6-20\)/,
    );
  });

  it('passes when the target lists the installed CSV, and when OLM already offers it', () => {
    const snap = makeSnapshot(onOlm(olmWorld('7.4.6-2.8', heads), '7.4.6-2', '7.4.6-22'));
    assert.equal(check(snap, '7.8.2-6').status, 'pass');
    const offered = olmWorld('7.4.6-7.5', heads);
    offered.installPlans = [
      { name: 'install-x', csvs: [csv('7.8.2-6.8')], approved: false, phase: 'RequiresApproval' },
    ];
    const live = check(makeSnapshot(onOlm(offered, '7.4.6-7', '7.4.6-275')), '7.8.2-6');
    assert.equal(live.status, 'pass');
    assert.match(live.message, /InstallPlan install-x/);
  });

  it('not OLM: passes without looking', () => {
    assert.equal(check(makeSnapshot(), '7.8.2-6').status, 'pass');
  });

  it('a target the catalog does not know warns', () => {
    const world = olmWorld('7.4.6-7.5', { ...heads, '7.8.2': '7.8.2-6.99' });
    const result = check(makeSnapshot(onOlm(world, '7.4.6-7', '7.4.6-275')), '7.8.2-6');
    assert.equal(result.status, 'warn', result.message);
  });

  it('a hole on the path: the plan goes around it through a head that has edges', () => {
    // 8.0.20-25.0 does not list 7.8.6-16.0 (published after it); 7.22.2-42.0, the head of its own
    // channel, lists 7.8.6-16.0, and 8.0.20-25.0 lists 7.22.2-42.0.
    assert.equal(catalogOlmEdge(csv('7.8.6-16.0'), csv('8.0.20-25.0')).kind, 'none');
    assert.equal(catalogOlmEdge(csv('7.8.6-16.0'), csv('7.22.2-42.0')).kind, 'edge');
    assert.equal(catalogOlmEdge(csv('7.22.2-42.0'), csv('8.0.20-25.0')).kind, 'edge');
    const world = olmWorld('7.8.6-16.0', {
      '7.8.6': '7.8.6-16.0',
      '7.22.2-42.0': '7.22.2-42.0',
      '8.0.20-25.0': '8.0.20-25.0',
    });
    const snapshot = makeSnapshot(onOlm(world, '7.8.6-16', '7.8.6-286'));
    snapshot.kubernetesVersion = 'v1.33.0';
    const single = check(snapshot, '8.0.20-25');
    assert.equal(single.status, 'fail');
    assert.match(single.message, /OLM reaches it through 7\.22\.2-42$/);
    const plan = planUpgradePath(snapshot, makeTarget({ to: '8.0.20-25' }));
    assert.deepEqual(
      plan.hops?.map((h) => h.target.operator),
      ['7.22.2-42', '8.0.20-25'],
      JSON.stringify(plan.checks.filter((c) => c.status !== 'pass')),
    );
    assert.match(plan.hops?.[0]?.reason ?? '', /^olm-update-path: OLM has no update edge/);
    for (const hop of plan.hops ?? [])
      assert.equal(hop.checks.find((c) => c.id === 'olm-update-path')?.status, 'pass', `hop ${hop.hop}`);
  });

  it("OLM AtLatestKnown under a head whose certified bundle skips the installed CSV: the cluster's catalog is not the certified one, so the check fails and no route is planned", () => {
    const world = olmWorld('7.4.6-7.5', heads);
    world.subscription = { ...world.subscription!, state: 'AtLatestKnown', currentCSV: csv('7.4.6-7.5') };
    world.subscription.source = 'mirror-index';
    const snapshot = makeSnapshot(onOlm(world, '7.4.6-7', '7.4.6-275'));
    const result = check(snapshot, '7.8.6-20');
    assert.equal(result.status, 'fail', result.message);
    assert.match(
      result.message,
      /OLM offers no update from redis-enterprise-operator\.v7\.4\.6-7\.5 in channel 7\.4\.6 \(Subscription redis-enterprise-operator-cert is AtLatestKnown under the head redis-enterprise-operator\.v7\.4\.6-12\.0\), although the certified bundle/,
    );
    assert.match(
      result.message,
      /catalog source mirror-index on this cluster does not hold the update edges of the certified bundles ctl read/,
    );
    assert.match(result.fix, /oc get catalogsource mirror-index -n openshift-marketplace -o yaml/);
    const plan = planUpgradePath(snapshot, makeTarget({ to: '7.8.6-20' }));
    assert.equal(plan.hops, undefined, 'no route planned through edges the cluster contradicts');
    assert.equal(plan.blocked, true);
  });

  it('OLM UpgradePending at another CSV of the target channel: it offers that one first, and the fix names it', () => {
    const world = olmWorld('7.4.6-7.5', heads, '7.8.6');
    world.subscription = {
      ...world.subscription!,
      state: 'UpgradePending',
      currentCSV: csv('7.8.6-11.0'),
      installedCSV: csv('7.4.6-7.5'),
    };
    const result = check(makeSnapshot(onOlm(world, '7.4.6-7', '7.4.6-275')), '7.8.6-20');
    assert.equal(result.status, 'fail', result.message);
    assert.match(
      result.message,
      /OLM offers redis-enterprise-operator\.v7\.8\.6-11\.0 first, not redis-enterprise-operator\.v7\.8\.6-20\.1: Subscription redis-enterprise-operator-cert in channel 7\.8\.6 is UpgradePending/,
    );
    assert.match(result.fix, /Upgrade to 7\.8\.6-11 first \(ctl upgrade plan --to 7\.8\.6-11\)/);
    // Planned through the kubeconfig and context ctl was given (src/kube/kube-target.ts).
    const chosen = makeSnapshot(onOlm(world, '7.4.6-7', '7.4.6-275'));
    chosen.kubeTarget = { kubeconfigs: ['/k/prod.yaml'], context: 'prod east' };
    assert.match(
      check(chosen, '7.8.6-20').fix,
      /Upgrade to 7\.8\.6-11 first \(ctl --kubeconfig \/k\/prod\.yaml --context 'prod east' upgrade plan --to 7\.8\.6-11\)/,
    );
  });

  it('OLM on 7.2.4-12 --to 7.22.0-17: the hop through 7.4.6-12 is a dead end, so the plan fails the check', () => {
    const world = olmWorld('7.2.4-12.39', heads, '7.2.4');
    const snapshot = makeSnapshot(onOlm(world, '7.2.4-12', '7.2.4-92'));
    const plan = planUpgradePath(snapshot, makeTarget({ to: '7.22.0-17' }));
    assert.equal(plan.blocked, true);
    const failing = plan.checks.find((c) => c.id === 'olm-update-path');
    assert.equal(failing?.status, 'fail', JSON.stringify(failing));
    assert.match(
      failing?.message ?? '',
      /no update edge from redis-enterprise-operator\.v7\.4\.6-12\.0 to redis-enterprise-operator\.v7\.22\.0-17\.0/,
    );
    assert.match(failing?.fix ?? '', /7\.4\.6-12/);
  });
});
