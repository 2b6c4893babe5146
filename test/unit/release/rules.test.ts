import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { resetCatalog, useCatalog, validateCatalogDocument } from '../../../src/release/catalog-data.js';
import {
  describeOpenshiftRange,
  olmOffersOn,
  parseOpenshiftVersions,
} from '../../../src/release/olm-openshift.js';
import {
  describeEndOfLife,
  endOfLifeOf,
  isNearEndOfLife,
  ruleAppliesTo,
  rulesFor,
} from '../../../src/release/rules.js';
import { operatorsShipping } from '../../../src/release/shipped-by.js';
import builtIn from '../../../src/release/catalog.json' with { type: 'json' };

afterEach(() => resetCatalog());

const day = (text: string) => new Date(`${text}T12:00:00Z`);

describe('release rules: which releases a rule applies to', () => {
  it('an operator list, a range, an RS bound and a running operator each narrow it', () => {
    assert.equal(ruleAppliesTo({ operators: ['8.0.2-2', '8.0.2-6'] }, { operator: '8.0.2-6' }), true);
    assert.equal(ruleAppliesTo({ operators: ['8.0.2-2', '8.0.2-6'] }, { operator: '8.0.6-8' }), false);
    assert.equal(
      ruleAppliesTo({ operatorFrom: '8.0.2-2', operatorBefore: '8.0.6-8' }, { operator: '8.0.2-6' }),
      true,
    );
    assert.equal(
      ruleAppliesTo({ operatorFrom: '8.0.2-2', operatorBefore: '8.0.6-8' }, { operator: '8.0.6-8' }),
      false,
    );
    assert.equal(ruleAppliesTo({ rsFrom: '8.0' }, { operator: '8.2.0-18', rs: [8, 2, 0] }), true);
    assert.equal(ruleAppliesTo({ rsFrom: '8.0' }, { operator: '7.22.2-45', rs: [7, 22, 2] }), false);
    // An RS bound with no RS known is not applied on a guess.
    assert.equal(ruleAppliesTo({ rsFrom: '8.0' }, { operator: '9.9.9-1' }), false);
    assert.equal(ruleAppliesTo({ rsBefore: '8.0.6' }, { operator: '8.0.2-6', rs: [8, 0, 2] }), true);
    const rhel9 = { operatorFrom: '7.8.2-6', runningOperatorBefore: '7.8.2-6' };
    assert.equal(ruleAppliesTo(rhel9, { operator: '7.22.2-45', running: '7.4.6-2' }), true);
    assert.equal(ruleAppliesTo(rhel9, { operator: '7.22.2-45', running: '7.8.2-6' }), false);
    assert.equal(ruleAppliesTo(rhel9, { operator: '7.22.2-45' }), false);
    const path = { operators: ['8.0.20-26'], runningOperators: ['7.22.2-43'] };
    assert.equal(ruleAppliesTo(path, { operator: '8.0.20-26', running: '7.22.2-43' }), true);
    assert.equal(ruleAppliesTo(path, { operator: '8.0.20-26', running: '7.22.2-42' }), false);
    assert.equal(ruleAppliesTo(path, { operator: '8.0.20-26' }), false);
  });

  it('the built-in rules: custom modules on 8.0.2-x, modules on RS 8, the 7.22.2-43 -> 8.0.20-26 path', () => {
    assert.deepEqual(
      rulesFor({ operator: '8.0.2-6', rs: [8, 0, 2] }).map((r) => r.id),
      [
        'custom-modules-skip-8-0-2',
        'rs8-rolling-upgrade-modules',
        'memcached-redis-version',
        'ldap-filters-parentheses-8-0-2-to-8-0-10',
        'active-active-module-commands-redis-8',
      ],
    );
    assert.deepEqual(
      rulesFor({ operator: '8.0.6-8', rs: [8, 0, 6] }).map((r) => r.id),
      [
        'rs8-rolling-upgrade-modules',
        'memcached-redis-version',
        'ldap-filters-parentheses-8-0-2-to-8-0-10',
        'active-active-module-commands-redis-8',
      ],
    );
    assert.deepEqual(
      rulesFor({ operator: '7.22.2-45', rs: [7, 22, 2] }).map((r) => r.id),
      ['memcached-redis-version', 'modules-list-latest-7-8-to-7-22'],
    );
    assert.deepEqual(rulesFor({ operator: '7.4.2-2', rs: [7, 4, 2] }), []);
    assert.ok(
      rulesFor({ operator: '8.0.20-26', rs: [8, 0, 20], running: '7.22.2-43' }).some(
        (r) => r.id === 'no-direct-7-22-2-43-to-8-0-20-26',
      ),
    );
    for (const rule of rulesFor({ operator: '8.0.2-2', rs: [8, 0, 2] }))
      assert.ok(
        rule.source.every((s) => s.startsWith('redis/docs@')),
        rule.id,
      );
  });

  it('a rule added with --catalog is judged like a built-in one, and replaces one of the same id', async () => {
    const extra = {
      format: 1 as const,
      updated: '2026-11-29',
      releases: [],
      rules: [
        {
          id: 'custom-modules-skip-8-0-2',
          summary: 'replaced',
          appliesTo: { operators: ['8.0.2-2'] },
          triggers: [{ kind: 'user-defined-modules' as const }],
          effect: 'warn' as const,
          fix: 'x',
          source: ['a test'],
        },
        {
          id: 'ldap-on-8-2',
          summary: 'a field used',
          appliesTo: { rsFrom: '8.2' },
          triggers: [{ kind: 'field-used' as const, resource: 'REC' as const, field: 'spec.ldap' }],
          effect: 'block' as const,
          fix: 'y',
          source: ['a test'],
        },
      ],
    };
    assert.deepEqual(await validateCatalogDocument(extra), []);
    useCatalog(extra, 'extra.json');
    assert.deepEqual(
      rulesFor({ operator: '8.0.2-2', rs: [8, 0, 2] }).map((r) => [r.id, r.effect]),
      [
        ['custom-modules-skip-8-0-2', 'warn'],
        ['rs8-rolling-upgrade-modules', 'warn'],
        ['memcached-redis-version', 'warn'],
        ['ldap-filters-parentheses-8-0-2-to-8-0-10', 'warn'],
        ['active-active-module-commands-redis-8', 'warn'],
      ],
    );
    assert.ok(rulesFor({ operator: '8.2.0-18', rs: [8, 2, 0] }).some((r) => r.id === 'ldap-on-8-2'));
  });

  it('the schema refuses a rule without a source or with an unknown trigger', async () => {
    const bad = {
      format: 1,
      updated: '2026-11-29',
      releases: [],
      rules: [
        {
          id: 'x',
          summary: 's',
          appliesTo: { rsFrom: '8.0' },
          triggers: [{ kind: 'moon' }],
          effect: 'block',
          fix: 'f',
        },
      ],
    };
    const problems = await validateCatalogDocument(bad);
    assert.ok(
      problems.some((p) => p.includes('source')),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) => p.includes('/rules/0/triggers/0')),
      problems.join('\n'),
    );
  });

  it('the built-in catalog is valid against the schema, rules and release lines included', async () => {
    assert.deepEqual(await validateCatalogDocument(builtIn), []);
  });
});

