import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import type { Scenario } from '../helpers/simulator.js';
import { withCapture } from './sim-capture-support.js';
import { assertExit, TARGET, type UpgradeSim, withUpgradeSim } from './upgrade-support.js';
import { rejsonRhel9Package } from '../helpers/module-package.js';

/**
 * `ctl sim capture` of what the management API says (src/planning/scenario-capture.ts):
 *
 * An API user whose role the management API does not tell (capturedUser): the rehearsal's API
 * must answer the plan's reads of it as the original did, so `ctl upgrade plan` judges
 * api-permissions the same on both. One capture and one plan on each side per case.
 *
 * module-without-rhel9 with --remediate and a --module-file: the run will upload the module
 * (POST /v2/modules, admin only), the check's hardest question.
 */

const TIMEOUT = { timeout: 240_000 };
const ORIGINAL = 'module-without-rhel9';

interface PlanCheck {
  id: string;
  status: string;
  message: string;
  fix: string;
}

interface Judged {
  code: number | null;
  check: PlanCheck;
  /** What the plan's read of GET /v1/users answered. */
  usersAnswer: number | undefined;
}

async function judgePermissions(sim: UpgradeSim): Promise<Judged> {
  // RedisJSON's RHEL9 package: the module-packages check reads its module.json.
  const file = rejsonRhel9Package(sim.sandbox.dir);
  const plan = await sim.ctl([
    'upgrade',
    'plan',
    '--to',
    TARGET,
    '--ignore-check',
    'modules-compatible',
    '--remediate',
    '--module-file',
    file,
    '-o',
    'json',
  ]);
  assert.ok(plan.code === 0 || plan.code === 3, `plan exited ${plan.code}:\n${plan.stderr}`);
  const found = (JSON.parse(plan.stdout) as { checks: PlanCheck[] }).checks.find(
    (c) => c.id === 'api-permissions',
  );
  assert.ok(found, `the plan has no api-permissions check:\n${plan.stdout}`);
  return {
    code: plan.code,
    check: { id: found.id, status: found.status, message: found.message, fix: found.fix },
    usersAnswer: sim.cluster.audit.filter('GET', '/v1/users').at(-1)?.status,
  };
}

/** The original's only user: ctl signs in as it (the env file and the cluster's Secret name it). */
function onlyUser(user: Partial<Scenario['cluster']['users'][number]>): (scenario: Scenario) => Scenario {
  return (scenario) => ({
    ...scenario,
    cluster: {
      ...scenario.cluster,
      users: [
        { username: 'ops@example.com', password: 'ops-pass', role: 'admin', passwordExpired: false, ...user },
      ],
      roles: [],
    },
  });
}

/** Captures the original, plans on it, then plans on the capture. */
async function roundTrip(
  patch: (scenario: Scenario) => Scenario,
): Promise<{ original: Judged; rehearsal: Judged; doc: { cluster: { users: unknown[] } }; stderr: string }> {
  const { yaml, original, stderr } = await withUpgradeSim(
    ORIGINAL,
    async (sim) => {
      const captured = await sim.ctl(['sim', 'capture']);
      assertExit(captured, 0, 'ctl sim capture');
      return { yaml: captured.stdout, original: await judgePermissions(sim), stderr: captured.stderr };
    },
    { patch },
  );
  const rehearsal = await withCapture(ORIGINAL, yaml, judgePermissions);
  return { original, rehearsal, doc: parse(yaml) as { cluster: { users: unknown[] } }, stderr };
}

describe('ctl sim capture: an API user whose role the API does not tell (e2e)', { concurrency: 2 }, () => {
  it(
    'GET /v1/users refused (no admin): the rehearsal refuses it too and plans the same',
    TIMEOUT,
    async () => {
      const { original, rehearsal, doc, stderr } = await roundTrip(onlyUser({ role: 'db_viewer' }));
      assert.equal(original.usersAnswer, 403);
      assert.equal(rehearsal.usersAnswer, 403, 'the rehearsal refuses the list as the original did');
      assert.deepEqual(doc.cluster.users, [{ username: 'admin@example.com', role: 'cluster_member' }]);
      assert.match(stderr, /no admin \(GET \/v1\/users answered 403\)/);
      // The run will upload a module, which only an admin may: fail (ignorable: the role is inferred).
      assert.equal(original.check.status, 'fail');
      assert.match(original.check.message, /it is no admin/);
      assert.deepEqual(rehearsal.check, original.check);
      assert.equal(rehearsal.code, original.code, 'the same exit code');
    },
  );

  it(
    'a user the list does not show (LDAP): the rehearsal leaves it out too and plans the same',
    TIMEOUT,
    async () => {
      const { original, rehearsal, doc, stderr } = await roundTrip(onlyUser({ listed: false }));
      assert.equal(original.usersAnswer, 200);
      assert.equal(rehearsal.usersAnswer, 200);
      assert.deepEqual(doc.cluster.users, [{ username: 'admin@example.com', role: 'admin', listed: false }]);
      assert.match(stderr, /not among the users GET \/v1\/users lists/);
      // Whether it may upload, the API does not tell: warn.
      assert.equal(original.check.status, 'warn');
      assert.match(original.check.message, /the API does not tell/);
      assert.deepEqual(rehearsal.check, original.check);
      assert.equal(rehearsal.code, original.code, 'the same exit code');
    },
  );
});

