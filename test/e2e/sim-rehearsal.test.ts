/**
 * The "Rehearse your own upgrade" example of docs/simulator.md, taken from the page itself: its
 * scenario loads, starts, and the documented commands (helm path, real CRD names) reach the
 * freeze the page promises. Keeps the page honest.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseScenario, type SimulatedCluster, startSimulatedCluster } from '../helpers/simulator.js';
import {
  helmPath,
  kubectlFor,
  makeToolSandbox,
  repoRoot,
  runTool,
  type ToolSandbox,
} from '../helpers/tools.js';

function documentedScenario(): string {
  const page = readFileSync(path.join(repoRoot, 'docs', 'simulator.md'), 'utf8');
  const section = page.slice(page.indexOf('### 2. Write the scenario'));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'docs/simulator.md has the example scenario');
  return block;
}

describe('sim: the documented rehearsal', () => {
  let sandbox: ToolSandbox;
  let cluster: SimulatedCluster;
  let env: NodeJS.ProcessEnv;
  const run = async (bin: string, args: string[]) => {
    const result = await runTool(bin, args, { env });
    assert.equal(result.code, 0, `${path.basename(bin)} ${args.join(' ')}\n${result.stderr}`);
    return result.stdout;
  };

  before(async () => {
    sandbox = makeToolSandbox('ctl-sim-rehearsal-');
    const scenario = parseScenario(documentedScenario(), 'docs/simulator.md');
    cluster = await startSimulatedCluster({ scenario, dir: path.join(sandbox.dir, 'sim'), fast: true });
    env = { ...sandbox.env, KUBECONFIG: cluster.kubeconfigPath };
  });
  after(async () => {
    await cluster?.stop();
    sandbox?.cleanup();
  });

  test('the example scenario starts as written: helm release, redis dialect', async () => {
    assert.equal(cluster.scenario.dialect, 'redis');
    const releases = JSON.parse(await run(helmPath(3), ['list', '-o', 'json'])) as { name: string }[];
    assert.deepEqual(
      releases.map((release) => release.name),
      ['redis-enterprise'],
    );
    const tag = await run(kubectlFor(cluster.scenario.kubernetesVersion), [
      'get',
      'rec',
      'rec',
      '-o',
      'jsonpath={.spec.redisEnterpriseImageSpec.versionTag}',
    ]);
    assert.equal(tag, '7.4.6-22');
  });

  test('helm upgrade, then the documented REC patch, freezes on the rhel8-only module', async () => {
    await run(helmPath(4), [
      'upgrade',
      'redis-enterprise',
      'redis-enterprise-operator',
      '--repo',
      cluster.env.CTL_HELM_REPO ?? '',
      '--version',
      '7.8.2-6',
    ]);
    await run(kubectlFor(cluster.scenario.kubernetesVersion), [
      'rollout',
      'status',
      'deployment/redis-enterprise-operator',
      '--timeout=60s',
    ]);
    await run(kubectlFor(cluster.scenario.kubernetesVersion), [
      'patch',
      'rec',
      'rec',
      '--type',
      'merge',
      '-p',
      '{"spec":{"redisEnterpriseImageSpec":{"versionTag":"7.8.2-60"}}}',
    ]);
    await run(kubectlFor(cluster.scenario.kubernetesVersion), [
      'wait',
      '--for=jsonpath={.status.state}=Upgrade',
      'rec/rec',
      '--timeout=60s',
    ]);
    // The docs: "check the operator logs for the source of the error".
    const deadline = Date.now() + 30_000;
    let log = '';
    while (!log.includes('uses module') && Date.now() < deadline) {
      log = await run(kubectlFor(cluster.scenario.kubernetesVersion), [
        'logs',
        'deploy/redis-enterprise-operator',
      ]);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.match(log, /"logger":"controller_redisenterprisecluster".*uses module/);
  });
});
