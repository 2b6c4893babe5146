import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { parseDatabases, resolveTarget } from '../../../src/planning/target.js';

describe('resolveTarget', () => {
  it('defaults: method auto, all databases, no ignored checks, the upstream helm chart', () => {
    assert.deepEqual(resolveTarget({ to: 'v7.8.2-6' }), {
      operator: '7.8.2-6',
      clusterVersion: undefined,
      databaseVersion: undefined,
      method: 'auto',
      databases: { kind: 'all' },
      ignoreChecks: [],
      bundle: undefined,
      // Defaults are applied where they are used (src/planning/resolve.ts helmLocation), not here.
      helm: { release: undefined, chart: undefined, repo: undefined },
    });
  });

  it('takes every flag', () => {
    const target = resolveTarget({
      to: '8.0.2-6',
      clusterVersion: '8.0.2-41',
      dbVersion: '8.2',
      method: 'helm',
      databases: 'db1,apps/db2',
      ignoreCheck: ['license-valid', 'permissions,upgrade-path'],
      helmRelease: 'rep',
      helmChart: './chart',
      helmRepo: 'https://example.test/charts',
      bundle: 'https://example.test/{version}/bundle.yaml',
    });
    assert.equal(target.clusterVersion, '8.0.2-41');
    assert.equal(target.databaseVersion, '8.2');
    assert.equal(target.method, 'helm');
    assert.deepEqual(target.databases, { kind: 'names', names: ['db1', 'apps/db2'] });
    assert.deepEqual(target.ignoreChecks, ['license-valid', 'permissions', 'upgrade-path']);
    assert.deepEqual(target.helm, { release: 'rep', chart: './chart', repo: 'https://example.test/charts' });
  });

  it('accepts the database policy words', () => {
    assert.equal(resolveTarget({ to: '7.8.2-6', dbVersion: 'latest' }).databaseVersion, 'latest');
  });

  const bad: [string, Parameters<typeof resolveTarget>[0], RegExp][] = [
    ['missing --to', {}, /--to is required/],
    ['malformed --to', { to: '7.8' }, /--to: "7.8" is not an operator version/],
    ['unknown release without --cluster-version', { to: '9.9.9-1' }, /does not know this operator version/],
    ['bad --cluster-version', { to: '7.8.2-6', clusterVersion: 'latest' }, /--cluster-version/],
    ['bad --db-version', { to: '7.8.2-6', dbVersion: '7' }, /--db-version: "7" is not a database version/],
    ['bad --method', { to: '7.8.2-6', method: 'operatorhub' }, /--method must be auto, helm, bundle or olm/],
    [
      'bad --ignore-check',
      { to: '7.8.2-6', ignoreCheck: ['licence'] },
      /--ignore-check: "licence" is not a check id/,
    ],
    ['bad --databases', { to: '7.8.2-6', databases: 'Bad_Name' }, /--databases/],
    ['empty --helm-release', { to: '7.8.2-6', helmRelease: ' ' }, /--helm-release must not be empty/],
  ];
  for (const [name, flags, message] of bad) {
    it(`usage error: ${name}`, () => {
      assert.throws(
        () => resolveTarget(flags),
        (error: unknown) =>
          error instanceof UsageError && message.test(error.message) && error.exitCode === 2,
      );
    });
  }

  it('a bundle URL that does not parse is refused at once, shown without its credentials', () => {
    // It reached the plan's probe, which threw out of every message's reach: Node printed the
    // URL, password and all, and ctl died (an unhandled rejection).
    for (const bundle of [
      'https://mirror:S3cret@pw@ho[st/{version}/bundle.yaml?token=T0ken',
      'http://mirror:S3cret@pw@host:99999/{version}/bundle.yaml',
    ]) {
      assert.throws(
        () => resolveTarget({ to: '7.8.2-6', bundle }),
        (error: unknown) =>
          error instanceof UsageError &&
          /--bundle \(or CTL_BUNDLE\) "https?:\/\/\*\*\*@ho.* is not a URL/.test(error.message) &&
          !/S3cret|pw@|T0ken/.test(error.message),
      );
    }
    const good = 'https://mirror:S3cret@example.test/{version}/bundle.yaml';
    assert.equal(resolveTarget({ to: '7.8.2-6', bundle: good }).bundle, good);
    assert.equal(resolveTarget({ to: '7.8.2-6', bundle: './bundle.yaml' }).bundle, './bundle.yaml');
  });

  it('an unknown release (a typo, most often) is pointed first at the list of known targets', () => {
    assert.throws(
      () => resolveTarget({ to: '8.2.0-81' }),
      (error: unknown) =>
        error instanceof UsageError &&
        /^Check the version: ctl upgrade plan without --to lists the targets ctl knows for this cluster\. /.test(
          error.hint ?? '',
        ) &&
        /--cluster-version IMAGE_TAG/.test(error.hint ?? ''),
    );
  });

  it('an unknown release is fine with --cluster-version', () => {
    assert.equal(resolveTarget({ to: '9.9.9-1', clusterVersion: '9.9.9-10' }).clusterVersion, '9.9.9-10');
  });
});

describe('parseDatabases', () => {
  it('all, none, names', () => {
    assert.deepEqual(parseDatabases(undefined), { kind: 'all' });
    assert.deepEqual(parseDatabases('all'), { kind: 'all' });
    assert.deepEqual(parseDatabases('none'), { kind: 'none' });
    assert.deepEqual(parseDatabases(' a , b,a '), { kind: 'names', names: ['a', 'b'] });
  });
});
