import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveUpgrade } from '../../../src/planning/resolve.js';
import { targetOfSavedPlan } from '../../../src/planning/saved-plan.js';
import { planUpgrade } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

/**
 * `run --plan` must decide each database as `run --to` does. The plan's target.databaseVersion
 * is the target's default when no --db-version was given; taken back as a --db-version it would
 * override the cluster's upgrade policy (major: no minor version) and a database whose version
 * field says major or latest (found by the generated-world test: a cluster of policy major whose
 * saved plan's run asked for 8.6, which the operator refused as a minor version).
 */
describe('a saved plan gives back the --db-version the user gave, not the default', () => {
  const majorSpec = makeSnapshot((s) => {
    s.databases[0]!.versionSpec = 'major';
  });

  it('without --db-version: none, so each database is decided as with --to', () => {
    const plan = planUpgrade(majorSpec, makeTarget());
    assert.equal(plan.target.databaseVersion, '7.4');
    const again = targetOfSavedPlan(plan, {});
    assert.equal(again.databaseVersion, undefined);
    assert.deepEqual(
      resolveUpgrade(majorSpec, again).databases.map((d) => [d.name, d.target, d.reason]),
      resolveUpgrade(majorSpec, makeTarget()).databases.map((d) => [d.name, d.target, d.reason]),
    );
    assert.equal(resolveUpgrade(majorSpec, again).databases[0]?.target, undefined);
  });

  it('with --db-version: the version given', () => {
    const plan = planUpgrade(majorSpec, makeTarget({ dbVersion: '7.4' }));
    assert.equal(plan.target.selection?.databaseVersion, '7.4');
    assert.equal(targetOfSavedPlan(plan, {}).databaseVersion, '7.4');
    assert.equal(resolveUpgrade(majorSpec, targetOfSavedPlan(plan, {})).databases[0]?.target, '7.4');
  });
});
