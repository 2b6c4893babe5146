import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkReleaseAdvisories } from '../../../src/planning/advisories.js';
import { hopTarget } from '../../../src/planning/hops.js';
import { checkPlatformSupported } from '../../../src/planning/platform.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import type { Target } from '../../../src/planning/target.js';
import { planUpgradePath } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

/**
 * A hop before the last (multi-hop.md) is a stop the path needs on the way to --to, not a target
 * the user chose: no check's advice on it may propose "a newer operator release", another --to
 * that trades the final target for the stop, the final target itself, or a run --to the stop.
 * Each check still judges the stop itself: the cluster runs it until the next hop, and the
 * upgrade docs want "both your Kubernetes version and Redis operator version ... supported at all
 * times" (redis/docs content/operate/kubernetes/upgrade/_index.md, "Upgrade compatibility").
 */

/** The old-operator scenario's cluster: operator 7.2.4-12, RS 7.2.4-92 (two hops to 8.x). */
function on72412(mutate: (s: Snapshot) => void = () => {}): Snapshot {
  return makeSnapshot((s) => {
    s.operator!.version = '7.2.4-12';
    s.operator!.image = 'redislabs/operator:7.2.4-12';
    s.cluster!.image.versionTag = '7.2.4-92';
    s.api.nodes = s.api.nodes.map((n) => ({ ...n, software_version: '7.2.4-92' }));
    mutate(s);
  });
}

/** Hop 1 of a path to `final`, stopping at `operator`. */
function stop(final: string, operator: string): Target {
  return hopTarget(makeTarget({ to: final }), { operator, clusterVersion: undefined });
}

const checkOf = (checks: { id: string; status: string; message: string; fix: string }[], id: string) => {
  const found = checks.find((c) => c.id === id);
  assert.ok(found, `check ${id}`);
  return found;
};

describe('platform-supported on a hop before the last', () => {
  it('Kubernetes newer than the stop lists: no "newer operator release", the final target judged, the stop still warned', () => {
    const snapshot = on72412(); // Kubernetes 1.32; 7.4.6-12 lists 1.27-1.30.
    const own = checkPlatformSupported(snapshot, makeTarget({ to: '7.4.6-12' }));
    assert.equal(own.status, 'warn');
    assert.match(own.fix, /A newer operator release may support Kubernetes 1\.32/);

    const waypoint = checkPlatformSupported(snapshot, stop('8.2.0-18', '7.4.6-12'));
    assert.equal(waypoint.status, 'warn', 'the cluster runs 7.4.6-12 on 1.32 until the next hop');
    assert.match(waypoint.message, /Kubernetes 1\.32 is newer than every version 7\.4\.6-12 lists/);
    assert.match(
      waypoint.message,
      /the cluster runs 7\.4\.6-12 on it from this hop until the next, a stop on the way to 8\.2\.0-18: 8\.2\.0-18, the final target, supports Kubernetes 1\.32 as deprecated/,
    );
    assert.doesNotMatch(`${waypoint.message} ${waypoint.fix}`, /newer operator release|--to/);
    assert.match(waypoint.fix, /Check the 7\.4\.6-12 release notes for Kubernetes 1\.32 before the run/);
  });

  it('through planUpgradePath: hop 1 names the final target, hop 2 judges it as its own', () => {
    const plan = planUpgradePath(on72412(), makeTarget({ to: '8.2.0-18' }));
    assert.deepEqual(
      plan.hops?.map((hop) => hop.target.operator),
      ['7.4.6-12', '8.2.0-18'],
    );
    const first = checkOf(plan.hops![0]!.checks, 'platform-supported');
    assert.doesNotMatch(first.fix, /A newer operator release/);
    assert.match(first.message, /a stop on the way to 8\.2\.0-18/);
    const last = checkOf(plan.hops![1]!.checks, 'platform-supported');
    assert.match(last.message, /8\.2\.0-18 supports Kubernetes 1\.32 as deprecated/);
    assert.doesNotMatch(last.message, /a stop on the way/);
  });

  it('deprecated on the stop, dropped by the final target: says so, proposes no later release', () => {
    const snapshot = on72412((s) => (s.kubernetesVersion = 'v1.26.9'));
    const waypoint = checkPlatformSupported(snapshot, stop('8.2.0-18', '7.4.6-12'));
    assert.equal(waypoint.status, 'warn');
    assert.match(waypoint.message, /7\.4\.6-12 supports Kubernetes 1\.26 as deprecated/);
    assert.match(waypoint.message, /8\.2\.0-18, the final target, does not support Kubernetes 1\.26 either/);
    assert.doesNotMatch(waypoint.fix, /a later operator release may drop/);
    assert.match(waypoint.fix, /a version 8\.2\.0-18 supports/);
  });

  it('older than the stop supports: fails; stopping earlier is named as giving up the final target', () => {
    const snapshot = on72412((s) => (s.kubernetesVersion = 'v1.25.4'));
    const waypoint = checkPlatformSupported(snapshot, stop('8.2.0-18', '7.4.6-12'));
    assert.equal(waypoint.status, 'fail');
    assert.match(waypoint.fix, /^Upgrade Kubernetes to a version 7\.4\.6-12 supports first/);
    assert.match(
      waypoint.fix,
      /or stop at 7\.2\.4-16 instead of going on to 8\.2\.0-18 \(ctl upgrade plan --to 7\.2\.4-16\)/,
    );
    assert.doesNotMatch(waypoint.fix, /--to 8\.2\.0-18/);
  });

  it('under OLM, a stop OperatorHub does not offer here: the target list, not another --to', () => {
    const snapshot = makeSnapshot((s) => {
      s.operator!.version = '7.22.2-43';
      s.cluster!.image.versionTag = '7.22.2-179';
      s.platform = 'openshift';
      s.openshiftVersion = '4.20.3';
      s.olm = { csv: 'redis-enterprise-operator.v7.22.2-43.0', installPlans: [], channels: [] };
    });
    const own = checkPlatformSupported(snapshot, makeTarget({ to: '7.22.2-45' }));
    assert.match(own.fix, /^Choose a release OperatorHub offers here \(ctl upgrade plan --to \S+\)/);
    const waypoint = checkPlatformSupported(snapshot, stop('8.0.20-27', '7.22.2-45'));
    assert.equal(waypoint.status, 'fail');
    assert.match(waypoint.fix, /OLM installs 7\.22\.2-45 on the way to 8\.0\.20-27/);
    assert.match(waypoint.fix, /\(ctl upgrade plan lists the targets with their hops\)/);
    assert.doesNotMatch(waypoint.fix, /--to/);
  });
});

