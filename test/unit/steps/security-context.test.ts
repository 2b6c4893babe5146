import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../src/kube/reads.js';
import { createSecurityContextStep } from '../../../src/steps/security-context.js';
import { harness, stderrLines } from './fakes.js';
import { writeReleaseTree } from './release-tree.js';

const TARGET = '7.22.0-7';
const USER = 'system:serviceaccount:redis:rec';
const SCC = { apiVersion: 'security.openshift.io/v1', kind: 'SecurityContextConstraints' };

function scc(users: string[]): KubeObject {
  return { ...SCC, metadata: { name: 'redis-enterprise-scc-v2' }, allowPrivilegeEscalation: false, users };
}

function rec(allowAutoAdjustment = false): KubeObject {
  return {
    apiVersion: 'app.redislabs.com/v1',
    kind: 'RedisEnterpriseCluster',
    metadata: { name: 'rec', namespace: 'redis' },
    spec: {
      nodes: 3,
      redisEnterpriseImageSpec: { versionTag: '7.4.6-22' },
      ...(allowAutoAdjustment ? { securityContext: { resourceLimits: { allowAutoAdjustment: true } } } : {}),
    },
  };
}

function setup(options: Parameters<typeof harness>[0] = {}, allowAutoAdjustment = false) {
  const h = harness({
    target: { to: TARGET, bundle: writeReleaseTree([TARGET]), ...options.target },
    ...(options.settings ? { settings: options.settings } : {}),
    snapshot: (s) => {
      s.platform = 'openshift';
      options.snapshot?.(s);
    },
  });
  h.cluster.put(rec(allowAutoAdjustment));
  return { h, step: createSecurityContextStep() };
}

describe('security-context step', () => {
  it('is skipped off OpenShift', async () => {
    const { h, step } = setup({ snapshot: (s) => (s.platform = 'kubernetes') });
    assert.deepEqual(await h.run(step), { skipped: 'not OpenShift' });
  });

  it('is skipped for targets that still run privileged pods', async () => {
    const { h, step } = setup({ target: { to: '7.8.2-6' } });
    h.cluster.put(scc([USER]));
    const result = await h.run(step);
    assert.match(result.skipped ?? '', /7\.8\.2-6 still runs privileged pods/);
    assert.deepEqual(h.cluster.writes(), []);
  });

  it('is skipped with --keep-scc', async () => {
    const { h, step } = setup({ settings: { keepScc: true } });
    h.cluster.put(scc([USER]));
    assert.deepEqual(await h.run(step), { skipped: '--keep-scc: redis-enterprise-scc-v2 is left as it is' });
  });

  it('is skipped when the SCC is already gone', async () => {
    const { h, step } = setup();
    assert.deepEqual(await h.run(step), {
      skipped: 'redis-enterprise-scc-v2 is already removed: pods run unprivileged',
    });
  });

  it('unbinds the service account and deletes the SCC, the intent first', async () => {
    const { h, step } = setup();
    h.cluster.put(scc([USER]));
    const result = await h.run(step);
    assert.deepEqual(h.cluster.writes(), [
      'merge SecurityContextConstraints/redis-enterprise-scc-v2',
      'delete SecurityContextConstraints/redis-enterprise-scc-v2',
    ]);
    assert.equal(h.log[0]?.type, 'intent');
    const patch = h.log.find((e) => e.type === 'write')?.data as {
      body: { users: string[]; metadata: { resourceVersion?: string } };
    };
    assert.deepEqual(patch.body.users, []);
    assert.ok(
      patch.body.metadata.resourceVersion,
      'the users list is conditional on the version it was computed from',
    );
    assert.equal(h.cluster.get(SCC.apiVersion, SCC.kind, 'redis-enterprise-scc-v2'), undefined);
    assert.deepEqual(result.outcome, {
      scc: 'redis-enterprise-scc-v2',
      unbound: USER,
      deleted: true,
      keptFor: [],
    });
  });

  it('keeps the SCC for other clusters bound to it', async () => {
    const { h, step } = setup();
    const other = 'system:serviceaccount:other:rec2';
    h.cluster.put(scc([other, USER]));
    const result = await h.run(step);
    assert.deepEqual(h.cluster.writes(), ['merge SecurityContextConstraints/redis-enterprise-scc-v2']);
    assert.deepEqual(h.cluster.get(SCC.apiVersion, SCC.kind, 'redis-enterprise-scc-v2')?.users, [other]);
    assert.ok(h.log.some((e) => e.type === 'warn' && e.text.includes(other)));
    assert.deepEqual(result.outcome?.keptFor, [other]);
  });

  it('keeps a bound SCC when the cluster adjusts its resource limits', async () => {
    const { h, step } = setup({}, true);
    h.cluster.put(scc([USER]));
    const result = await h.run(step);
    assert.match(result.skipped ?? '', /allowAutoAdjustment is on/);
    assert.deepEqual(h.cluster.writes(), []);
  });

  it('applies and binds the SCC when allowAutoAdjustment needs it and it is missing', async () => {
    const { h, step } = setup({}, true);
    const result = await h.run(step);
    assert.deepEqual(h.cluster.writes(), [
      'apply SecurityContextConstraints/redis-enterprise-scc-v2',
      'merge SecurityContextConstraints/redis-enterprise-scc-v2',
    ]);
    assert.deepEqual(h.cluster.get(SCC.apiVersion, SCC.kind, 'redis-enterprise-scc-v2')?.users, [USER]);
    assert.deepEqual(result.outcome, { scc: 'redis-enterprise-scc-v2', bound: USER, applied: true });
  });

  it('dry-run prints the patch and the delete, and changes nothing', async () => {
    const { h, step } = setup();
    h.cluster.put(scc([USER]));
    await h.run(step, { dryRun: true });
    assert.deepEqual(h.cluster.writes(), []);
    const lines = stderrLines(h.test);
    assert.equal(lines.length, 2);
    assert.match(
      lines[0] ?? '',
      /^would patch scc\/redis-enterprise-scc-v2: \{"metadata":\{"resourceVersion":"\d+"\},"users":\[\]\}$/,
    );
    assert.equal(lines[1], 'would delete scc/redis-enterprise-scc-v2');
  });
});
