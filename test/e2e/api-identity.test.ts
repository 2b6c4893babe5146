/**
 * Issue 35, finding 2, end to end: first contact checks whose management API it is. Kubernetes
 * points at cluster A, and CTL_API_URL (with B's credentials and CA) at cluster B's management
 * API. The BUILT `ctl upgrade plan` and `ctl upgrade run` refuse with exit 2 naming both sides,
 * before anything is recorded or changed on A: A's operator, cluster resource and state stay as
 * they were. Three ways the clusters differ: REC name and namespace (GET /v1/cluster's FQDN),
 * the databases behind the same names (REDB uid and name), and the same databases at other
 * versions (the reproduced case: B's databases passed the plan where A's own would not).
 */

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertExit, getPath, type UpgradeSim, withUpgradeSim } from './upgrade-support.js';

const TARGET = '7.8.2-6';

function scenario(dir: string, name: string, lines: string[]): string {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [`name: ${name}`, `description: "cluster ${name}"`, 'operator: { version: 7.4.6-2 }', ...lines, ''].join(
      '\n',
    ),
  );
  return file;
}

/** B's management API, its credentials and CA: what a user's leftover CTL_* env would hold. */
function apiOf(b: UpgradeSim): Record<string, string> {
  return {
    CTL_API_URL: b.env.CTL_API_URL ?? '',
    CTL_USERNAME: b.env.CTL_USERNAME ?? '',
    CTL_PASSWORD: b.env.CTL_PASSWORD ?? '',
    CTL_CA_FILE: b.env.CTL_CA_FILE ?? '',
  };
}

function files(dir: string | undefined): string[] {
  if (!dir || !existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true }).map(String);
}

describe('first contact: the management API must be the cluster resource’s', { timeout: 600_000 }, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-api-identity-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cases: { what: string; a: string[]; b: string[]; expected: RegExp; found: RegExp }[] = [
    {
      what: 'another REC name and namespace',
      a: [
        'namespace: team-a',
        'cluster: { name: alpha, versionTag: 7.4.6-22 }',
        'databases: [{ name: orders, version: "7.2" }]',
      ],
      b: [
        'namespace: team-b',
        'cluster: { name: beta, versionTag: 7.4.6-22 }',
        'databases: [{ name: orders, version: "7.2" }]',
      ],
      expected: /Kubernetes shows cluster alpha\.team-a\.svc\.cluster\.local \(REC team-a\/alpha\)/,
      found: /answered cluster beta\.team-b\.svc\.cluster\.local/,
    },
    {
      what: 'the same names, other databases',
      a: [
        'cluster: { versionTag: 7.4.6-22 }',
        'databases: [{ name: legacy, version: "6.2" }, { name: cache, version: "7.2" }]',
      ],
      b: [
        'cluster: { versionTag: 7.4.6-22 }',
        'databases: [{ name: orders, version: "7.2" }, { name: cache, version: "7.2" }]',
      ],
      expected: /Kubernetes shows REDB redis\/legacy \(database uid 1\)/,
      found: /answered database uid 1 named orders/,
    },
    {
      what: 'the same names and databases, at other versions',
      a: ['cluster: { versionTag: 7.4.6-22 }', 'databases: [{ name: orders, version: "6.2" }]'],
      b: ['cluster: { versionTag: 7.4.6-22 }', 'databases: [{ name: orders, version: "7.2" }]'],
      expected: /REDB redis\/orders \(database uid 1\) at 6\.2/,
      found: /answered database orders at 7\.2/,
    },
  ];

  for (const c of cases) {
    it(`${c.what}: plan and run exit 2 naming both, and nothing is recorded or changed`, async () => {
      const a = scenario(dir, `a-${cases.indexOf(c)}`, c.a);
      const b = scenario(dir, `b-${cases.indexOf(c)}`, c.b);
      await withUpgradeSim(a, async (simA) => {
        // A's own API: the plan reads it without complaint.
        const own = await simA.ctl(['upgrade', 'plan', '--to', TARGET]);
        assert.ok(own.code === 0 || own.code === 3, `A's own plan: exit ${own.code}\n${own.stderr}`);
        assert.doesNotMatch(own.stderr, /is not the one of/);
        await withUpgradeSim(b, async (simB) => {
          const env = apiOf(simB);
          const plan = await simA.ctl(['upgrade', 'plan', '--to', TARGET], { env });
          assertExit(plan, 2, 'plan against B');
          assert.match(plan.stderr, /the management API reached is not the one of/);
          assert.match(plan.stderr, c.expected);
          assert.match(plan.stderr, c.found);
          assert.match(plan.stderr, /--api-url \(or CTL_API_URL\)/);

          const operatorBefore = await simA.get(['deployment', 'redis-enterprise-operator']);
          const stateBefore = files(simA.env.XDG_STATE_HOME);
          const run = await simA.ctl(['upgrade', 'run', '--to', TARGET, '--yes'], { env });
          assertExit(run, 2, 'run against B');
          assert.match(run.stderr, c.expected);
          assert.match(run.stderr, c.found);
          const operatorAfter = await simA.get(['deployment', 'redis-enterprise-operator']);
          assert.deepEqual(
            getPath(operatorAfter, ['spec', 'template', 'spec', 'containers']),
            getPath(operatorBefore, ['spec', 'template', 'spec', 'containers']),
            "A's operator is untouched",
          );
          assert.deepEqual(files(simA.env.XDG_STATE_HOME), stateBefore, 'no state recorded');
        });
      });
    });
  }
});
