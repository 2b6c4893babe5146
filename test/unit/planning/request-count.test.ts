/**
 * The request budget of `ctl upgrade plan` (docs/performance.md): at most 25 requests to both
 * APIs, the same for 10 and for 300 databases, counted in the simulator's audit log. Permissions
 * come from two SelfSubjectRulesReviews; a rules answer that is incomplete falls back to
 * SelfSubjectAccessReview, and a permission denied everywhere still fails the check with its
 * kubectl auth can-i fix. Not a timing test: the timings live in bench/.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { main } from '../../../src/main.js';
import { type SimulatedCluster, startSimulatedCluster } from '../../../src/sim/cluster.js';
import type { AccessDenial } from '../../../src/sim/kube/resources.js';
import { builtInScenarioDir, parseScenario } from '../../../src/sim/scenario.js';
import { rulesAllow } from '../../../src/planning/permissions.js';

const BUDGET = 25;
const RULES = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';
const ACCESS = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';

/** scale-1000 (20 namespaces, 100 modules, 9 nodes) with another number of databases. */
function scaled(databases: number): ReturnType<typeof parseScenario> {
  const text = readFileSync(path.join(builtInScenarioDir(), 'scale-1000.yaml'), 'utf8');
  const changed = text.replace(/(databases:\s*\n\s*count:\s*)1000/, `$1${databases}`);
  assert.notEqual(changed, text, 'scale-1000.yaml names its database count');
  return parseScenario(changed, `scale-${databases}`);
}

interface PlanRun {
  code: number;
  requests: { method: string; path: string }[];
  plan: { checks: { id: string; status: string; message: string; fix: string }[] };
}

async function planOn(sim: SimulatedCluster): Promise<PlanRun> {
  const state = mkdtempSync(path.join(tmpdir(), 'ctl-request-count-'));
  let stdout = '';
  let stderr = '';
  const before = sim.audit.entries.length;
  try {
    const code = await main(['upgrade', 'plan', '--to', '7.8.2-6', '-o', 'json'], {
      env: { ...sim.env, HOME: state, XDG_STATE_HOME: state, NO_COLOR: '1' },
      stdin: process.stdin,
      stdout: {
        write: (chunk: string) => {
          stdout += chunk;
          return true;
        },
      } as never,
      stderr: {
        write: (chunk: string) => {
          stderr += chunk;
          return true;
        },
      } as never,
    });
    assert.ok(code === 0 || code === 3, `exit ${code}\n${stderr}`);
    return {
      code,
      requests: sim.audit.entries
        .slice(before)
        .map((e) => ({ method: e.method, path: e.path.split('?')[0] ?? '' })),
      plan: JSON.parse(stdout) as PlanRun['plan'],
    };
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}

async function withSim<T>(databases: number, fn: (sim: SimulatedCluster) => Promise<T>): Promise<T> {
  const sim = await startSimulatedCluster({ scenario: scaled(databases), fast: true });
  try {
    return await fn(sim);
  } finally {
    await sim.stop();
  }
}

const count = (run: PlanRun, p: string): number => run.requests.filter((r) => r.path === p).length;
const check = (run: PlanRun, id: string) => run.plan.checks.find((c) => c.id === id);

describe('ctl upgrade plan request budget', () => {
  it('makes the same number of requests, at most 25, for 10 and for 300 databases in 20 namespaces', async () => {
    const small = await withSim(10, planOn);
    const large = await withSim(300, planOn);
    const list = (run: PlanRun) => run.requests.map((r) => `${r.method} ${r.path}`).join('\n');
    assert.equal(large.requests.length, small.requests.length, `10:\n${list(small)}\n300:\n${list(large)}`);
    assert.ok(large.requests.length <= BUDGET, `${large.requests.length} requests:\n${list(large)}`);
    // The permissions: two rules reviews (the namespace, and cluster-wide), no access review.
    assert.equal(count(large, RULES), 2);
    assert.equal(count(large, ACCESS), 0);
    assert.equal(check(large, 'permissions')?.status, 'pass', check(large, 'permissions')?.message);
  });

  it('a permission denied everywhere still fails the check with its kubectl auth can-i fix', async () => {
    await withSim(10, async (sim) => {
      sim.kube.accessDenials.push({
        verb: 'patch',
        resource: 'redisenterprisedatabases',
      } satisfies AccessDenial);
      const run = await planOn(sim);
      const permissions = check(run, 'permissions');
      assert.equal(permissions?.status, 'fail');
      assert.match(
        permissions?.message ?? '',
        /patch redisenterprisedatabases\.app\.redislabs\.com -n redis/,
      );
      assert.match(
        permissions?.fix ?? '',
        // With the kubeconfig the plan read, when one was chosen.
        /kubectl (--kubeconfig \S+ )?auth can-i patch redisenterprisedatabases\.app\.redislabs\.com/,
      );
      // Refused cluster-wide, so each watched namespace's rules were read: 2 + 19.
      assert.equal(count(run, RULES), 21);
      assert.equal(count(run, ACCESS), 0);
    });
  });

  it('incomplete rules fall back to SelfSubjectAccessReview for what they do not grant', async () => {
    await withSim(10, async (sim) => {
      // A denial of one object by name cannot be written as rules: the emulator says incomplete.
      sim.kube.accessDenials.push({ verb: 'get', resource: 'secrets', name: 'not-read-by-ctl' });
      const run = await planOn(sim);
      assert.ok(count(run, ACCESS) > 0, 'access reviews for the questions the rules left open');
      assert.equal(check(run, 'permissions')?.status, 'pass', check(run, 'permissions')?.message);
      assert.ok(run.requests.length <= BUDGET, `${run.requests.length} requests`);
    });
  });
});

describe('rulesAllow (RBAC rule matching)', () => {
  const query = {
    verb: 'create',
    group: '',
    resource: 'pods',
    subresource: 'portforward',
    namespace: 'redis',
  };

  it('matches wildcards, exact resources and */subresource', () => {
    assert.equal(rulesAllow([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], query), true);
    assert.equal(
      rulesAllow([{ verbs: ['create'], apiGroups: [''], resources: ['pods/portforward'] }], query),
      true,
    );
    assert.equal(
      rulesAllow([{ verbs: ['create'], apiGroups: [''], resources: ['*/portforward'] }], query),
      true,
    );
  });

  it('does not grant the main resource for a subresource, another group, verb, or named objects only', () => {
    assert.equal(rulesAllow([{ verbs: ['create'], apiGroups: [''], resources: ['pods'] }], query), false);
    assert.equal(rulesAllow([{ verbs: ['create'], apiGroups: ['apps'], resources: ['*'] }], query), false);
    assert.equal(rulesAllow([{ verbs: ['get'], apiGroups: ['*'], resources: ['*'] }], query), false);
    const named = {
      verbs: ['create'],
      apiGroups: [''],
      resources: ['pods/portforward'],
      resourceNames: ['rec-0'],
    };
    assert.equal(rulesAllow([named], query), false);
  });
});
