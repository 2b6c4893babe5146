/**
 * The trigger kinds a release rule can name (docs/catalog.schema.json `ruleTrigger`), each read
 * generically from the snapshot: field-value, platform, install-method, modules-in-use and
 * all-of; and the built-in rules that use them (the notes of 6.0.20-4, 6.2.8-11, 6.2.10-34,
 * 7.2.4-2, 7.4.2-12 on, 7.8.2-6 to 7.22).
 */

import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { checkReleaseRules, triggerFindings } from '../../../src/planning/release-rules.js';
import { resolveUpgrade } from '../../../src/planning/resolve.js';
import { ruleFieldValuesOf } from '../../../src/planning/rule-field-values.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import type { OlmSnapshot } from '../../../src/planning/olm.js';
import { resetCatalog, useCatalog, validateCatalogDocument } from '../../../src/release/catalog-data.js';
import { describeTrigger, rulesFor } from '../../../src/release/rules.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

afterEach(() => resetCatalog());

const TODAY = new Date('2026-06-01T10:00:00Z');

function judge(snapshot: Snapshot, to: string) {
  const target = makeTarget({ to });
  return checkReleaseRules(snapshot, target, resolveUpgrade(snapshot, target), TODAY);
}

const OLM: OlmSnapshot = { csv: 'redis-enterprise-operator.v6.0.12-5', installPlans: [] };

function openshift(version: string | undefined, mutate: (s: Snapshot) => void = () => {}): Snapshot {
  return makeSnapshot((s) => {
    s.platform = 'openshift';
    s.openshiftVersion = version;
    mutate(s);
  });
}