describe('release lines: end of life', () => {
  it('RS 7.4 ends on 2026-11-30: near the day before, past the day after', () => {
    const before = endOfLifeOf([7, 4, 6], day('2026-11-29'));
    assert.equal(before?.daysLeft, 1);
    assert.ok(isNearEndOfLife(before));
    assert.match(describeEndOfLife(before!), /reaches its end of life on 2026-11-30 \(in 1 day\)/);
    const after = endOfLifeOf([7, 4, 2], day('2026-12-03'));
    assert.equal(after?.daysLeft, -3);
    assert.match(describeEndOfLife(after!), /reached its end of life on 2026-11-30 \(3 days ago\)/);
    assert.ok(before!.source.some((s) => s.includes('product-lifecycle.md')));
  });

  it('a line far from its end, and one without a date, are not near', () => {
    assert.equal(isNearEndOfLife(endOfLifeOf([8, 0, 20], day('2026-11-29'))), false);
    assert.equal(endOfLifeOf([8, 2, 0], day('2026-11-29')), undefined);
    assert.equal(isNearEndOfLife(endOfLifeOf([7, 22, 2], day('2027-09-01'))), true);
  });
});

describe('which operator release shipped an RS build', () => {
  it('maps a participant build through the cluster tags, OpenShift tags too', () => {
    assert.deepEqual(operatorsShipping('8.0.20-96'), ['8.0.20-26']);
    assert.deepEqual(operatorsShipping('8.0.20-108.27'), ['8.0.20-27']);
    assert.deepEqual(operatorsShipping('7.22.2-179'), ['7.22.2-43']);
    assert.deepEqual(operatorsShipping('7.4.6-275.rhel8-openshift'), ['7.4.6-7']);
    // A re-published build maps to every release that lists it.
    assert.deepEqual(operatorsShipping('7.4.6-102'), ['7.4.6-2', '7.4.6-6']);
    assert.deepEqual(operatorsShipping('8.2.0-78'), ['8.2.0-15', '8.2.0-18']);
    assert.deepEqual(operatorsShipping('8.2.0-78.18'), ['8.2.0-18']);
    assert.deepEqual(operatorsShipping('8.0.20-95'), []);
    assert.deepEqual(operatorsShipping('8.0.20'), []);
  });
});

describe('OLM bundles: the OpenShift versions OperatorHub offers them on', () => {
  it('reads the annotation forms', () => {
    assert.deepEqual(parseOpenshiftVersions('v4.18-v4.21', 'b'), {
      annotation: 'v4.18-v4.21',
      bundle: 'b',
      min: '4.18',
      max: '4.21',
    });
    assert.equal(describeOpenshiftRange(parseOpenshiftVersions('v4.15')!), '4.15 or later');
    assert.equal(describeOpenshiftRange(parseOpenshiftVersions('=v4.15')!), '4.15');
    assert.equal(parseOpenshiftVersions('4.x'), undefined);
  });

  it('7.22.2-45 is not offered on OpenShift 4.20; 8.0.20-27 is; a release without an annotation is unknown', () => {
    assert.equal(olmOffersOn('7.22.2-45', '4.20'), false);
    assert.equal(olmOffersOn('7.22.2-45', '4.19'), true);
    assert.equal(olmOffersOn('8.0.20-27', '4.20'), true);
    assert.equal(olmOffersOn('8.0.20-27', '4.22'), false);
    assert.equal(olmOffersOn('6.0.12-5', '4.20'), undefined);
  });
});
