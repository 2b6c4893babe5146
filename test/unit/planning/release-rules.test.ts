import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { hopTarget } from '../../../src/planning/hops.js';
import { moduleFix } from '../../../src/planning/module-fix.js';
import { checkPlatformSupported } from '../../../src/planning/platform.js';
import { checkReleaseRules } from '../../../src/planning/release-rules.js';
import { resolveUpgrade } from '../../../src/planning/resolve.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import { listTargets } from '../../../src/planning/targets.js';
import { planUpgradePath } from '../../../src/steps/index.js';
import { resetCatalog, useCatalog } from '../../../src/release/catalog-data.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

afterEach(() => resetCatalog());

const TODAY = new Date('2026-11-29T10:00:00Z');

/** A cluster on 7.22.2-43 (RS 7.22.2-179), optionally with modules in use. */
function on72243(mutate: (s: Snapshot) => void = () => {}): Snapshot {
  return makeSnapshot((s) => {
    s.operator!.version = '7.22.2-43';
    s.operator!.image = 'redislabs/operator:7.22.2-43';
    s.cluster!.image.versionTag = '7.22.2-179';
    s.api.nodes = s.api.nodes.map((n) => ({ ...n, software_version: '7.22.2-179' }));
    s.databases[0]!.versionSpec = '7.4';
    mutate(s);
  });
}

/** The old-operator scenario's cluster: operator 7.2.4-12, RS 7.2.4-92 (two hops to 8.x). */
function on72412(): Snapshot {
  return makeSnapshot((s) => {
    s.operator!.version = '7.2.4-12';
    s.operator!.image = 'redislabs/operator:7.2.4-12';
    s.cluster!.image.versionTag = '7.2.4-92';
    s.api.nodes = s.api.nodes.map((n) => ({ ...n, software_version: '7.2.4-92' }));
  });
}

function judge(snapshot: Snapshot, to: string, today = TODAY) {
  const target = makeTarget({ to });
  return checkReleaseRules(snapshot, target, resolveUpgrade(snapshot, target), today);
}

const withCustomModule = (s: Snapshot) => {
  s.api.modules.push({ uid: 'm2', module_name: 'geofence', semantic_version: '1.0.0' });
  s.api.bdbs.push({
    uid: 2,
    name: 'zones',
    module_list: [{ module_name: 'geofence', semantic_version: '1.0.0' }],
  });
};