describe('release rule triggers', () => {
  it('field-value: only a value a rule lists is kept from the resource, and sets the trigger off', () => {
    const memcached = {
      apiVersion: 'app.redislabs.com/v1alpha1',
      kind: 'RedisEnterpriseDatabase',
      metadata: { name: 'sessions', namespace: 'kiosk' },
      spec: { type: 'memcached', memorySize: '1GB', defaultUser: 'not-read' },
    };
    assert.deepEqual(ruleFieldValuesOf(memcached, 'REDB'), { 'spec.type': 'memcached' });
    assert.equal(ruleFieldValuesOf({ ...memcached, spec: { type: 'redis' } }, 'REDB'), undefined);
    // No built-in rule names a field of the REC: nothing is read there.
    assert.equal(ruleFieldValuesOf({ ...memcached, kind: 'RedisEnterpriseCluster' }, 'REC'), undefined);

    const trigger = {
      kind: 'field-value' as const,
      resource: 'REDB' as const,
      field: 'spec.type',
      values: ['memcached'],
    };
    const snapshot = makeSnapshot((s) => {
      s.databases[0]!.ruleFieldValues = { 'spec.type': 'memcached' };
    });
    assert.deepEqual(triggerFindings(trigger, snapshot), ['spec.type: memcached on REDB redis/db1']);
    assert.deepEqual(triggerFindings(trigger, makeSnapshot()), []);
    assert.deepEqual(triggerFindings({ ...trigger, resource: 'REAADB' }, snapshot), []);
  });

  it('platform: the platform, and its x.y version when the rule lists versions', () => {
    const on47 = { kind: 'platform' as const, platform: 'openshift' as const, versions: ['4.7'] };
    assert.deepEqual(triggerFindings(on47, openshift('4.7.13')), ['OpenShift 4.7.13']);
    assert.deepEqual(triggerFindings(on47, openshift('4.17.2')), []);
    // A version that cannot be read sets no versioned trigger off.
    assert.deepEqual(triggerFindings(on47, openshift(undefined)), []);
    assert.deepEqual(triggerFindings(on47, makeSnapshot()), []);
    const anyOpenshift = { kind: 'platform' as const, platform: 'openshift' as const };
    assert.deepEqual(triggerFindings(anyOpenshift, openshift(undefined)), ['OpenShift']);
    const kube = { kind: 'platform' as const, platform: 'kubernetes' as const, versions: ['1.32'] };
    assert.deepEqual(triggerFindings(kube, makeSnapshot()), ['Kubernetes v1.32.0']);
  });

  it('install-method: OLM owns the Deployment, a helm release, or neither (the bundle)', () => {
    const olm = { kind: 'install-method' as const, methods: ['olm' as const] };
    const bundle = { kind: 'install-method' as const, methods: ['bundle' as const] };
    const helm = { kind: 'install-method' as const, methods: ['helm' as const] };
    const byOlm = makeSnapshot((s) => (s.olm = OLM));
    const byHelm = makeSnapshot((s) => (s.operator!.helmRelease = { name: 'ops', namespace: 'redis' }));
    assert.deepEqual(triggerFindings(olm, byOlm), ['an operator installed by OLM (OperatorHub)']);
    assert.deepEqual(triggerFindings(bundle, byOlm), []);
    assert.deepEqual(triggerFindings(helm, byHelm), ['an operator installed by helm']);
    assert.deepEqual(triggerFindings(bundle, makeSnapshot()), ['an operator installed by the bundle']);
    assert.deepEqual(
      triggerFindings(
        bundle,
        makeSnapshot((s) => (s.operator = undefined)),
      ),
      [],
    );
  });

  it('modules-in-use: any module, bundled or not, or only the named ones', () => {
    const snapshot = makeSnapshot();
    assert.deepEqual(triggerFindings({ kind: 'modules-in-use' }, snapshot), ['module search (used by db1)']);
    assert.deepEqual(triggerFindings({ kind: 'modules-in-use', modules: ['graph'] }, snapshot), []);
    const none = makeSnapshot((s) => {
      s.api.bdbs = s.api.bdbs.map((b) => ({ ...b, module_list: [] }));
      s.databases = s.databases.map((d) => ({ ...d, modules: [] }));
    });
    assert.deepEqual(triggerFindings({ kind: 'modules-in-use' }, none), []);
  });

  it('uploaded-modules: only what the management API reports as uploaded; no guess from a name', () => {
    const uploaded = makeSnapshot((s) => {
      s.api.modules.push({
        uid: 'u1',
        module_name: 'geofence',
        semantic_version: '1.0.0',
        is_bundled: false,
      });
      s.api.modules.push({ uid: 'g1', module_name: 'graph', semantic_version: '2.8.12', is_bundled: true });
      s.api.bdbs.push(
        { uid: 7, name: 'zones', module_list: [{ module_name: 'geofence', semantic_version: '1.0.0' }] },
        { uid: 8, name: 'paths', module_list: [{ module_name: 'graph', semantic_version: '2.8.12' }] },
      );
    });
    assert.deepEqual(triggerFindings({ kind: 'uploaded-modules' }, uploaded), [
      'module geofence, uploaded (used by zones)',
    ]);
    // A module known only from a database resource: the API does not say, nothing is set off.
    const unknown = makeSnapshot((s) => {
      s.databases[0]!.modules.push({ name: 'geofence', version: '1.0.0' });
    });
    assert.deepEqual(triggerFindings({ kind: 'uploaded-modules' }, unknown), []);
    // The 7.2.4-2 rule: an uploaded module blocks, RedisGraph that came bundled with the RS does not.
    const outcome = judge(uploaded, '7.2.4-2');
    assert.equal(outcome.status, 'fail', outcome.message);
    assert.match(outcome.message, /rule manual-modules-7-2-4-2 \(7\.2\.4-2\).*module geofence, uploaded/);
    assert.doesNotMatch(outcome.message, /module graph, uploaded/);
    assert.match(outcome.fix, /7\.2\.4-7/);
    assert.equal(judge(uploaded, '7.2.4-7').message.includes('manual-modules-7-2-4-2'), false);
  });

  it('all-of: every part must be set off, and the findings of all are named', () => {
    const both = {
      kind: 'all-of' as const,
      triggers: [
        { kind: 'platform' as const, platform: 'openshift' as const },
        { kind: 'modules-in-use' as const },
      ],
    };
    assert.deepEqual(triggerFindings(both, openshift('4.16.1')), [
      'OpenShift 4.16.1',
      'module search (used by db1)',
    ]);
    assert.deepEqual(triggerFindings(both, makeSnapshot()), []);
    assert.equal(describeTrigger(both), 'OpenShift, and a module in use (any)');
  });

  it('the schema takes the new kinds, nested all-of included, and refuses a malformed one', async () => {
    const rule = (triggers: unknown[]) => ({
      format: 1,
      updated: '2026-06-01',
      releases: [],
      rules: [
        {
          id: 'r',
          summary: 's',
          appliesTo: { operators: ['8.0.10-23'] },
          triggers,
          effect: 'warn',
          fix: 'f',
          source: ['t'],
        },
      ],
    });
    const good = rule([
      { kind: 'field-value', resource: 'REDB', field: 'spec.type', values: ['memcached', true, 3] },
      { kind: 'modules-in-use' },
      {
        kind: 'all-of',
        triggers: [
          { kind: 'platform', platform: 'openshift', versions: ['4.7'] },
          { kind: 'install-method', methods: ['olm', 'bundle'] },
        ],
      },
    ]);
    assert.deepEqual(await validateCatalogDocument(good), []);
    for (const bad of [
      { kind: 'all-of', triggers: [{ kind: 'modules-in-use' }] },
      { kind: 'platform', platform: 'openshift', versions: ['4.7.1'] },
      { kind: 'install-method', methods: ['operatorhub'] },
      { kind: 'field-value', resource: 'REDB', field: 'type', values: ['memcached'] },
      { kind: 'all-of', triggers: [{ kind: 'moon' }, { kind: 'upgrade' }] },
    ])
      assert.notDeepEqual(await validateCatalogDocument(rule([bad])), [], JSON.stringify(bad));
  });

  it('a --catalog rule of a new kind is judged without code', () => {
    useCatalog(
      {
        format: 1,
        updated: '2026-06-01',
        releases: [],
        rules: [
          {
            id: 'helm-on-openshift-8-0-10',
            summary: 'a test rule',
            appliesTo: { operators: ['8.0.10-23'] },
            triggers: [
              {
                kind: 'all-of',
                triggers: [
                  { kind: 'platform', platform: 'openshift', versions: ['4.16'] },
                  { kind: 'install-method', methods: ['helm'] },
                ],
              },
            ],
            effect: 'block',
            fix: 'Do something else.',
            source: ['a test'],
          },
        ],
      },
      'test.json',
    );
    const cluster = openshift(
      '4.16.9',
      (s) => (s.operator!.helmRelease = { name: 'ops', namespace: 'redis' }),
    );
    const outcome = judge(cluster, '8.0.10-23');
    assert.equal(outcome.status, 'fail', outcome.message);
    assert.match(
      outcome.message,
      /rule helm-on-openshift-8-0-10 .*OpenShift 4\.16\.9, an operator installed by helm/,
    );
  });
});

