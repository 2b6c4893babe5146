import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, describe, it } from 'node:test';
import type { KubeObject } from '../../../src/kube/reads.js';
import { createSecurityContextStep } from '../../../src/steps/security-context.js';
import { decideScc } from '../../../src/steps/security-context-decision.js';
import { removeSccAfterRoll } from '../../../src/steps/security-context-removal.js';
import { harness, stderrLines } from './fakes.js';
import { writeReleaseTree } from './release-tree.js';

const TARGET = '7.22.0-7';
const PRIVILEGED_TARGET = '7.8.2-6';
const USER = 'system:serviceaccount:redis:rec';
const SCC_NAME = 'redis-enterprise-scc-v2';
const ROLE = `system:openshift:scc:${SCC_NAME}`;
const SCC = { apiVersion: 'security.openshift.io/v1', kind: 'SecurityContextConstraints' };
const RBAC = 'rbac.authorization.k8s.io/v1';

const tree = writeReleaseTree([TARGET, PRIVILEGED_TARGET]);
// <root>/{version}/bundle.yaml: the temporary root goes when the tests are done.
after(() => rmSync(dirname(dirname(tree)), { recursive: true, force: true }));

function scc(users: string[]): KubeObject {
  return { ...SCC, metadata: { name: SCC_NAME }, allowPrivilegeEscalation: false, users };
}

function roleBinding(namespace: string, subjects: { name: string; namespace: string }[]): KubeObject {
  return {
    apiVersion: RBAC,
    kind: 'RoleBinding',
    metadata: { name: ROLE, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: ROLE },
    subjects: subjects.map((s) => ({ kind: 'ServiceAccount', ...s })),
  };
}

function rec(options: { allowAutoAdjustment?: boolean; versionTag?: string } = {}): KubeObject {
  return {
    apiVersion: 'app.redislabs.com/v1',
    kind: 'RedisEnterpriseCluster',
    metadata: { name: 'rec', namespace: 'redis' },
    spec: {
      nodes: 3,
      redisEnterpriseImageSpec: { versionTag: options.versionTag ?? '7.4.6-22' },
      ...(options.allowAutoAdjustment
        ? { securityContext: { resourceLimits: { allowAutoAdjustment: true } } }
        : {}),
    },
  };
}

function setup(options: Parameters<typeof harness>[0] = {}, cluster: Parameters<typeof rec>[0] = {}) {
  const h = harness({
    target: { to: TARGET, bundle: tree, ...options.target },
    ...(options.settings ? { settings: options.settings } : {}),
    snapshot: (s) => {
      s.platform = 'openshift';
      options.snapshot?.(s);
    },
  });
  h.cluster.put(rec(cluster));
  return { h, step: createSecurityContextStep() };
}

describe('decideScc', () => {
  const base = {
    platform: 'openshift',
    unprivilegedTarget: true,
    allowAutoAdjustment: false,
    keepScc: false,
  } as const;
  it('skips off OpenShift and with --keep-scc', () => {
    assert.deepEqual(decideScc({ ...base, platform: 'kubernetes' }), {
      kind: 'skip',
      reason: 'not OpenShift',
    });
    assert.equal(decideScc({ ...base, keepScc: true }).kind, 'skip');
  });
  it('keeps (re-applies) the SCC for privileged targets and for allowAutoAdjustment', () => {
    assert.equal(decideScc({ ...base, unprivilegedTarget: false }).kind, 'keep');
    assert.equal(decideScc({ ...base, allowAutoAdjustment: true }).kind, 'keep');
  });
  it('removes it after the roll for unprivileged targets', () => {
    assert.deepEqual(decideScc(base), { kind: 'remove-after-roll' });
  });
});