describe('release-advisories on a hop before the last', () => {
  const withReaadb = (s: Snapshot) => {
    s.activeActiveDatabases = [{ name: 'geo', namespace: 'redis', participatingClusters: [{ name: 'rec' }] }];
  };

  it('an affected stop: still judged, but no "--to <fixed release> instead" that trades the final target', () => {
    const snapshot = on72412(withReaadb);
    const own = checkReleaseAdvisories(snapshot, makeTarget({ to: '7.4.6-9' }));
    assert.equal(own.status, 'fail');
    assert.match(own.fix, /Upgrade to 7\.4\.6-12 instead \(ctl upgrade plan --to 7\.4\.6-12\)/);
    const waypoint = checkReleaseAdvisories(snapshot, stop('8.2.0-18', '7.4.6-9'));
    assert.equal(waypoint.status, 'fail', 'the hop changes the REAADB on an affected operator');
    assert.match(waypoint.message, /7\.4\.6-9 is affected by advisory reaadb-empty-password/);
    assert.match(waypoint.fix, /7\.4\.6-9 is a stop on the way to 8\.2\.0-18/);
    assert.match(waypoint.fix, /ctl upgrade plan lists the targets with their hops/);
    assert.doesNotMatch(waypoint.fix, /--to|instead/);
  });

  it('an affected stop nothing triggers: warns, and says until when the cluster runs it', () => {
    const waypoint = checkReleaseAdvisories(on72412(), stop('8.2.0-18', '7.4.6-9'));
    assert.equal(waypoint.status, 'warn');
    assert.match(
      waypoint.fix,
      /^Create no resource it names before the next hop, which leaves 7\.4\.6-9 for 8\.2\.0-18/,
    );
    assert.doesNotMatch(waypoint.fix, /--to/);
  });
});

