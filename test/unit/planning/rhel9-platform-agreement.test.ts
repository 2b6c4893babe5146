import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiBdb, ApiModule } from '../../../src/api/types.js';
import { runChecks } from '../../../src/planning/checks/index.js';
import { upgradeBlockers } from '../../../src/sim/operator/freeze.js';
import { RestModel } from '../../../src/sim/rest/model.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';
import { blockersFromApi } from '../../../src/steps/remediate-blockers.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

/**
 * One rule for "a RHEL9 build" across the plan (modules-compatible), the run's frozen-upgrade
 * remediation (blockersFromApi) and the simulator's freeze: RAMP's RLEC_OS_MAP, exact names. A
 * `rocky9/...` key is a RHEL9 build; `rhel9.4/...` is no name the map has. Before, the plan took
 * any key starting `rhel9` while the run and the simulator took only `rhel9/`.
 */
describe('a RHEL9 build: the plan, the run and the simulator agree', () => {
  const cases: { platforms: string[]; rhel9: boolean }[] = [
    { platforms: ['rhel8/x86_64', 'rhel9/x86_64'], rhel9: true },
    { platforms: ['rocky9/x86_64'], rhel9: true },
    { platforms: ['almalinux9/aarch64'], rhel9: true },
    { platforms: ['rhel9.4/x86_64'], rhel9: false },
    { platforms: ['rhel8/x86_64', 'rhel9.4/x86_64'], rhel9: false },
    { platforms: ['rhel8/x86_64'], rhel9: false },
  ];

  for (const { platforms, rhel9 } of cases) {
    it(`${platforms.join(', ')}: ${rhel9 ? 'a RHEL9 build' : 'no RHEL9 build'}`, () => {
      const plan = runChecks(
        makeSnapshot((s) => {
          for (const m of s.api.modules) m.platforms = Object.fromEntries(platforms.map((p) => [p, {}]));
        }),
        makeTarget(),
        { required: REQUIRED_PERMISSIONS },
      ).find((c) => c.id === 'modules-compatible');
      assert.equal(plan?.status, rhel9 ? 'pass' : 'fail', plan?.message);

      const modules = [
        {
          uid: 'm1',
          module_name: 'search',
          semantic_version: '2.8.4',
          platforms: Object.fromEntries(platforms.map((p) => [p, { dependencies: {}, sha256: '' }])),
        },
      ] as ApiModule[];
      const bdbs = [
        {
          uid: 1,
          name: 'db1',
          redis_version: '7.2',
          module_list: [{ module_name: 'search', semantic_version: '2.8.4' }],
        },
      ] as ApiBdb[];
      const run = blockersFromApi(bdbs, modules, '7.2');
      assert.deepEqual(
        run.map((b) => b.kind),
        rhel9 ? [] : ['module'],
      );

      const simulator = upgradeBlockers(
        new RestModel({
          serverVersion: '7.4.6-22',
          modules: [{ name: 'search', version: '2.8.4', platforms }],
          bdbs: [
            {
              name: 'db1',
              namespace: 'redis',
              version: '7.2',
              modules: [{ name: 'search', version: '2.8.4' }],
            },
          ],
        }),
        '7.8.2-60',
        '7.8.2-6',
      );
      assert.deepEqual(
        simulator.map((b) => b.reason),
        rhel9 ? [] : ['UnsupportedModule'],
      );
    });
  }
});
