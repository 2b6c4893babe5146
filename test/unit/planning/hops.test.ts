import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findPath, nextHop, projectSnapshot } from '../../../src/planning/hops.js';
import { renderTargets } from '../../../src/planning/render-targets.js';
import { candidateTargets, listTargets } from '../../../src/planning/targets.js';
import { resolveSelection } from '../../../src/planning/target.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import { planUpgrade, planUpgradePath } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

/** The fixture's cluster at another operator and RS release. */
function at(operator: string, tag: string, mutate: (s: Snapshot) => void = () => {}): Snapshot {
  return makeSnapshot((s) => {
    s.operator!.version = operator;
    s.operator!.image = `redislabs/operator:${operator}`;
    s.cluster!.image.versionTag = tag;
    s.api.nodes = s.api.nodes.map((n) => ({
      ...n,
      software_version: tag.replace(/\.rhel\d-openshift$/, ''),
    }));
    mutate(s);
  });
}

const operators = (snapshot: Snapshot, to: string, maxHops = 3) => {
  const path = findPath(snapshot, makeTarget({ to }), maxHops, planUpgrade);
  return { ok: path.ok, hops: path.hops.map((hop) => hop.target.operator), path };
};

describe('the hop path finder (src/planning/hops.ts)', () => {
  it('one hop when the target is directly reachable: the plan is exactly the single-target plan', () => {
    const snapshot = makeSnapshot();
    assert.equal(nextHop(snapshot, makeTarget({ to: '7.8.2-6' })), undefined);
    assert.deepEqual(operators(snapshot, '7.8.2-6'), {
      ok: true,
      hops: ['7.8.2-6'],
      path: findPath(snapshot, makeTarget({ to: '7.8.2-6' }), 3, planUpgrade),
    });
    const target = makeTarget({ to: '7.8.2-6' });
    assert.deepEqual(planUpgradePath(snapshot, target), planUpgrade(snapshot, target));
  });

  it('operator below 7.4.2-2 to a RHEL9 target: first the newest 7.4 release with a trustworthy bundle', () => {
    const snapshot = at('7.2.4-12', '7.2.4-92');
    const need = nextHop(snapshot, makeTarget({ to: '7.8.2-6' }));
    assert.equal(need?.operator, '7.4.6-12'); // the newest 7.4.6, with the fix of reaadb-empty-password
    assert.equal(need?.check, 'operator-min-version');
    assert.deepEqual(operators(snapshot, '7.8.2-6').hops, ['7.4.6-12', '7.8.2-6']);
  });

  it('the cluster below 7.4.2 with a new enough operator needs the hop too', () => {
    const snapshot = at('7.4.2-2', '7.2.4-92');
    assert.equal(nextHop(snapshot, makeTarget({ to: '8.0.2-2' }))?.check, 'operator-min-version');
  });

  it('the second hop is planned from the cluster as the first leaves it, and passes', () => {
    const snapshot = at('7.2.4-12', '7.2.4-92');
    const { path } = operators(snapshot, '7.8.2-6');
    const second = path.hops[1]!.plan;
    assert.equal(second.current.operator, '7.4.6-12');
    assert.equal(second.current.clusterVersion, '7.4.6-293');
    assert.equal(second.blocked, false, JSON.stringify(second.checks.filter((c) => c.status === 'fail')));
    const projected = projectSnapshot(snapshot, path.hops[0]!.plan);
    assert.deepEqual([...new Set(projected.api.nodes.map((n) => n.software_version))], ['7.4.6-293']);
    assert.equal(projected.operator?.image, 'redislabs/operator:7.4.6-12');
  });

  it('a run resumed while its first hop rolls the cluster: the next hop sees the cluster Running, as that hop leaves it', () => {
    // Ctrl-C in hop 1's monitor step: the operator and the tag are at hop 1's release, the
    // cluster is still rolling to it (state Upgrade, one node done). The resume plans both hops
    // again; the second must not fail cluster-running for the roll the first hop waits for.
    const snapshot = at('7.4.6-12', '7.4.6-293', (s) => {
      s.cluster!.state = 'Upgrade';
      s.api.nodes = s.api.nodes.map((n, i) => ({
        ...n,
        software_version: i === 0 ? '7.4.6-293' : '7.2.4-92',
      }));
    });
    const { ok, hops, path } = operators(snapshot, '7.8.2-6');
    assert.deepEqual({ ok, hops }, { ok: true, hops: ['7.4.6-12', '7.8.2-6'] });
    const running = (plan: (typeof path.hops)[number]['plan']) =>
      plan.checks.find((check) => check.id === 'cluster-running')?.status;
    assert.equal(running(path.hops[0]!.plan), 'warn', 'hop 1 says its own roll is going on');
    assert.equal(running(path.hops[1]!.plan), 'pass', 'hop 2 starts once hop 1 left the cluster Running');
    assert.equal(projectSnapshot(snapshot, path.hops[0]!.plan).cluster?.state, 'Running');
    // A cluster rolling to another release than the hop's stays as it is in the forecast.
    const elsewhere = at('7.4.6-12', '7.4.6-22', (s) => {
      s.cluster!.state = 'Upgrade';
    });
    assert.equal(projectSnapshot(elsewhere, path.hops[0]!.plan).cluster?.state, 'Upgrade');
  });

  it('a database the hop holds back or leaves to the user keeps its version in the forecast (issue 36)', () => {
    // Its databases at 6.2: the first hop (to 7.4.6-12) raises them to 7.2.
    const snapshot = at('7.2.4-12', '7.2.4-92', (s) => {
      s.databases = s.databases.map((d) => ({ ...d, versionSpec: '6.2', statusVersion: '6.2' }));
      s.api.bdbs = s.api.bdbs.map((b) => ({ ...b, redis_version: '6.2' }));
    });
    const plan = operators(snapshot, '7.8.2-6').path.hops[0]!.plan;
    const upgrade = plan.steps.flatMap((step) => step.actions).find((action) => action.database);
    const db = upgrade?.database;
    assert.ok(upgrade && db, 'the first hop upgrades a database');
    const version = (s: Snapshot) => s.databases.find((d) => d.name === db.name)?.versionSpec;
    assert.notEqual(version(snapshot), db.version, 'the hop changes its version');
    assert.equal(version(projectSnapshot(snapshot, plan)), db.version);
    const withAction = (database: typeof db) => ({
      ...plan,
      steps: plan.steps.map((step) => ({
        ...step,
        actions: step.actions.map((action) => (action === upgrade ? { ...action, database } : action)),
      })),
    });
    for (const database of [
      { ...db, heldBack: 'its participants first' },
      { ...db, manual: true },
    ]) {
      assert.equal(version(projectSnapshot(snapshot, withAction(database))), version(snapshot));
    }
  });

  it('the RS table: 6.2.4 to 6.2.18 goes through 6.2.10-45 (the Kubernetes-only hop)', () => {
    const snapshot = at('6.2.4-1', '6.2.4-55');
    assert.equal(
      nextHop(snapshot, makeTarget({ to: '6.2.18-41', databases: 'none' }))?.operator,
      '6.2.10-45',
    );
    assert.deepEqual(operators(snapshot, '6.2.18-41').hops, ['6.2.10-45', '6.2.18-41']);
  });

  it("each stop says that no direct upgrade exists, the rule's source, and why this release (hops[].reason)", () => {
    const reasons = (snapshot: Snapshot, to: string, databases?: 'none') =>
      planUpgradePath(snapshot, makeTarget({ to, ...(databases ? { databases } : {}) })).hops?.map(
        (hop) => hop.reason,
      );
    // The floor of RHEL9 targets: the newest 7.4.6, not any release at 7.4.2-2 or later.
    assert.deepEqual(reasons(at('7.2.4-12', '7.2.4-92'), '7.8.2-6'), [
      'operator-min-version: upgrades to 7.8.2-6 need operator and cluster at 7.4.2-2 or later, so no direct upgrade exists (the release notes of every release from 7.8.2: "Upgrades from versions earlier than 7.4.2-2 are not supported"); 7.4.6-12 is the newest catalogued release before 7.8.2-6 (the first release with that rule) that no known advisory affects',
      null,
    ]);
    // The Kubernetes-only stop: the release the docs name.
    assert.deepEqual(reasons(at('6.2.4-1', '6.2.4-55'), '6.2.18-41', 'none'), [
      'upgrade-path: RS 6.2.4 cannot go straight to 6.2.18, so no direct upgrade exists (the Kubernetes upgrade docs, kubernetes/7.4.6/upgrade/upgrade-redis-cluster.md: clusters below RS 6.2.10 stop at 6.2.10-45 before 6.2.18 or later); 6.2.10-45 is the stop those docs name for clusters below RS 6.2.10',
      null,
    ]);
    // Every stop before the last of a three-hop path says it.
    const three = reasons(at('6.0.20-12', '6.0.20-97'), '7.8.2-6');
    assert.equal(three?.length, 3);
    assert.deepEqual(
      three?.map((reason) => /so no direct upgrade exists \(.+\); \S+ is the /.test(reason ?? '')),
      [true, true, false],
    );
  });

  it('three hops when a hop itself needs one (6.0 -> 7.4 -> 7.8), refused above --max-hops', () => {
    const snapshot = at('6.0.20-12', '6.0.20-97');
    const all = operators(snapshot, '7.8.2-6');
    assert.equal(all.ok, true);
    assert.equal(all.hops.length, 3, all.hops.join(', '));
    assert.equal(all.hops.at(-1), '7.8.2-6');
    const bounded = operators(snapshot, '7.8.2-6', 2);
    assert.equal(bounded.ok, false);
    assert.ok(!bounded.path.ok && bounded.path.needed === 3);
    assert.match(!bounded.path.ok ? bounded.path.reason : '', /needs 3 hops .* and --max-hops is 2/);
  });

  it('a RHEL7 OpenShift cluster goes through 7.2.4-2 with its RHEL7 image, then on', () => {
    const snapshot = at('6.4.2-8', '6.4.2-94.rhel7-openshift', (s) => {
      s.platform = 'openshift';
    });
    const { hops, path } = operators(snapshot, '7.4.6-7');
    assert.deepEqual(hops, ['7.2.4-2', '7.4.6-7']);
    assert.equal(path.hops[0]!.target.clusterVersion, '7.2.4-52.rhel7-openshift');
  });

  it('refused with --max-hops 1: the single-target plan, its check failing with the reason and the fix', () => {
    const snapshot = at('7.2.4-12', '7.2.4-92');
    const plan = planUpgradePath(snapshot, makeTarget({ to: '7.8.2-6' }), 1);
    assert.equal(plan.hops, undefined);
    assert.equal(plan.blocked, true);
    const check = plan.checks.find((c) => c.id === 'operator-min-version')!;
    assert.match(check.message, /needs 2 hops \(7\.4\.6-12, then 7\.8\.2-6\) and --max-hops is 1/);
    assert.match(check.fix, /^Pass --max-hops 2/);
  });

  it('the multi-hop plan lists the advisories of the running operator and of the final target', () => {
    const plan = planUpgradePath(at('7.2.4-12', '7.2.4-92'), makeTarget({ to: '7.8.2-6' }));
    assert.equal(plan.hops?.length, 2);
    const advisory = plan.catalog?.advisories.find((a) => a.id === 'reaadb-empty-password');
    assert.ok(advisory, JSON.stringify(plan.catalog));
    assert.equal(advisory.running, true, '7.2.4-12 is affected');
    assert.equal(advisory.target, true, '7.8.2-6 is affected');
  });

  it('a --bundle without {version} cannot serve several hops: refused', () => {
    const snapshot = at('7.2.4-12', '7.2.4-92');
    const plan = planUpgradePath(snapshot, makeTarget({ to: '7.8.2-6', bundle: './bundle.yaml' }));
    assert.equal(plan.hops, undefined);
    assert.match(
      plan.checks.find((c) => c.id === 'operator-min-version')!.message,
      /names one release's bundle/,
    );
  });

  it('the multi-hop plan: final target, hops in order, checks merged naming the later hop', () => {
    const snapshot = at('7.2.4-12', '7.2.4-92', (s) => {
      s.api.bdbs = s.api.bdbs.map((b) => ({ ...b, redis_version: '6.2' }));
      s.databases = s.databases.map((d) => ({ ...d, statusVersion: '6.2', versionSpec: '6.2' }));
    });
    const plan = planUpgradePath(snapshot, makeTarget({ to: '7.8.2-6', databases: 'none' }));
    assert.deepEqual(
      plan.hops?.map((h) => h.target.operator),
      ['7.4.6-12', '7.8.2-6'],
    );
    assert.equal(plan.target.operator, '7.8.2-6');
    assert.equal(plan.current.operator, '7.2.4-12');
    // With --databases none hop 1 leaves them at 6.2: hop 2 would freeze them.
    const dbCheck = plan.checks.find((c) => c.id === 'database-min-version')!;
    assert.equal(dbCheck.status, 'fail');
    assert.match(dbCheck.message, /^hop 2 \(to 7\.8\.2-6\): /);
    assert.equal(plan.blocked, true);
  });
});