describe('ctl sim capture: the RS 8.2 setting allow_modules_upload (e2e)', () => {
  it(
    'off on the original: the capture disables uploads, and the rehearsal API has the setting off',
    TIMEOUT,
    async () => {
      const yaml = await withUpgradeSim('modules-upload-disabled', async (sim) => {
        const captured = await sim.ctl(['sim', 'capture']);
        assertExit(captured, 0, 'ctl sim capture');
        return captured.stdout;
      });
      assert.deepEqual((parse(yaml) as { api?: unknown }).api, { modulesUpload: 'disabled' });
      await withCapture('modules-upload-disabled', yaml, (sim) => {
        const model = sim.cluster.rest.model;
        assert.equal(model.allowModulesUpload, false, 'GET /v1/cluster reports allow_modules_upload: false');
        return Promise.resolve();
      });
    },
  );
});

describe('ctl sim capture: a role limited to some databases, RS 8.2 (e2e)', () => {
  it(
    "the capture limits the rehearsal's role to the same database, and the plan judges the same",
    TIMEOUT,
    async () => {
      // Two databases, a role of the API user limited to the second (objects/role.md resources).
      // ctl reads its own roles only if it may list the users (admin or user_manager, neither of
      // which a role may limit), so the user holds the built-in User Manager role as well.
      const limited = (scenario: Scenario): Scenario => {
        const [cache] = scenario.databases;
        assert.ok(cache, 'modules-upload-disabled has a database');
        return {
          ...scenario,
          databases: [cache, { ...cache, name: 'ledger', uid: 2 }],
          cluster: {
            ...scenario.cluster,
            users: [
              {
                username: 'ops@example.com',
                password: 'ops-pass',
                role: 'none',
                roles: ['User Manager', 'Ledger keepers'],
                passwordExpired: false,
              },
            ],
            roles: [{ name: 'Ledger keepers', management: 'db_member', databases: ['ledger'] }],
          },
        };
      };
      const { yaml, original, stderr } = await withUpgradeSim(
        'modules-upload-disabled',
        async (sim) => {
          const captured = await sim.ctl(['sim', 'capture']);
          assertExit(captured, 0, 'ctl sim capture');
          return { yaml: captured.stdout, original: await judgePermissions(sim), stderr: captured.stderr };
        },
        { patch: limited },
      );
      const doc = parse(yaml) as { namespace: string; cluster: { roles?: unknown; users: unknown } };
      assert.deepEqual(doc.cluster.roles, [
        {
          name: 'Ledger keepers',
          management: 'db_member',
          databases: [`${doc.namespace}/ledger`],
        },
      ]);
      assert.deepEqual(doc.cluster.users, [
        { username: 'admin@example.com', role: 'none', roles: ['User Manager', 'Ledger keepers'] },
      ]);
      assert.doesNotMatch(stderr, /limited to some databases/);
      const rehearsal = await withCapture('modules-upload-disabled', yaml, async (sim) => {
        const model = sim.cluster.rest.model;
        const uid = (name: string) => String(model.bdbs.find((bdb) => bdb.name === name)?.uid);
        const role = model.roles.find((candidate) => candidate.name === 'Ledger keepers');
        assert.deepEqual(role?.resources, [{ type: 'db', uids: [uid('ledger')] }]);
        return judgePermissions(sim);
      });
      assert.deepEqual(rehearsal.check, original.check);
      assert.equal(rehearsal.code, original.code, 'the same exit code');
    },
  );
});

describe('ctl sim capture: a name that is a secret ctl knows (e2e)', () => {
  it('is redacted in the file --out writes as on stdout, and the file still loads', TIMEOUT, async () => {
    // The API user's password is also the name of one of its roles: stdout was redacted (as YAML
    // text, `name: [REDACTED]`, a list), the --out file held the password.
    const password = 'Keepers-Secret-7';
    const secretRole = (scenario: Scenario): Scenario => ({
      ...scenario,
      cluster: {
        ...scenario.cluster,
        users: [
          {
            username: 'ops@example.com',
            password,
            role: 'none',
            roles: ['User Manager', password],
            passwordExpired: false,
          },
        ],
        roles: [{ name: password, management: 'db_member' }],
      },
    });
    const { file, stdout } = await withUpgradeSim(
      'modules-upload-disabled',
      async (sim) => {
        const out = path.join(sim.sandbox.dir, 'captured.yaml');
        assertExit(await sim.ctl(['sim', 'capture', '--out', out]), 0, 'ctl sim capture --out');
        const printed = await sim.ctl(['sim', 'capture']);
        assertExit(printed, 0, 'ctl sim capture');
        return { file: readFileSync(out, 'utf8'), stdout: printed.stdout };
      },
      { patch: secretRole },
    );
    for (const [what, yaml] of [
      ['--out', file],
      ['stdout', stdout],
    ] as const) {
      assert.ok(!yaml.includes(password), `${what} holds the password`);
      const doc = parse(yaml) as { cluster: { roles?: { name: unknown }[] } };
      assert.deepEqual(
        doc.cluster.roles?.map((role) => role.name),
        ['[REDACTED]'],
        `${what}: the role's name is redacted as a string`,
      );
    }
  });
});
