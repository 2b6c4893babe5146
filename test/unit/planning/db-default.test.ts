import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bundledDatabaseVersions, defaultDatabaseVersion } from '../../../src/release/catalog.js';
import { resolveUpgrade } from '../../../src/planning/resolve.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

/** A 6.2.10 cluster whose database runs 6.0: RS 6.2 bundles 6.0 and 6.2 but gives databases 6.0. */
function onRs62(policy?: string) {
  return makeSnapshot((s) => {
    s.operator!.version = '6.2.10-45';
    s.operator!.image = 'redislabs/operator:6.2.10-45';
    s.cluster!.image.versionTag = '6.2.10-129';
    s.cluster!.upgradePolicy = policy;
    s.cluster!.bundledDatabaseVersions = [
      { dbType: 'redis', version: '6.0.20', major: true },
      { dbType: 'redis', version: '6.2.13', major: true },
    ];
    s.api.nodes = s.api.nodes.map((n) => ({ ...n, software_version: '6.2.10-129' }));
    s.databases[0]!.versionSpec = '6.0';
    s.databases[0]!.statusVersion = '6.0.20';
    s.api.bdbs[0]!.redis_version = '6.0';
  });
}

describe('the default database target is the one the docs prescribe for the target release', () => {
  it('the catalog knows a release whose default is not its newest bundled version', () => {
    assert.equal(defaultDatabaseVersion('6.2.18'), '6.0');
    assert.equal(bundledDatabaseVersions('6.2.18')?.at(-1), '6.2');
  });

  it('without --db-version: the prescribed default (6.0), not the newest bundled (6.2)', () => {
    const resolved = resolveUpgrade(onRs62(), makeTarget({ to: '6.2.18-41' }));
    assert.equal(resolved.databaseVersion, '6.0');
    assert.deepEqual(
      resolved.databases.map((d) => [d.name, d.target, d.reason]),
      [['db1', undefined, 'already runs 6.0']],
    );
  });

  it('policy major goes no further than the prescribed default either', () => {
    const resolved = resolveUpgrade(onRs62('major'), makeTarget({ to: '6.2.18-41' }));
    assert.equal(resolved.databases[0]?.target, undefined);
    assert.equal(resolved.databases[0]?.reason, 'already runs 6.0');
  });

  it('--db-version latest asks for the newest: the word goes to the operator', () => {
    const resolved = resolveUpgrade(onRs62(), makeTarget({ to: '6.2.18-41', dbVersion: 'latest' }));
    assert.equal(resolved.databases[0]?.target, 'latest');
  });

  it('--db-version 6.2 is taken as given', () => {
    const resolved = resolveUpgrade(onRs62(), makeTarget({ to: '6.2.18-41', dbVersion: '6.2' }));
    assert.equal(resolved.databases[0]?.target, '6.2');
  });
});
