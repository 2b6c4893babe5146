import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../src/kube/reads.js';
import { createOperatorStep } from '../../../src/steps/operator.js';
import { bindingDecision } from '../../../src/steps/redb-role-binding.js';
import { deployment, harness, makeDeploymentsReady } from './fakes.js';
import { removeReleaseTree, writeReleaseTree } from './release-tree.js';

const TARGET = '7.8.2-6';
const RBAC = 'rbac.authorization.k8s.io/v1';

/** What multi-namespace.md allows: the managed namespace's binding points at a ClusterRole. */
function clusterRoleBinding(namespace: string): KubeObject {
  return {
    apiVersion: RBAC,
    kind: 'RoleBinding',
    metadata: { name: 'redb-role', namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'redb-role' },
    subjects: [{ kind: 'ServiceAccount', name: 'redis-enterprise-operator', namespace: 'redis' }],
  } as KubeObject;
}

describe('multi-namespace: a redb-role RoleBinding bound to a ClusterRole', () => {
  it('is kept with a warning; a missing or matching binding is applied', () => {
    const desired = {
      ...clusterRoleBinding('app-a'),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'redb-role' },
    } as KubeObject;
    assert.deepEqual(bindingDecision(undefined, desired, 'app-a'), { apply: true });
    assert.deepEqual(bindingDecision(desired, desired, 'app-a'), { apply: true });
    const kept = bindingDecision(clusterRoleBinding('app-a'), desired, 'app-a');
    assert.equal(kept.apply, false);
    assert.match(
      !kept.apply ? kept.warning : '',
      /points at ClusterRole redb-role, not Role redb-role: kept/,
    );
  });

  it('the operator step does not fail on it: the Role is applied, the binding left alone', async (t) => {
    const bundle = writeReleaseTree([TARGET]);
    t.after(() => removeReleaseTree(bundle));
    const h = harness({
      target: { bundle },
      snapshot: (s) => (s.watchedNamespaces = ['redis', 'app-a', 'app-b']),
    });
    h.cluster.put(deployment('redislabs/operator:7.4.6-2', true));
    h.cluster.onTick = makeDeploymentsReady;
    h.cluster.put(clusterRoleBinding('app-a'));
    const result = await h.run(createOperatorStep({ wait: h.cluster.wait() }));
    assert.deepEqual(result.outcome?.rolesReapplied, ['app-a', 'app-b']);
    const kept = h.cluster.get(RBAC, 'RoleBinding', 'redb-role', 'app-a') as { roleRef?: { kind?: string } };
    assert.equal(kept.roleRef?.kind, 'ClusterRole');
    assert.ok(h.cluster.get(RBAC, 'Role', 'redb-role', 'app-a'), 'the Role is still applied');
    const fresh = h.cluster.get(RBAC, 'RoleBinding', 'redb-role', 'app-b') as { roleRef?: { kind?: string } };
    assert.equal(fresh.roleRef?.kind, 'Role', 'a namespace without a binding gets the release one');
    assert.ok(
      h.log.some(
        (e) => e.type === 'warn' && /RoleBinding redb-role in app-a points at ClusterRole/.test(e.text),
      ),
    );
  });

  it("the plan's command keeps such a binding too (run through sh with a stub kubectl)", async (t) => {
    const bundle = writeReleaseTree([TARGET]);
    t.after(() => removeReleaseTree(bundle));
    const h = harness({
      target: { bundle },
      snapshot: (s) => (s.watchedNamespaces = ['redis', 'app-a']),
    });
    const command = h.deps.plan.steps
      .find((s) => s.id === 'operator')
      ?.actions.find((a) => a.description.includes('redb-role'))?.command;
    assert.ok(command);
    // A kubectl that answers the roleRef question with ClusterRole and records every apply.
    const stub = `kubectl() { case "$1" in get) printf 'ClusterRole/redb-role';; apply) cat >/dev/null; echo "applied $*";; esac; }`;
    const out = execFileSync('sh', ['-c', `${stub}; ${command}`], {
      env: { PATH: process.env.PATH },
      encoding: 'utf8',
    });
    assert.equal(out.match(/^applied /gm)?.length, 1, out);
    assert.match(out, /keeping RoleBinding redb-role \(ClusterRole\/redb-role\): roleRef cannot change/);
  });
});
