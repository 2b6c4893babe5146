import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import type { Scenario } from '../helpers/simulator.js';
import {
  assertExit,
  assertUpgraded,
  describeEntries,
  SharedUpgradeSim,
  TARGET,
  type UpgradeSim,
  withUpgradeSim,
} from './upgrade-support.js';
import { rejsonRhel9Package } from '../helpers/module-package.js';

/**
 * The api-permissions check (src/planning/checks/api-permissions.ts) against the simulated
 * management API, which answers GET /v1/users and /v1/roles and refuses with 403 each request
 * the user's role has no permission for (src/sim/rest/access.ts). ctl signs in with the
 * cluster's credentials Secret, whose user is the scenario's first.
 */

const TAG = clusterTagFor(TARGET) ?? '';
const TIMEOUT = { timeout: 180_000 };
const ADMIN = {
  username: 'admin@example.com',
  password: 'admin-pass',
  role: 'admin' as const,
  passwordExpired: false,
};
/** No CTL_USERNAME/CTL_PASSWORD: ctl reads the cluster's Secret, as a user who gives none does. */
const FROM_SECRET = { env: { CTL_USERNAME: '', CTL_PASSWORD: '' } };

function withUsers(
  users: Scenario['cluster']['users'],
  roles: Scenario['cluster']['roles'] = [],
): (scenario: Scenario) => Scenario {
  return (scenario) => ({ ...scenario, cluster: { ...scenario.cluster, users, roles } });
}

interface PlanCheck {
  id: string;
  status: string;
  message: string;
  fix: string;
}

function check(stdout: string, id = 'api-permissions'): PlanCheck {
  const found = (JSON.parse(stdout) as { checks: PlanCheck[] }).checks.find((c) => c.id === id);
  assert.ok(found, `the plan has no ${id} check:\n${stdout}`);
  return found;
}

function moduleFileIn(sim: UpgradeSim): string {
  // The simulated API reads a package's metadata from its name (upgrade-blocked.test.ts).
  return rejsonRhel9Package(sim.sandbox.dir);
}

const REMEDIATE = ['--ignore-check', 'modules-compatible', '--remediate', '--module-file'];

describe('api-permissions: a read-only API user (e2e)', () => {
  // module-without-rhel9 freezes at 7.8.2-6 until a RHEL9 build is uploaded (POST /v2/modules: admin only).
  const shared = new SharedUpgradeSim('module-without-rhel9', {
    patch: withUsers([
      { username: 'viewer@example.com', password: 'viewer-pass', role: 'db_viewer', passwordExpired: false },
      ADMIN,
    ]),
  });
  after(() => shared.close());

  it(
    'the plan with --remediate fails api-permissions (exit 3) with its fix; without it the check passes',
    TIMEOUT,
    () =>
      shared.use('the plans', async (sim) => {
        const file = moduleFileIn(sim);
        const plan = await sim.ctl(
          ['upgrade', 'plan', '--to', TARGET, ...REMEDIATE, file, '-o', 'json'],
          FROM_SECRET,
        );
        assertExit(plan, 3, 'the plan with --remediate');
        const judged = check(plan.stdout);
        assert.equal(judged.status, 'fail');
        assert.match(
          judged.message,
          /upload the --module-file package\(s\) \(POST \/v2\/modules, permission update_cluster\)/,
        );
        assert.match(
          judged.message,
          /from Secret rec\) may not: it is no admin \(GET \/v1\/users answered 403/,
        );
        assert.match(judged.fix, /management role admin/);
        assert.match(judged.fix, /CTL_USERNAME and CTL_PASSWORD/);
        assert.match(judged.fix, /Or run without --remediate/);
        // The plan read the role and wrote nothing (SharedUpgradeSim fails on any change).
        assert.equal(sim.cluster.audit.filter('GET', '/v1/users').at(-1)?.status, 403);

        const without = await sim.ctl(
          ['upgrade', 'plan', '--to', TARGET, '--ignore-check', 'modules-compatible', '-o', 'json'],
          FROM_SECRET,
        );
        assertExit(without, 0, 'the plan without --remediate');
        assert.equal(check(without.stdout).status, 'pass');
        assert.match(check(without.stdout).message, /changes nothing through the management API/);
      }),
  );

  it('the run with --remediate refuses in preflight (exit 3) before touching anything', TIMEOUT, () =>
    shared.use('the refused run', async (sim) => {
      const file = moduleFileIn(sim);
      const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', ...REMEDIATE, file], FROM_SECRET);
      assertExit(run, 3, 'the run');
      assert.match(run.stderr, /- api-permissions: the run will upload the --module-file package\(s\)/);
      assert.match(run.stderr, /management role admin/);
      const uploads = sim.cluster.audit.filter('POST', '/v2/modules');
      assert.equal(uploads.length, 0, describeEntries(uploads));
    }),
  );
});