describe('the other checks on a hop before the last', () => {
  /** A cluster on 7.4.6-12 (RS 7.4.6-22) whose database uses a module without a RHEL9 build. */
  const rhel8Only = (s: Snapshot) => {
    s.operator!.version = '7.4.6-12';
    s.api.modules = [
      { uid: 'm2', module_name: 'ReJSON', semantic_version: '2.6.10', platforms: { 'rhel8/x86_64': {} } },
    ];
    s.api.bdbs = [
      {
        uid: 1,
        name: 'db1',
        redis_version: '7.2',
        module_list: [{ module_name: 'ReJSON', semantic_version: '2.6.10' }],
      },
    ];
    s.databases[0]!.modules = [{ name: 'ReJSON', version: '2.6.10' }];
  };

  it('modules-compatible proposes the run --to the final target (one run does every hop), not --to the stop', () => {
    const own = checkOf(
      planUpgradePath(makeSnapshot(rhel8Only), makeTarget({ to: '7.22.2-45' })).checks,
      'modules-compatible',
    );
    assert.match(own.fix, /ctl upgrade run --to 7\.22\.2-45 --ignore-check modules-compatible --remediate/);
    const plan = planUpgradePath(makeSnapshot(rhel8Only), stop('8.2.0-18', '7.22.2-45'));
    const waypoint = checkOf(plan.checks, 'modules-compatible');
    assert.equal(waypoint.status, 'fail');
    assert.match(waypoint.message, /the cluster upgrade to 7\.22\.2-45 would freeze/);
    assert.match(
      waypoint.fix,
      /ctl upgrade run --to 8\.2\.0-18 --ignore-check modules-compatible --remediate/,
    );
    assert.doesNotMatch(waypoint.fix, /--to 7\.22\.2-45/);
  });

  it('operator-method under OLM: a stop no channel head can replace names the target list, not a head --to', () => {
    const csv = 'redis-enterprise-operator.v7.2.4-12';
    const olmOn = () =>
      on72412((s) => {
        s.platform = 'openshift';
        s.openshiftVersion = '4.16.3';
        s.olm = {
          csv,
          subscription: {
            name: 'redis-enterprise-operator-cert',
            package: 'redis-enterprise-operator-cert',
            channel: '7.2.4',
            approval: 'Manual',
            source: 'certified-operators',
            sourceNamespace: 'openshift-marketplace',
            installedCSV: csv,
            currentCSV: csv,
            state: 'AtLatestKnown',
          },
          installPlans: [],
          channels: [
            { name: '7.4.6', currentCSV: 'redis-enterprise-operator.v7.4.6-9', entries: [] },
            { name: 'production', currentCSV: 'redis-enterprise-operator.v8.2.0-18', entries: [] },
          ],
        };
      });
    const own = checkOf(planUpgradePath(olmOn(), makeTarget({ to: '7.4.6-12' })).checks, 'operator-method');
    assert.equal(own.status, 'fail');
    assert.match(own.fix, /ctl upgrade plan --to 7\.4\.6-9/);
    const waypoint = checkOf(
      planUpgradePath(olmOn(), stop('8.2.0-18', '7.4.6-12')).checks,
      'operator-method',
    );
    assert.equal(waypoint.status, 'fail');
    assert.match(waypoint.fix, /^7\.4\.6-12 is a stop on the way to 8\.2\.0-18/);
    assert.match(waypoint.fix, /ctl upgrade plan lists the targets with their hops/);
    assert.doesNotMatch(waypoint.fix, /--to/);
  });

  it('database-version-supported does not ask for --db-version on a stop (it names the final databases)', () => {
    const old = (s: Snapshot) => {
      s.operator!.version = '7.4.6-12';
      s.databases[0]!.versionSpec = '6.0';
      s.databases[0]!.statusVersion = '6.0.20';
      s.api.bdbs[0]!.redis_version = '6.0';
    };
    const own = checkOf(
      planUpgradePath(makeSnapshot(old), makeTarget({ to: '7.22.2-45' })).checks,
      'database-version-supported',
    );
    assert.equal(own.status, 'fail');
    assert.match(own.fix, /with --db-version/);
    const plan = planUpgradePath(makeSnapshot(old), stop('8.2.0-18', '7.22.2-45'));
    const waypoint = checkOf(plan.checks, 'database-version-supported');
    assert.equal(waypoint.status, 'fail');
    assert.match(waypoint.message, /redis\/db1 runs 6\.0/);
    assert.match(waypoint.fix, /^Upgrade older databases first: this hop, a stop on the way to 8\.2\.0-18/);
    assert.doesNotMatch(waypoint.fix, /Choose one of/);
  });

  it("release-rules: a held participant is run again --to the final target; the same-operator advice is the last hop's", () => {
    const aa = (rsVersion: string) =>
      makeSnapshot((s) => {
        s.operator!.version = '7.4.6-12';
        s.activeActiveDatabases = [
          { name: 'geo', namespace: 'redis', participatingClusters: [{ name: 'rec' }, { name: 'east' }] },
        ];
        s.remoteClusters = [{ name: 'east', namespace: 'redis', local: false, rsVersion }];
      });
    const rules = (snapshot: Snapshot, target: Target) =>
      checkOf(planUpgradePath(snapshot, target).checks, 'release-rules');
    // East on 8.0.20-96 (operator 8.0.20-26, affected): its REAADBs are held back.
    const held = rules(aa('8.0.20-96'), stop('8.2.0-18', '7.22.2-45'));
    assert.match(
      held.fix,
      /Upgrade east first; then run ctl upgrade run --to 8\.2\.0-18 again for those databases/,
    );
    assert.doesNotMatch(held.fix, /--to 7\.22\.2-45/);
    // East on 8.2.0-18: another operator than the stop, the same as the final target.
    const other = rules(aa('8.2.0-78.18'), makeTarget({ to: '7.22.2-45' }));
    assert.match(other.message, /participant east runs operator 8\.2\.0-18 .*same operator version/);
    const waypoint = rules(aa('8.2.0-78.18'), stop('8.2.0-18', '7.22.2-45'));
    assert.doesNotMatch(waypoint.message, /participant east runs operator/);
    assert.doesNotMatch(waypoint.fix, /Upgrade east to 7\.22\.2-45/);
  });
});