describe('the targets without --to (src/planning/targets.ts)', () => {
  it('the newest build of each release line newer than the operator, newest first', () => {
    const candidates = candidateTargets('7.4.6-2', false);
    assert.ok(candidates.includes('7.4.6-12'), candidates.join(', '));
    assert.ok(!candidates.includes('7.4.6-9'), 'no target whose upstream bundle is untrustworthy');
    assert.equal(new Set(candidates.map((v) => v.split('.').slice(0, 2).join('.'))).size, candidates.length);
    assert.deepEqual(candidateTargets('8.2.0-18', false), []);
  });

  it('plans each from the one snapshot; the recommended (newest unblocked) first', () => {
    const snapshot = at('7.2.4-12', '7.2.4-92');
    const list = listTargets(snapshot, resolveSelection({}), 3, planUpgradePath);
    assert.equal(list.targets[0]?.operator, list.recommended);
    assert.equal(list.targets[0]?.blocked, false);
    const to78 = list.targets.find((t) => t.line === '7.8')!;
    assert.equal(to78.oneHop, false);
    assert.deepEqual(
      to78.hops.map((h) => h.operator),
      ['7.4.6-12', to78.operator],
    );
    // For people: the recommended target's plan command on a line of its own, never broken by
    // the wrap of an 80-column terminal (it followed a 70-column sentence before).
    const text = renderTargets(list, false, (to) => `ctl upgrade plan --to ${to}`);
    const lines = text.split('\n');
    const next = lines.indexOf(`Next: ctl upgrade plan --to ${list.recommended}`);
    assert.ok(next > 0, text);
    assert.equal(
      lines[next - 1],
      '* recommended (the newest no check blocks and no known advisory affects).',
    );
    assert.ok(
      lines.every((line) => line.length <= 80 || !line.includes('Next:')),
      text,
    );
    const oneHopOnly = listTargets(snapshot, resolveSelection({}), 1, planUpgradePath);
    const blocked78 = oneHopOnly.targets.find((t) => t.line === '7.8')!;
    assert.equal(blocked78.blocked, true);
    assert.deepEqual(
      blocked78.blocking.map((b) => b.id),
      ['operator-min-version'],
    );
  });
});