describe('api-permissions: a role that may (e2e)', () => {
  it(
    'an RBAC user whose own role is admin: the plan is Ready and the remediating run finishes',
    TIMEOUT,
    async () => {
      await withUpgradeSim(
        'module-without-rhel9',
        async (sim) => {
          const file = moduleFileIn(sim);
          const plan = await sim.ctl(
            ['upgrade', 'plan', '--to', TARGET, ...REMEDIATE, file, '-o', 'json'],
            FROM_SECRET,
          );
          assertExit(plan, 0, 'the plan');
          const judged = check(plan.stdout);
          assert.equal(judged.status, 'pass');
          assert.match(
            judged.message,
            /may .*upload the --module-file package.*: its role is Upgraders \(admin\)$/,
          );
          // role_uids: its role read from GET /v1/roles.
          assert.equal(sim.cluster.audit.filter('GET', '/v1/roles').at(-1)?.status, 200);

          // Saved, the plan's Next line repeats --remediate and --module-file (a saved plan does
          // not record them); the run of the saved plan judges its own and remediates.
          const saved = path.join(sim.sandbox.dir, 'plan.json');
          const text = await sim.ctl(
            ['upgrade', 'plan', '--to', TARGET, ...REMEDIATE, file, '--out', saved],
            FROM_SECRET,
          );
          assertExit(text, 0, 'the saved plan');
          const next = /Next: (ctl [^\n]*)/.exec(text.stdout)?.[1] ?? '';
          assert.ok(next.startsWith(`ctl upgrade run --plan ${saved}`), text.stdout);
          assert.ok(next.includes(`--remediate --module-file ${file}`), next);
          const run = await sim.ctl(
            ['upgrade', 'run', '--plan', saved, '--yes', '--remediate', '--module-file', file],
            FROM_SECRET,
          );
          assertExit(run, 0, 'the run of the saved plan');
          const uploads = sim.cluster.audit.filter('POST', '/v2/modules');
          assert.equal(uploads.length, 1, describeEntries(uploads));
          assert.equal(uploads[0]?.status, 200);
          await assertUpgraded(sim, { operator: TARGET, tag: TAG, dbVersion: '7.4' });
        },
        {
          patch: withUsers(
            [
              {
                username: 'ops@example.com',
                password: 'ops-pass',
                role: 'none',
                roles: ['Upgraders'],
                passwordExpired: false,
              },
              ADMIN,
            ],
            [{ name: 'Upgraders', management: 'admin' }],
          ),
        },
      );
    },
  );
});

describe('api-permissions: a role the API does not tell (e2e)', () => {
  // old-database: a 6.2 database freezes 7.8.2-6; --remediate upgrades it (POST /v1/bdbs/<uid>/upgrade),
  // which cluster_member may, but a cluster_member cannot read its own role (GET /v1/users: 403).
  it(
    'a cluster_member: the plan warns (what may, how to check), and the run upgrades the database',
    TIMEOUT,
    async () => {
      await withUpgradeSim(
        'old-database',
        async (sim) => {
          const flags = ['--ignore-check', 'database-min-version', '--remediate'];
          const plan = await sim.ctl(
            ['upgrade', 'plan', '--to', TARGET, ...flags, '-o', 'json'],
            FROM_SECRET,
          );
          const judged = check(plan.stdout);
          assert.equal(judged.status, 'warn', JSON.stringify(judged));
          assert.match(judged.message, /the run will upgrade legacy \(uid \d+\)/);
          assert.match(judged.message, /the API does not tell/);
          assert.match(judged.fix, /POST \/v1\/bdbs\/<uid>\/upgrade needs admin, cluster_member, db_member/);
          assertExit(plan, 0, 'the plan (a warning lets it run)');
          const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', ...flags], FROM_SECRET);
          assertExit(run, 0, 'the run');
          const upgrades = sim.cluster.audit.filter('POST', /^\/v1\/bdbs\/\d+\/upgrade$/);
          assert.equal(upgrades.length, 1, describeEntries(upgrades));
          assert.equal(upgrades[0]?.status, 200);
        },
        {
          patch: withUsers([
            {
              username: 'member@example.com',
              password: 'member-pass',
              role: 'cluster_member',
              passwordExpired: false,
            },
            ADMIN,
          ]),
        },
      );
    },
  );
});