describe('check release-rules', () => {
  it('a user-defined module in use and an 8.0.2-x target: fail, naming the rule and its source', () => {
    const outcome = judge(on72243(withCustomModule), '8.0.2-6');
    assert.equal(outcome.status, 'fail');
    assert.match(outcome.message, /rule custom-modules-skip-8-0-2 \(8\.0\.2-2, 8\.0\.2-6\)/);
    assert.match(outcome.message, /module geofence \(used by zones\)/);
    assert.match(
      outcome.message,
      /redis\/docs@63f31f69 content\/operate\/kubernetes\/release-notes\/8-0-2-releases\/8-0-2-6-december2025\.md/,
    );
    assert.match(outcome.fix, /8\.0\.6-8 or later/);
  });

  it('spec.userDefinedModules alone sets the 8.0.2 rule off too', () => {
    const outcome = judge(
      on72243((s) => (s.cluster!.userDefinedModules = ['custom'])),
      '8.0.2-2',
    );
    assert.equal(outcome.status, 'fail');
    assert.match(outcome.message, /spec\.userDefinedModules of REC rec \(custom\)/);
  });

  it('only bundled modules (search): 8.0.2-6 passes the rules', () => {
    const outcome = judge(on72243(), '8.0.2-6');
    assert.equal(outcome.status, 'pass', outcome.message);
    assert.match(
      outcome.message,
      /custom-modules-skip-8-0-2, rs8-rolling-upgrade-modules, memcached-redis-version, ldap-filters-parentheses-8-0-2-to-8-0-10, active-active-module-commands-redis-8 apply to 8\.0\.2-6, and nothing/,
    );
  });

  it('a deprecated module on the way to RS 8: a warning naming RedisGraph', () => {
    const outcome = judge(
      on72243((s) => s.api.modules.push({ uid: 'm3', module_name: 'graph', semantic_version: '2.10.12' })),
      '8.0.20-27',
    );
    assert.equal(outcome.status, 'warn');
    assert.match(outcome.message, /rule rs8-rolling-upgrade-modules .*module graph 2\.10\.12 \(installed\)/);
  });

  it('a custom module on the way to 8.0.6-8: a warning, not a block', () => {
    const outcome = judge(on72243(withCustomModule), '8.0.6-8');
    assert.equal(outcome.status, 'warn');
    assert.doesNotMatch(outcome.message, /custom-modules-skip/);
  });

  it('the path the 8.0.20-26 notes rule out: 7.22.2-43 straight to 8.0.20-26 fails', () => {
    const outcome = judge(on72243(), '8.0.20-26');
    assert.equal(outcome.status, 'fail');
    assert.match(outcome.message, /rule no-direct-7-22-2-43-to-8-0-20-26/);
    const other = judge(makeSnapshot(), '8.0.20-26');
    assert.doesNotMatch(other.message, /no-direct-7-22-2-43/);
  });

  it('a cluster on RS 7.4 is warned of its line end of life; the target on a supported line is named', () => {
    const outcome = judge(makeSnapshot(), '8.2.0-18');
    assert.equal(outcome.status, 'warn');
    assert.match(
      outcome.message,
      /this cluster runs Redis Software 7\.4, which reaches its end of life on 2026-11-30 \(in 1 day\)/,
    );
    assert.match(outcome.message, /product-lifecycle\.md/);
  });

  it('a target on the 7.4 line is warned, and a supported one is proposed', () => {
    const outcome = judge(makeSnapshot(), '7.4.6-12', new Date('2026-12-05T00:00:00Z'));
    assert.equal(outcome.status, 'warn');
    assert.match(
      outcome.message,
      /the target 7\.4\.6-12 runs Redis Software 7\.4, which reached its end of life on 2026-11-30 \(5 days ago\)/,
    );
    assert.match(outcome.fix, /Prefer a target on a supported line: ctl upgrade plan --to 8\.2\.0-18/);
  });

  it('a hop before the last (multi-hop.md) on the 7.4 line: no other target proposed, the final one is chosen', () => {
    const today = new Date('2026-12-05T00:00:00Z');
    const snapshot = on72412();
    const judgeAs = (target: ReturnType<typeof makeTarget>) =>
      checkReleaseRules(snapshot, target, resolveUpgrade(snapshot, target), today);
    // The same release as the run's own target: warned, and a target on a supported line proposed.
    const final = judgeAs(makeTarget({ to: '7.4.6-12' }));
    assert.match(
      final.message,
      /the target 7\.4\.6-12 runs Redis Software 7\.4, which reached its end of life/,
    );
    assert.match(final.fix, /Prefer a target on a supported line: ctl upgrade plan --to 8\.2\.0-18/);
    // As the first hop to 8.2.0-18, the stop the path needs: the line the cluster leaves is still
    // named, the waypoint's is not, and no fix proposes the target the run already goes to.
    const waypoint = judgeAs(
      hopTarget(makeTarget({ to: '8.2.0-18' }), { operator: '7.4.6-12', clusterVersion: undefined }),
    );
    assert.equal(waypoint.status, 'warn');
    assert.match(waypoint.message, /this cluster runs Redis Software 7\.2, which reached its end of life/);
    assert.doesNotMatch(waypoint.message, /the target 7\.4\.6-12/);
    assert.doesNotMatch(waypoint.fix, /Prefer a target/);
    assert.equal(waypoint.fix, 'Upgrading to 7.4.6-12 leaves that line.');
  });

  it("a multi-hop plan: hop 1's release-rules proposes no target, the single-hop plan of that release does", () => {
    const snapshot = on72412();
    const rules = (plan: ReturnType<typeof planUpgradePath>) =>
      plan.checks.find((c) => c.id === 'release-rules')!;
    const direct = rules(planUpgradePath(snapshot, makeTarget({ to: '7.4.6-12' })));
    // Today's date: the 7.4 line ended on 2026-11-30, so its own plan proposes another target.
    assert.match(direct.fix, /Prefer a target on a supported line/);
    const path = planUpgradePath(snapshot, makeTarget({ to: '8.2.0-18' }));
    assert.deepEqual(
      path.hops?.map((hop) => hop.target.operator),
      ['7.4.6-12', '8.2.0-18'],
    );
    const first = path.hops![0]!.checks.find((c) => c.id === 'release-rules')!;
    assert.doesNotMatch(first.message, /the target 7\.4\.6-12/);
    assert.doesNotMatch(first.fix, /Prefer a target/);
    assert.doesNotMatch(
      rules(path).fix,
      /Prefer a target on a supported line: ctl upgrade plan --to 8\.2\.0-18/,
    );
  });

  it('a rule added with --catalog is judged without code: a field used on the REC blocks', () => {
    useCatalog(
      {
        format: 1,
        updated: '2026-11-29',
        releases: [],
        rules: [
          {
            id: 'ldap-on-rs8',
            summary: 'LDAP filters need parentheses',
            appliesTo: { rsFrom: '8.0', rsBefore: '8.0.16' },
            triggers: [{ kind: 'field-used', resource: 'REC', field: 'spec.ldap' }],
            effect: 'block',
            fix: 'Wrap the filters in parentheses.',
            source: ['a test'],
          },
        ],
      },
      'test.json',
    );
    const ldap = on72243((s) => (s.cluster!.specFields = ['spec.nodes', 'spec.ldap', 'spec.ldap.protocol']));
    const outcome = judge(ldap, '8.0.10-23');
    assert.equal(outcome.status, 'fail');
    assert.match(outcome.message, /rule ldap-on-rs8 .*spec\.ldap of REC redis\/rec/);
    assert.equal(judge(ldap, '8.0.16-25').message.includes('ldap-on-rs8'), false);
  });

  it('every participant: one on an affected operator or unmappable warns (its REAADB waits); one on another operator warns', () => {
    const aa = (rsVersion: string) =>
      on72243((s) => {
        s.activeActiveDatabases = [
          { name: 'geo', namespace: 'redis', participatingClusters: [{ name: 'rec' }, { name: 'east' }] },
        ];
        s.remoteClusters = [{ name: 'east', namespace: 'redis', local: false, rsVersion }];
      });
    const affected = judge(aa('8.0.20-96'), '8.0.20-27');
    assert.equal(affected.status, 'warn');
    assert.match(
      affected.message,
      /participant east runs Redis Software 8\.0\.20-96, shipped with operator 8\.0\.20-26, which is affected by advisory reaadb-empty-password/,
    );
    assert.match(affected.fix, /Upgrade east first/);
    const unknown = judge(aa('8.0.20-95'), '8.0.20-27');
    assert.match(unknown.message, /which no operator release in ctl's catalog ships/);
    const other = judge(aa('8.2.0-78.18'), '8.0.20-27');
    assert.match(
      other.message,
      /participant east runs operator 8\.2\.0-18 .*recommend that all participating clusters run the same operator version/,
    );
    const same = judge(aa('8.0.20-108'), '8.0.20-27');
    assert.equal(same.status, 'pass', same.message);
  });

  it('the ctl commands a fix proposes name the kubeconfig and context ctl was given', () => {
    const chosen = (s: Snapshot) => {
      s.kubeTarget = { kubeconfigs: ['/k/prod.yaml'], context: 'prod east' };
    };
    const named = "ctl --kubeconfig /k/prod\\.yaml --context 'prod east'";
    const eol = judge(makeSnapshot(chosen), '7.4.6-12', new Date('2026-12-05T00:00:00Z'));
    assert.match(
      eol.fix,
      new RegExp(`Prefer a target on a supported line: ${named} upgrade plan --to \\S+\\.`),
    );
    const participant = judge(
      on72243((s) => {
        chosen(s);
        s.activeActiveDatabases = [
          { name: 'geo', namespace: 'redis', participatingClusters: [{ name: 'rec' }, { name: 'east' }] },
        ];
        s.remoteClusters = [{ name: 'east', namespace: 'redis', local: false, rsVersion: '8.0.20-96' }];
      }),
      '8.0.20-27',
    );
    assert.match(
      participant.fix,
      new RegExp(
        `Upgrade east first; then run ${named} upgrade run --to 8\\.0\\.20-27 again for those databases\\.`,
      ),
    );
  });
});

describe('module advice fits the target REC', () => {
  const input = (targetOperator: string) => ({
    targetOperator,
    kube: {},
    module: 'geofence',
    cluster: { name: 'rec', namespace: 'redis' },
    databases: ['zones'],
  });

  it('spec.userDefinedModules only from 8.0.6-8', () => {
    assert.match(moduleFix(input('8.0.6-8')), /list it in spec\.userDefinedModules/);
    assert.doesNotMatch(moduleFix(input('8.0.2-6')), /kubectl patch rec/);
    assert.match(moduleFix(input('8.0.2-6')), /does not support .*choose 8\.0\.6-8 or later/);
    const upload = moduleFix(input('7.22.2-45'));
    assert.match(
      upload,
      /^upload the RHEL9 build of geofence: curl .*-X POST -F module=@MODULE_RHEL9_ZIP .*\/v2\/modules$/,
    );
    // ctl's own upload is no run this failing check would stop: modules-compatible offers it after
    // every module's fix, with --ignore-check modules-compatible (module-fix-graph.test.ts).
    assert.doesNotMatch(upload, /--remediate/);
    assert.doesNotMatch(upload, /userDefinedModules/);
  });

  it('a running REC without the field gets the flag, not a patch it would refuse; one with it the patch', () => {
    for (const current of ['7.22.2-43', '8.0.2-6', undefined]) {
      const fix = moduleFix({ ...input('8.2.0-18'), currentOperator: current });
      assert.match(fix, /ctl upgrade run --to 8\.2\.0-18 --user-defined-modules FILE/, String(current));
      assert.doesNotMatch(fix, /kubectl patch rec/, String(current));
    }
    const both = moduleFix({ ...input('8.2.0-18'), currentOperator: '8.0.6-8' });
    assert.match(both, /kubectl patch rec rec -n redis --type merge -p '\{"spec":\{"userDefinedModules"/);
    assert.doesNotMatch(both, /--user-defined-modules/);
  });

  it('the run that sets the field names the kubeconfig and context ctl was given', () => {
    const fix = moduleFix({
      ...input('8.2.0-18'),
      currentOperator: '7.22.2-43',
      kube: { kubeconfigs: ['/k/prod.yaml'], context: 'prod east' },
    });
    assert.match(
      fix,
      /ctl --kubeconfig \/k\/prod\.yaml --context 'prod east' upgrade run --to 8\.2\.0-18 --user-defined-modules FILE \(FILE holding a list/,
    );
  });
});

describe('OLM: the bundle OpenShift range', () => {
  const olmOn = (openshift: string) =>
    on72243((s) => {
      s.platform = 'openshift';
      s.openshiftVersion = openshift;
      s.olm = { csv: 'redis-enterprise-operator.v7.22.2-43.0', installPlans: [], channels: [] };
    });

  it('OpenShift 4.20 under OLM: 7.22.2-45 fails platform-supported though the notes list 4.20', () => {
    const outcome = checkPlatformSupported(olmOn('4.20.3'), makeTarget({ to: '7.22.2-45' }));
    assert.equal(outcome.status, 'fail');
    assert.match(
      outcome.message,
      /OperatorHub does not offer 7\.22\.2-45 on OpenShift 4\.20: its bundle 7\.22\.2-45\.1 names com\.redhat\.openshift\.versions v4\.15-v4\.19/,
    );
    assert.doesNotMatch(outcome.fix, /upgrade OpenShift/);
    const notOlm = checkPlatformSupported(
      on72243((s) => {
        s.platform = 'openshift';
        s.openshiftVersion = '4.20.3';
      }),
      makeTarget({ to: '7.22.2-45' }),
    );
    assert.equal(notOlm.status, 'pass');
  });

  it('the release OperatorHub offers instead is planned through the kubeconfig and context ctl was given', () => {
    const snapshot = olmOn('4.20.3');
    snapshot.kubeTarget = { kubeconfigs: ['/k/prod.yaml'], context: 'prod east' };
    const outcome = checkPlatformSupported(snapshot, makeTarget({ to: '7.22.2-45' }));
    assert.match(
      outcome.fix,
      /^Choose a release OperatorHub offers here \(ctl --kubeconfig \/k\/prod\.yaml --context 'prod east' upgrade plan --to \S+\)/,
    );
  });

  it('the target list under OLM on 4.20 never offers 7.22.2-45', () => {
    const snapshot = olmOn('4.20.3');
    const list = listTargets(snapshot, makeTarget({ to: '8.0.20-27' }), 1, planUpgradePath);
    assert.ok(
      !list.targets.some((t) => t.operator.startsWith('7.22.2')),
      JSON.stringify(list.targets.map((t) => t.operator)),
    );
  });
});

describe('advisory triggers: a secret change', () => {
  it('the empty-password advisory says a change to the backup or a client certificate Secret triggers it too', async () => {
    const { checkReleaseAdvisories } = await import('../../../src/planning/advisories.js');
    const snapshot = on72243((s) => {
      s.activeActiveDatabases = [
        { name: 'geo', namespace: 'redis', participatingClusters: [{ name: 'rec' }] },
      ];
    });
    const outcome = checkReleaseAdvisories(snapshot, makeTarget({ to: '8.0.20-26' }));
    assert.equal(outcome.status, 'fail');
    assert.match(
      outcome.message,
      /a change to the backup Secret or a client certificate Secret triggers it too/,
    );
    const running = checkReleaseAdvisories(snapshot, makeTarget({ to: '8.0.20-27' }));
    assert.match(running.message, /triggers it too: change nothing of them before the upgrade/);
  });
});
