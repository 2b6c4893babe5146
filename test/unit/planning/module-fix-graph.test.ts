/**
 * RedisGraph has no RHEL 9 build at all (redis/docs RS 7.4.2 and 7.8 release notes, "Known
 * limitations", "RedisGraph prevents upgrade to RHEL 9"), so the fix modules-compatible gives for
 * it is the catalog rule redisgraph-blocks-rhel9's: remove it, or stay on RHEL 8 images. Never an
 * upload, a --remediate or a spec.userDefinedModules entry, whatever the target's RS.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runChecks } from '../../../src/planning/checks/index.js';
import { hasNoRhel9Build, listedAsUserDefined, moduleFix } from '../../../src/planning/module-fix.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

const cluster = { name: 'atlas', namespace: 'maps' };

describe('RedisGraph in modules-compatible', () => {
  it('the fix removes it for every kind of target: uploads, bundled RS 8, user-defined modules', () => {
    assert.equal(hasNoRhel9Build('graph'), true);
    assert.equal(hasNoRhel9Build('search'), false);
    for (const targetOperator of ['7.8.2-6', '7.22.2-45', '8.0.6-8', '8.2.0-18']) {
      const fix = moduleFix({
        targetOperator,
        kube: {},
        currentOperator: '7.4.6-2',
        module: 'graph',
        cluster,
        databases: ['routes'],
      });
      assert.match(fix, /RedisGraph \(graph\) is end of life and has no RHEL9 build at all/, targetOperator);
      assert.match(
        fix,
        /remove it from the cluster before the upgrade \(move the data of routes off and delete that database, then delete the module/,
      );
      assert.match(fix, /or stay on a release before 7\.8\.2-6 \(RHEL8 images\)/);
      assert.doesNotMatch(fix, /upload the|--remediate|userDefinedModules|POST/, targetOperator);
    }
  });

  it('listing graph in --user-defined-modules fixes nothing', () => {
    const listed = [{ name: 'graph' }];
    assert.equal(
      listedAsUserDefined({ targetOperator: '8.0.6-8', module: 'graph', isBundled: false }, [], listed),
      false,
    );
    assert.equal(
      listedAsUserDefined(
        { targetOperator: '8.0.6-8', module: 'geo', isBundled: false },
        [],
        [{ name: 'geo' }],
      ),
      true,
    );
  });

  function modulesCheck(modules: { name: string; platforms: string[] }[]) {
    const snapshot = makeSnapshot((s) => {
      s.api.modules = modules.map((m, i) => ({
        uid: `m${i}`,
        module_name: m.name,
        semantic_version: '2.10.12',
        platforms: Object.fromEntries(m.platforms.map((p) => [p, {}])),
      }));
      s.api.bdbs = [
        {
          uid: 1,
          name: 'routes',
          redis_version: '7.2',
          module_list: modules.map((m) => ({ module_name: m.name, semantic_version: '2.10.12' })),
        },
      ];
    });
    const check = runChecks(snapshot, makeTarget({ to: '7.8.2-6' }), { required: REQUIRED_PERMISSIONS }).find(
      (c) => c.id === 'modules-compatible',
    );
    assert.ok(check);
    return check;
  }

  it('graph alone: no upload offered, not even --remediate', () => {
    const check = modulesCheck([{ name: 'graph', platforms: ['rhel8/x86_64'] }]);
    assert.equal(check.status, 'fail');
    assert.match(check.fix, /^For each module: RedisGraph \(graph\)/);
    assert.doesNotMatch(check.fix, /--remediate|\/v2\/modules/);
  });

  it('graph beside a module an upload fixes: each gets its own fix, --remediate for the other', () => {
    const check = modulesCheck([
      { name: 'graph', platforms: ['rhel8/x86_64'] },
      { name: 'geo', platforms: ['rhel8/x86_64'] },
    ]);
    assert.equal(check.status, 'fail');
    assert.match(check.fix, /RedisGraph \(graph\) is end of life/);
    assert.match(check.fix, /upload the RHEL9 build of geo/);
    assert.match(
      check.fix,
      /Or let ctl upload it when the upgrade freezes: ctl upgrade run --to \S+ --ignore-check modules-compatible --remediate --module-file RHEL9_PACKAGE \(its RHEL9 package\)\.$/,
    );
  });
});
