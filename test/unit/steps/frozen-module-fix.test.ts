import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiBdb, ApiModule } from '../../../src/api/types.js';
import { OperationError } from '../../../src/errors.js';
import { moduleFix } from '../../../src/planning/module-fix.js';
import { dialectFields } from '../../../src/release/dialect.js';
import { remediateFrozenUpgrade } from '../../../src/steps/remediate.js';
import {
  frozenError,
  type RemediationContext,
  remediationCommands,
} from '../../../src/steps/remediate-advice.js';
import { blockersFromApi } from '../../../src/steps/remediate-blockers.js';

/**
 * A frozen upgrade's module advice while the target takes uploads: the RHEL9 build of the version
 * in use ("The module version matches the version currently used by databases", redis/docs
 * rs/7.8/installing-upgrading/upgrading/upgrade-os.md), for RedisJSON 2.6.10, which has RHEL9
 * builds (from 2.6.7); never an upload for RedisGraph, which has none at all (RS 7.4.2 and 7.8
 * notes, "RedisGraph prevents upgrade to RHEL 9"): the printed commands, the hint and
 * --remediate all say to remove it.
 */
describe('frozen-upgrade advice per module', () => {
  const rhel8Only = { 'rhel8/x86_64': { dependencies: {}, sha256: '' } };
  const modules = [
    { uid: 'j1', module_name: 'ReJSON', semantic_version: '2.6.10', platforms: rhel8Only, is_bundled: true },
    { uid: 'g1', module_name: 'graph', semantic_version: '2.10.12', platforms: rhel8Only, is_bundled: true },
  ] as ApiModule[];
  const bdb = (uid: number, name: string, module: string, version: string) =>
    ({
      uid,
      name,
      redis_version: '7.2',
      module_list: [{ module_name: module, semantic_version: version }],
    }) as ApiBdb;
  const profiles = bdb(1, 'profiles', 'ReJSON', '2.6.10');
  const social = bdb(2, 'social', 'graph', '2.10.12');
  const context: RemediationContext = {
    kube: {},
    clusterName: 'meridian',
    namespace: 'survey',
    operatorNamespace: 'survey',
    fields: dialectFields('redis'),
    moduleFiles: [],
    databaseResources: [],
    targetOperator: '7.8.2-6',
  };

  it('the plan: the RHEL9 build of the version the databases use', () => {
    const fix = moduleFix({
      kube: {},
      targetOperator: '7.8.2-6',
      module: 'ReJSON',
      version: '2.6.10',
      isBundled: true,
      cluster: { name: 'meridian', namespace: 'survey' },
      databases: ['profiles'],
    });
    assert.match(fix, /^upload the RHEL9 build of ReJSON 2\.6\.10, the version the databases use: curl /);
    assert.match(fix, /-X POST -F module=@MODULE_RHEL9_ZIP https:\/\/localhost:9443\/v2\/modules$/);
    // No run that modules-compatible itself would stop (it fails): the check adds the one that works.
    assert.doesNotMatch(fix, /--remediate/);
  });

  it('a module with a RHEL9 build: the upload of its package, and --remediate --module-file', () => {
    const blockers = blockersFromApi([profiles], modules, '7.2');
    const text = remediationCommands(blockers, context).join('\n');
    assert.match(text, /# install the RHEL9 build of each module, of the version in use:/);
    assert.match(
      text,
      /-X POST -F module=@REJSON-2\.6\.10-RHEL9-PACKAGE\.zip https:\/\/localhost:9443\/v2\/modules/,
    );
    assert.doesNotMatch(text, /RedisGraph/);
    const error = frozenError(blockers, context, []);
    assert.match(error.hint ?? '', /--remediate --module-file MODULE_RHEL9_ZIP; it resumes the monitor step/);
  });

  it('RedisGraph beside it: its removal, no upload of it, and no --remediate offered', () => {
    const blockers = blockersFromApi([profiles, social], modules, '7.2');
    const text = remediationCommands(blockers, context).join('\n');
    assert.match(
      text,
      /# RedisGraph \(graph\) is end of life and has no RHEL9 build at all.*move the data of social off and delete that database/,
    );
    assert.match(text, /module=@REJSON-2\.6\.10-RHEL9-PACKAGE\.zip/);
    assert.doesNotMatch(text, /graph-2\.10\.12-rhel9|module=@<graph/);
    const error = frozenError(blockers, context, []);
    assert.match(
      error.message,
      /module graph 2\.10\.12 has no rhel9 build installed \(used by social \(uid 2\)\)/,
    );
    assert.match(
      error.hint ?? '',
      /^graph has no RHEL9 build, so nothing can be uploaded for it and --remediate cannot fix it: remove it as the commands above say and run the other commands, then run the same ctl command again/,
    );
    assert.doesNotMatch(error.hint ?? '', /--module-file/);
  });

  it('RedisGraph alone: no upload lines at all', () => {
    const blockers = blockersFromApi([social], modules, '7.2');
    const text = remediationCommands(blockers, context).join('\n');
    assert.match(text, /RedisGraph \(graph\) is end of life/);
    assert.doesNotMatch(text, /\/v2\/modules|install the RHEL9 build/);
    assert.match(
      frozenError(blockers, context, []).hint ?? '',
      /remove it as the commands above say, then run/,
    );
  });

  it('--remediate refuses RedisGraph before changing anything, even with a --module-file', async () => {
    const blockers = blockersFromApi([social], modules, '7.2');
    const refusing = {
      deps: {
        // Nothing may be read or written: the refusal comes first.
        api: new Proxy({}, { get: () => assert.fail('the management API was used') }),
        settings: { moduleFiles: ['graph.Linux-rhel9-x86_64.2.10.12.zip'] },
      },
      recordIntent: () => assert.fail('an intent was recorded'),
    };
    await assert.rejects(
      remediateFrozenUpgrade(refusing as never, blockers, context, { actions: [] }),
      (error: unknown) => {
        assert.ok(error instanceof OperationError);
        assert.match(
          error.message,
          /^cannot remediate by upload: module graph 2\.10\.12 has no rhel9 build installed/,
        );
        assert.match(error.hint ?? '', /RedisGraph \(graph\) is end of life.*Nothing was changed\.$/);
        return true;
      },
    );
  });

  it('frozen on a hop before the last: no ctl command names the hop as its --to', () => {
    // The hop's plan is what the monitor reads (monitor-frozen.ts remediationContextOf): its
    // target is the stop. A `ctl upgrade run --to <stop>` would end a multi-hop upgrade there;
    // the advice says to run the same command again (the run's resume line names its own --to).
    const custom = [
      { uid: 'c1', module_name: 'acme', semantic_version: '1.2.3', platforms: rhel8Only, is_bundled: false },
    ] as ApiModule[];
    for (const [stop, apiModules, database] of [
      ['7.8.2-6', modules.slice(0, 1), profiles],
      ['8.0.6-8', custom, bdb(3, 'ledger', 'acme', '1.2.3')],
    ] as const) {
      const error = frozenError(
        blockersFromApi([database], [...apiModules], '7.2'),
        { ...context, targetOperator: stop },
        [],
      );
      const text = `${error.message}\n${error.hint ?? ''}`;
      assert.doesNotMatch(text, /ctl upgrade run|--to\b/, stop);
      assert.match(error.hint ?? '', /run the same ctl command again/, stop);
    }
  });

  it('a target that takes no module uploads (8.0.2-2 on): no --remediate --module-file offered', () => {
    // remediateFrozenUpgrade refuses every module for such a target: the hint offers only what works.
    for (const stop of ['8.0.2-2', '8.0.6-8', '8.2.0-18']) {
      const blockers = blockersFromApi([profiles], modules.slice(0, 1), '7.2');
      const hint = frozenError(blockers, { ...context, targetOperator: stop }, []).hint ?? '';
      assert.doesNotMatch(hint, /--module-file|MODULE_RHEL9_ZIP|with --remediate/, stop);
      assert.match(
        hint,
        new RegExp(
          `^The ${stop.replaceAll('.', '\\.')} cluster takes no module uploads, so --remediate cannot fix ReJSON: do what the commands above say, then run the same ctl command again; it resumes the monitor step\\.$`,
        ),
        stop,
      );
    }
    // A database below the minimum beside it: --remediate upgrades it once the module is fixed.
    const old = { ...profiles, uid: 5, name: 'legacy', redis_version: '6.2', module_list: [] } as ApiBdb;
    const both = blockersFromApi([profiles, old], modules.slice(0, 1), '7.2');
    assert.match(
      frozenError(both, { ...context, targetOperator: '8.0.6-8' }, []).hint ?? '',
      /do what the commands above say \(then the same ctl command with --remediate can upgrade the databases\)/,
    );
    // A target that takes uploads still gets the offer.
    assert.match(
      frozenError(blockersFromApi([profiles], modules.slice(0, 1), '7.2'), context, []).hint ?? '',
      /--remediate --module-file MODULE_RHEL9_ZIP/,
    );
  });
});