describe('security-context step (before the cluster step)', () => {
  it('is skipped off OpenShift', async () => {
    const { h, step } = setup({ snapshot: (s) => (s.platform = 'kubernetes') });
    assert.deepEqual(await h.run(step), { skipped: 'not OpenShift' });
  });

  it('is skipped with --keep-scc', async () => {
    const { h, step } = setup({ settings: { keepScc: true } });
    h.cluster.put(scc([USER]));
    assert.deepEqual(await h.run(step), { skipped: `--keep-scc: ${SCC_NAME} is left as it is` });
  });

  it('removes nothing before the roll: the pods still run the privileged template', async () => {
    const { h, step } = setup();
    h.cluster.put(scc([USER]));
    const result = await h.run(step);
    assert.match(result.skipped ?? '', /stays until the cluster has rolled; the monitor step removes it/);
    assert.deepEqual(h.cluster.writes(), []);
  });

  it('re-applies and binds (RBAC) an SCC a helm upgrade deleted before the roll', async () => {
    const { h, step } = setup();
    const result = await h.run(step);
    assert.deepEqual(h.cluster.writes(), [
      `apply SecurityContextConstraints/${SCC_NAME}`,
      `apply ClusterRole/${ROLE}`,
      `apply RoleBinding/${ROLE} -n redis`,
    ]);
    assert.equal(h.log[0]?.type, 'warn', 'says why it re-applies a removed SCC');
    assert.equal((h.log.find((e) => e.type === 'intent')?.data as { bind?: string }).bind, USER);
    assert.equal(result.outcome?.bound, USER);
    assert.match(String(result.outcome?.removal), /after the monitor step/);
  });

  it('does nothing when the SCC is gone and the cluster already runs the target', async () => {
    const { h, step } = setup({}, { versionTag: '7.22.0-28' });
    const result = await h.run(step);
    assert.match(result.skipped ?? '', /monitor step removes it/);
    assert.deepEqual(h.cluster.writes(), []);
  });

  it('targets before 7.22.0-6: re-applies the SCC of the target and binds it by RBAC when unbound', async () => {
    const { h, step } = setup({ target: { to: PRIVILEGED_TARGET } });
    h.cluster.put(scc([]));
    const result = await h.run(step);
    assert.deepEqual(h.cluster.writes(), [
      `apply SecurityContextConstraints/${SCC_NAME}`,
      `apply ClusterRole/${ROLE}`,
      `apply RoleBinding/${ROLE} -n redis`,
    ]);
    assert.match(String(result.outcome?.applied), /7\.8\.2-6\/openshift\/scc\.yaml$/);
    const binding = h.cluster.get(RBAC, 'RoleBinding', ROLE, 'redis');
    assert.deepEqual(binding?.subjects, [{ kind: 'ServiceAccount', name: 'rec', namespace: 'redis' }]);
  });

  it('allowAutoAdjustment: re-applies the target scc.yaml even when bound, binds nothing more', async () => {
    const { h, step } = setup({}, { allowAutoAdjustment: true });
    h.cluster.put(scc([USER]));
    const result = await h.run(step);
    assert.deepEqual(h.cluster.writes(), [`apply SecurityContextConstraints/${SCC_NAME}`]);
    assert.match(String(result.outcome?.kept), /allowAutoAdjustment is on/);
    assert.deepEqual(h.cluster.get(SCC.apiVersion, SCC.kind, SCC_NAME)?.users, [USER], 'users stay');
  });

  it('dry-run says what it would apply and changes nothing', async () => {
    const { h, step } = setup({ target: { to: PRIVILEGED_TARGET } });
    await h.run(step, { dryRun: true });
    assert.deepEqual(h.cluster.writes(), []);
    assert.deepEqual(stderrLines(h.test), [
      `would apply scc/${SCC_NAME}`,
      `would apply clusterrole/${ROLE}`,
      `would apply rolebinding/${ROLE} -n redis`,
    ]);
  });
});

