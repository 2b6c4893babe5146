/**
 * RS 8.2's database-scoped management roles, end to end: an API user whose role is limited to
 * some databases "see[s] only their authorized databases in ... REST API responses, including
 * database lists" (redis/docs rs-8-2-0-25.md). The BUILT `ctl upgrade plan` against the simulator
 * (which serves GET /v1/bdbs so) must not take the database it cannot see for a sign that the API
 * is another cluster's (exit 2, "not the one of"), and must not say Ready either: the checks
 * judge the databases from the API's list and the run verifies each one there. api-reachable
 * fails, firm, naming the database, both possible causes and the fixes (exit 3).
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Scenario } from '../helpers/simulator.js';
import { assertExit, withUpgradeSim } from './upgrade-support.js';

interface PlanCheck {
  id: string;
  status: string;
  message: string;
  fix: string;
}

/** Two databases; the only API user (ctl signs in as it) holds a db_member role limited to the second. */
function scopedToLedger(scenario: Scenario): Scenario {
  const [cache] = scenario.databases;
  assert.ok(cache, 'modules-upload-disabled has a database');
  return {
    ...scenario,
    databases: [cache, { ...cache, name: 'ledger', uid: 2 }],
    cluster: {
      ...scenario.cluster,
      users: [
        {
          username: 'team@example.com',
          password: 'team-pass',
          role: 'none',
          roles: ['Ledger keepers'],
          passwordExpired: false,
        },
      ],
      roles: [{ name: 'Ledger keepers', management: 'db_member', databases: ['ledger'] }],
    },
  };
}

describe('a management API user limited to some databases (RS 8.2, e2e)', () => {
  it(
    'the plan fails api-reachable, firm, naming the unseen database; not "another cluster"',
    { timeout: 240_000 },
    async () => {
      await withUpgradeSim(
        'modules-upload-disabled',
        async (sim) => {
          const plan = await sim.ctl(['upgrade', 'plan', '--to', '8.2.0-18', '-o', 'json']);
          assertExit(plan, 3, 'the plan of a user who sees one database of two');
          assert.doesNotMatch(plan.stderr, /is not the one of/);
          const bdbs = sim.cluster.audit.filter('GET', '/v1/bdbs').at(-1);
          assert.equal(bdbs?.status, 200, 'the user may list databases: the API lists only its own');
          const checks = (JSON.parse(plan.stdout) as { checks: PlanCheck[] }).checks;
          const reachable = checks.find((c) => c.id === 'api-reachable');
          assert.equal(reachable?.status, 'fail', JSON.stringify(reachable));
          assert.match(
            reachable?.message ?? '',
            /does not list the database\(s\) of [a-z0-9-]+\/cache \(uid \d+\)/,
          );
          assert.match(reachable?.message ?? '', /a role limited to some databases \(RS 8\.2 and later\)/);
          assert.match(reachable?.fix ?? '', /Give the API user's role every database/);
          assert.doesNotMatch(plan.stdout + plan.stderr, /team-pass/, 'the password is never printed');

          // --ignore-check cannot get past it: the run would judge and verify without that database.
          const ignored = await sim.ctl([
            'upgrade',
            'plan',
            '--to',
            '8.2.0-18',
            '--ignore-check',
            'api-reachable',
          ]);
          assertExit(ignored, 3, 'the plan with --ignore-check api-reachable');
          assert.match(ignored.stderr + ignored.stdout, /api-reachable/);
        },
        { patch: scopedToLedger },
      );
    },
  );
});