describe('built-in rules of the new kinds', () => {
  it('6.0.20-4 under OLM on OpenShift 4.7: blocked (it does not appear in OLM); by the bundle or on 4.8: not', () => {
    const olm47 = openshift('4.7.2', (s) => (s.olm = OLM));
    const outcome = judge(olm47, '6.0.20-4');
    assert.equal(outcome.status, 'fail', outcome.message);
    assert.match(
      outcome.message,
      /rule olm-openshift-4-7-skip-6-0-20-4 .*OpenShift 4\.7\.2, an operator installed by OLM/,
    );
    assert.match(outcome.message, /previous-releases\/k8s-6-0-20-4\.md/);
    assert.match(outcome.fix, /6\.0\.20-12/);
    assert.doesNotMatch(judge(openshift('4.7.2'), '6.0.20-4').message, /olm-openshift-4-7/);
    assert.doesNotMatch(
      judge(
        openshift('4.8.1', (s) => (s.olm = OLM)),
        '6.0.20-4',
      ).message,
      /olm-openshift-4-7/,
    );
  });

  it('6.2.10-34 on OpenShift with a module in use: blocked; on Kubernetes: not', () => {
    const outcome = judge(openshift('4.10.3'), '6.2.10-34');
    assert.equal(outcome.status, 'fail', outcome.message);
    assert.match(outcome.message, /rule openshift-modules-skip-6-2-10-34 .*module search \(used by db1\)/);
    assert.doesNotMatch(judge(makeSnapshot(), '6.2.10-34').message, /openshift-modules-skip/);
  });

  it('which releases the new rules apply to', () => {
    const ids = (operator: string, rs: [number, number, number]) =>
      rulesFor({ operator, rs }).map((r) => r.id);
    assert.deepEqual(ids('7.2.4-2', [7, 2, 4]), ['manual-modules-7-2-4-2']);
    assert.deepEqual(ids('7.2.4-7', [7, 2, 4]), []);
    assert.deepEqual(ids('6.2.8-11', [6, 2, 8]), ['bundle-crd-preserve-unknown-fields-6-2-8-11']);
    assert.deepEqual(ids('7.4.2-12', [7, 4, 2]), ['memcached-redis-version']);
    assert.deepEqual(ids('7.8.6-20', [7, 8, 6]), [
      'memcached-redis-version',
      'modules-list-latest-7-8-to-7-22',
    ]);
    assert.deepEqual(ids('7.22.2-45', [7, 22, 2]), [
      'memcached-redis-version',
      'modules-list-latest-7-8-to-7-22',
    ]);
    assert.ok(!ids('8.0.6-8', [8, 0, 6]).includes('modules-list-latest-7-8-to-7-22'));
  });

  it('RedisGraph on a RHEL 8 cluster blocks a RHEL 9 target, installed but unused too; a cluster already on RHEL 9 images is not judged', () => {
    const withGraph = (operator: string) =>
      makeSnapshot((s) => {
        s.operator!.version = operator;
        s.api.modules.push({ uid: 'g1', module_name: 'graph', semantic_version: '2.10.12' });
      });
    const outcome = judge(withGraph('7.4.6-2'), '7.8.6-20');
    assert.equal(outcome.status, 'fail', outcome.message);
    assert.match(
      outcome.message,
      /rule redisgraph-blocks-rhel9 \(operator 7\.8\.2-6 or later, from operators before 7\.8\.2-6\).*module graph 2\.10\.12 \(installed\)/,
    );
    assert.match(outcome.message, /rs-7-4-2-releases\/_index\.md/);
    assert.doesNotMatch(judge(withGraph('7.8.2-6'), '7.22.2-45').message, /redisgraph-blocks-rhel9/);
    assert.doesNotMatch(judge(withGraph('7.4.6-2'), '7.4.6-12').message, /redisgraph-blocks-rhel9/);
  });

  it('LDAP on the cluster resource: RS 8.0.10 to 8.0.16-29 blocks with 8.0.16-25 as the fix; 8.0.2 to 8.0.10 warns of the filters', () => {
    const ldap = makeSnapshot((s) => (s.cluster!.specFields = ['spec.ldap', 'spec.ldap.protocol']));
    const blocked = judge(ldap, '8.0.16-24');
    assert.equal(blocked.status, 'fail', blocked.message);
    assert.match(blocked.message, /rule ldap-ca-8-0-10-to-8-0-16-29 .*spec\.ldap of REC redis\/rec/);
    assert.match(blocked.fix, /--to 8\.0\.16-25/);
    const filters = judge(ldap, '8.0.6-8');
    assert.match(filters.message, /rule ldap-filters-parentheses-8-0-2-to-8-0-10/);
    assert.doesNotMatch(filters.message, /ldap-ca-8-0-10/);
    const fixed = judge(ldap, '8.0.16-25').message;
    assert.doesNotMatch(fixed, /ldap-/);
    assert.doesNotMatch(judge(makeSnapshot(), '8.0.16-24').message, /rule ldap-/);
  });

  it('an REAADB with modules on the way to RS 8 warns of module commands during the upgrade', () => {
    const aa = makeSnapshot((s) => {
      s.activeActiveDatabases = [
        {
          name: 'atlas',
          namespace: 'redis',
          participatingClusters: [],
          specFields: ['spec.globalConfigurations', 'spec.globalConfigurations.modulesList'],
        },
      ];
    });
    const outcome = judge(aa, '8.2.0-18');
    assert.match(
      outcome.message,
      /rule active-active-module-commands-redis-8 .*spec\.globalConfigurations\.modulesList of REAADB redis\/atlas/,
    );
    assert.doesNotMatch(judge(aa, '7.22.2-45').message, /active-active-module-commands/);
  });
});