describe('SCC removal after the roll (monitor step)', () => {
  it('users binding, nobody else: unbinds (conditional on resourceVersion), deletes the SCC, intent first', async () => {
    const { h } = setup({}, { versionTag: '7.22.0-28' });
    h.cluster.put(scc([USER]));
    const outcome = await removeSccAfterRoll(h.ctx());
    assert.equal(h.log[0]?.type, 'intent');
    assert.deepEqual(h.cluster.writes(), [
      `merge SecurityContextConstraints/${SCC_NAME}`,
      `delete SecurityContextConstraints/${SCC_NAME}`,
    ]);
    const patch = h.log.find((e) => e.type === 'write')?.data as {
      body: { users: string[]; metadata: { resourceVersion?: string } };
    };
    assert.deepEqual(patch.body.users, []);
    assert.ok(patch.body.metadata.resourceVersion, 'conditional on the version it was computed from');
    assert.deepEqual(outcome, { scc: SCC_NAME, unbound: USER, deleted: true, keptFor: [] });
  });

  it('RBAC binding shared with another namespace: only this RoleBinding goes, the SCC stays and the output says why', async () => {
    const { h } = setup();
    h.cluster.put(scc([]));
    h.cluster.put(roleBinding('redis', [{ name: 'rec', namespace: 'redis' }]));
    h.cluster.put(roleBinding('redis-b', [{ name: 'rec', namespace: 'redis-b' }]));
    const outcome = await removeSccAfterRoll(h.ctx());
    assert.deepEqual(h.cluster.writes(), [`delete RoleBinding/${ROLE} -n redis`]);
    assert.ok(h.cluster.get(SCC.apiVersion, SCC.kind, SCC_NAME), 'the SCC stays');
    assert.ok(h.cluster.get(RBAC, 'RoleBinding', ROLE, 'redis-b'), "the other cluster's binding stays");
    const warning = h.log.find((e) => e.type === 'warn');
    assert.match(
      warning?.text ?? '',
      /is kept: other service accounts may still use it \(rolebinding redis-b\//,
    );
    assert.equal(outcome?.deleted, false);
  });

  it('a RoleBinding with other subjects loses only this service account', async () => {
    const { h } = setup();
    h.cluster.put(scc([]));
    h.cluster.put(
      roleBinding('redis', [
        { name: 'rec', namespace: 'redis' },
        { name: 'other', namespace: 'redis' },
      ]),
    );
    await removeSccAfterRoll(h.ctx());
    assert.deepEqual(h.cluster.get(RBAC, 'RoleBinding', ROLE, 'redis')?.subjects, [
      { kind: 'ServiceAccount', name: 'other', namespace: 'redis' },
    ]);
    assert.ok(h.cluster.get(SCC.apiVersion, SCC.kind, SCC_NAME), 'kept for the other service account');
  });

  it('RBAC binding alone: the RoleBinding, the SCC and its ClusterRole go', async () => {
    const { h } = setup();
    h.cluster.put(scc([]));
    h.cluster.put({
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: ROLE },
      rules: [],
    });
    h.cluster.put(roleBinding('redis', [{ name: 'rec', namespace: 'redis' }]));
    await removeSccAfterRoll(h.ctx());
    assert.deepEqual(h.cluster.writes(), [
      `delete RoleBinding/${ROLE} -n redis`,
      `delete SecurityContextConstraints/${SCC_NAME}`,
      `delete ClusterRole/${ROLE}`,
    ]);
  });

  it('a second run (resume) finds nothing left to do and writes nothing', async () => {
    const { h } = setup();
    h.cluster.put(scc([]));
    h.cluster.put(roleBinding('redis', [{ name: 'rec', namespace: 'redis' }]));
    await removeSccAfterRoll(h.ctx());
    const writes = h.cluster.writes().length;
    assert.deepEqual(await removeSccAfterRoll(h.ctx()), { scc: SCC_NAME, removed: 'already' });
    assert.equal(h.cluster.writes().length, writes);
  });

  it('does nothing for targets that keep the SCC, and says when it is already gone', async () => {
    const privileged = setup({ target: { to: PRIVILEGED_TARGET } });
    privileged.h.cluster.put(scc([USER]));
    assert.equal(await removeSccAfterRoll(privileged.h.ctx()), undefined);
    const adjusting = setup({}, { allowAutoAdjustment: true });
    adjusting.h.cluster.put(scc([USER]));
    assert.equal(await removeSccAfterRoll(adjusting.h.ctx()), undefined);
    assert.deepEqual([...privileged.h.cluster.writes(), ...adjusting.h.cluster.writes()], []);
    const gone = setup();
    assert.deepEqual(await removeSccAfterRoll(gone.h.ctx()), { scc: SCC_NAME, removed: 'already' });
  });
});
