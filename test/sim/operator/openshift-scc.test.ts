import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type SimulatedCluster, startSimulatedCluster } from '../../../src/sim/cluster.js';
import { loadScenario } from '../../../src/sim/scenario.js';
import { kubectlFor, makeToolSandbox, runTool, type ToolSandbox } from '../../helpers/tools.js';

/**
 * OpenShift's SCC admission in the simulator, driven by the real kubectl: which SCC admits the
 * node pods of each release, how a refused pod shows (the StatefulSet stays short, FailedCreate
 * in `kubectl get events` and `kubectl describe sts`), and that the roll resumes once the right
 * SCC is applied. No ctl here: these are the cluster's own rules.
 */

const SCC = 'redis-enterprise-scc-v2';
const ROLE = `system:openshift:scc:${SCC}`;
// 7.22.0-6 is the first unprivileged release; from 7.8.4-9 OpenShift uses the plain tag.
const UNPRIVILEGED_OPERATOR = '7.22.0-7';
const UNPRIVILEGED_TAG = '7.22.0-28';

interface Sim {
  cluster: SimulatedCluster;
  sandbox: ToolSandbox;
  kubectl(args: string[]): Promise<string>;
  json(args: string[]): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

async function start(name: string): Promise<Sim> {
  const sandbox = makeToolSandbox(`ctl-scc-${name}-`);
  const cluster = await startSimulatedCluster({
    scenario: loadScenario(name),
    dir: path.join(sandbox.dir, 'sim'),
    fast: true,
  });
  const env = { ...sandbox.env, KUBECONFIG: cluster.kubeconfigPath };
  const kubectl = async (args: string[]): Promise<string> => {
    const result = await runTool(kubectlFor(cluster.scenario.kubernetesVersion), args, { env });
    if (result.code !== 0) assert.fail(`kubectl ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return result.stdout;
  };
  return {
    cluster,
    sandbox,
    kubectl,
    json: async (args) =>
      JSON.parse(await kubectl(['get', ...args, '-o', 'json'])) as Record<string, unknown>,
    close: async () => {
      await cluster.stop();
      sandbox.cleanup();
    },
  };
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(100);
  }
  assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** The operator upgrade, then the cluster upgrade, as a user would type them. */
async function upgrade(sim: Sim): Promise<void> {
  const image = await sim.kubectl([
    'get',
    'deployment/redis-enterprise-operator',
    '-o',
    'jsonpath={.spec.template.spec.containers[0].image}',
  ]);
  const repository = image.slice(0, image.lastIndexOf(':'));
  await sim.kubectl([
    'set',
    'image',
    'deployment/redis-enterprise-operator',
    `*=${repository}:${UNPRIVILEGED_OPERATOR}`,
  ]);
  await sim.kubectl(['rollout', 'status', 'deployment/redis-enterprise-operator', '--timeout=30s']);
  await sim.kubectl([
    'patch',
    'rec',
    'rec',
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { redisEnterpriseImageSpec: { versionTag: UNPRIVILEGED_TAG } } }),
  ]);
}

async function podSccs(sim: Sim): Promise<string[]> {
  const out = await sim.kubectl([
    'get',
    'pods',
    '-l',
    'redis.io/cluster=rec',
    '-o',
    `jsonpath={range .items[*]}{.metadata.annotations.openshift\\.io/scc}{"\\n"}{end}`,
  ]);
  return out.split('\n').filter(Boolean);
}

async function recState(sim: Sim): Promise<string> {
  return sim.kubectl(['get', 'rec', 'rec', '-o', 'jsonpath={.status.state}']);
}

describe('simulated OpenShift: SCC admission of the cluster pods (real kubectl)', () => {
  it('openshift-rbac-scc: the SCC is bound by ClusterRole + RoleBinding and admits the privileged pods', async () => {
    const sim = await start('openshift-rbac-scc');
    try {
      const role = await sim.json(['clusterrole', ROLE]);
      assert.deepEqual(role.rules, [
        {
          apiGroups: ['security.openshift.io'],
          resources: ['securitycontextconstraints'],
          resourceNames: [SCC],
          verbs: ['use'],
        },
      ]);
      const binding = await sim.json(['rolebinding', ROLE, '-n', 'redis']);
      assert.deepEqual(binding.roleRef, {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: ROLE,
      });
      assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'rec', namespace: 'redis' }]);
      const scc = await sim.json(['scc', SCC]);
      assert.equal(scc.users, undefined, 'the users list stays empty with an RBAC binding');
      assert.equal(scc.allowPrivilegeEscalation, false, '7.4.6-2 scc.yaml: no privilege escalation');
      assert.deepEqual(await podSccs(sim), [SCC, SCC, SCC]);
    } finally {
      await sim.close();
    }
  });

  it('a 7.22 roll runs under restricted-v2: the new pods need no SCC of their own', async () => {
    const sim = await start('openshift');
    try {
      await upgrade(sim);
      await waitFor('the REC to be Upgrade then Running', async () => {
        const sccs = await podSccs(sim);
        return (
          (await recState(sim)) === 'Running' && sccs.length === 3 && sccs.every((s) => s === 'restricted-v2')
        );
      });
      const container = await sim.kubectl([
        'get',
        'sts',
        'rec',
        '-o',
        'jsonpath={.spec.template.spec.containers[0].securityContext.capabilities.drop[0]}',
      ]);
      assert.equal(container, 'ALL');
    } finally {
      await sim.close();
    }
  });

  it('openshift-auto-adjust: the old SCC refuses the 7.22 pods (FailedCreate) until the 7.22 scc.yaml is applied', async () => {
    const sim = await start('openshift-auto-adjust');
    try {
      await upgrade(sim);
      await waitFor('a FailedCreate event on the StatefulSet', async () => {
        const events = await sim.kubectl([
          'get',
          'events',
          '--field-selector',
          'reason=FailedCreate',
          '-o',
          'jsonpath={range .items[*]}{.involvedObject.kind}/{.involvedObject.name}: {.message}{"\\n"}{end}',
        ]);
        return /StatefulSet\/rec: create Pod rec-2 in StatefulSet rec failed error: pods "rec-2" is forbidden: unable to validate against any security context constraint/.test(
          events,
        );
      });
      const events = await sim.kubectl(['get', 'events', '--field-selector', 'reason=FailedCreate']);
      assert.match(events, /Allowing privilege escalation for containers is not allowed/);
      assert.match(events, /provider restricted-v2: .*capability may not be added/);
      const describe = await sim.kubectl(['describe', 'sts', 'rec']);
      assert.match(describe, /Warning\s+FailedCreate\s+.*statefulset-controller/);
      // The StatefulSet stays short: rec-2 was deleted and not replaced.
      const ready = await sim.kubectl(['get', 'sts', 'rec', '-o', 'jsonpath={.status.replicas}']);
      assert.equal(ready, '2');
      assert.equal(await recState(sim), 'Upgrade');

      // oc apply -f openshift/scc.yaml of the target release: it allows privilege escalation.
      const sccYaml = await (
        await fetch(`${sim.cluster.artifactsUrl}/bundles/${UNPRIVILEGED_OPERATOR}/openshift/scc.yaml`)
      ).text();
      const file = path.join(sim.sandbox.dir, 'scc.yaml');
      writeFileSync(file, sccYaml);
      await sim.kubectl(['apply', '--server-side', '--force-conflicts', '-f', file]);
      await waitFor('the roll to finish after the SCC was re-applied', async () => {
        const sccs = await podSccs(sim);
        return (await recState(sim)) === 'Running' && sccs.length === 3 && sccs.every((s) => s === SCC);
      });
    } finally {
      await sim.close();
    }
  });

  it('openshift-shared-scc: the other namespace has its own RoleBinding to the same SCC', async () => {
    const sim = await start('openshift-shared-scc');
    try {
      const other = await sim.json(['rolebinding', ROLE, '-n', 'redis-b']);
      assert.deepEqual(other.subjects, [{ kind: 'ServiceAccount', name: 'rec', namespace: 'redis-b' }]);
      await sim.json(['rolebinding', ROLE, '-n', 'redis']);
    } finally {
      await sim.close();
    }
  });
});
