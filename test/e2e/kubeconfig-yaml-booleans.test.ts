import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { kubectlFor, runTool } from '../helpers/tools.js';
import { assertExit, SharedUpgradeSim, TARGET, type UpgradeSim } from './upgrade-support.js';

/**
 * A kubeconfig's unquoted `yes`, `no`, `on`, `off` read as kubectl reads them (gopkg.in/yaml.v2,
 * YAML 1.1 booleans: src/io/yaml-from-outside.ts): the built ctl and the real kubectl on the same
 * file, against the simulator. `insecure-skip-tls-verify: yes` without the cluster's CA reaches
 * the cluster (ctl verified the certificate, and failed, where kubectl did not); `off` does not,
 * for either; `namespace: no` is refused by both, ctl naming the field.
 */

const sim = new SharedUpgradeSim('happy-path');
after(() => sim.close());

interface SimKubeconfig {
  clusters: { cluster: { server: string } }[];
  users: { user: { token: string } }[];
}

/** The simulator's cluster and user, its CA left out, with the lines given (as written). */
function kubeconfigOf(up: UpgradeSim, name: string, clusterLine: string, namespaceLine = ''): string {
  const own = parse(readFileSync(up.cluster.kubeconfigPath, 'utf8')) as SimKubeconfig;
  const file = path.join(up.sandbox.dir, `${name}.kubeconfig`);
  const lines = [
    'apiVersion: v1',
    'kind: Config',
    'current-context: sim',
    'clusters:',
    '- name: sim',
    '  cluster:',
    `    server: ${own.clusters[0]!.cluster.server}`,
    `    ${clusterLine}`,
    'users:',
    '- name: sim',
    '  user:',
    `    token: ${own.users[0]!.user.token}`,
    'contexts:',
    '- name: sim',
    '  context:',
    '    cluster: sim',
    '    user: sim',
    ...(namespaceLine ? [`    ${namespaceLine}`] : []),
    '',
  ];
  writeFileSync(file, lines.join('\n'), { mode: 0o600 });
  return file;
}

async function kubectlWith(up: UpgradeSim, kubeconfig: string) {
  return runTool(
    kubectlFor(up.cluster.scenario.kubernetesVersion),
    ['--kubeconfig', kubeconfig, 'get', 'ns'],
    {
      env: { ...up.sandbox.env },
    },
  );
}

describe("a kubeconfig's YAML 1.1 booleans, as kubectl reads them (e2e)", () => {
  it('insecure-skip-tls-verify: yes reaches the cluster without its CA, as kubectl; off does not, for either', async () => {
    await sim.use('plan with insecure-skip-tls-verify yes and off', async (up) => {
      const yes = kubeconfigOf(
        up,
        'skip-yes',
        'insecure-skip-tls-verify: yes',
        `namespace: ${up.cluster.scenario.namespace}`,
      );
      assert.equal((await kubectlWith(up, yes)).code, 0, 'kubectl skips the verification');
      const plan = await up.ctl(['upgrade', 'plan', '--to', TARGET, '--kubeconfig', yes]);
      assertExit(plan, 0, 'plan with insecure-skip-tls-verify: yes');
      assert.match(plan.stdout, /Upgrade plan/);

      const off = kubeconfigOf(
        up,
        'skip-off',
        'insecure-skip-tls-verify: Off',
        `namespace: ${up.cluster.scenario.namespace}`,
      );
      const kubectl = await kubectlWith(up, off);
      assert.notEqual(kubectl.code, 0, 'kubectl verifies the certificate');
      assert.match(kubectl.stderr, /certificate/);
      const refused = await up.ctl(['upgrade', 'plan', '--to', TARGET, '--kubeconfig', off]);
      assert.notEqual(refused.code, 0, `plan with insecure-skip-tls-verify: Off\n${refused.stderr}`);
      assert.match(refused.stderr, /certificate/);
    });
  });

  it('namespace: no is a boolean where kubectl reads text: both refuse the file, ctl names the field', async () => {
    await sim.use('plan with namespace: no', async (up) => {
      const file = kubeconfigOf(up, 'namespace-no', 'insecure-skip-tls-verify: true', 'namespace: no');
      const kubectl = await kubectlWith(up, file);
      assert.notEqual(kubectl.code, 0);
      assert.match(kubectl.stderr, /cannot unmarshal bool into Go struct field .*namespace.* of type string/);
      const plan = await up.ctl(['upgrade', 'plan', '--to', TARGET, '--kubeconfig', file]);
      assertExit(plan, 2, 'plan with namespace: no');
      assert.match(
        plan.stderr,
        /cannot read the kubeconfig .*namespace-no\.kubeconfig: contexts\[0\]\.context\.namespace is a boolean where kubectl reads text \(.*\): put the value in quotes\n/,
      );

      // Quoted, it is the namespace "no" for both (one the simulator does not have).
      const quoted = kubeconfigOf(
        up,
        'namespace-quoted',
        'insecure-skip-tls-verify: true',
        'namespace: "no"',
      );
      assert.equal((await kubectlWith(up, quoted)).code, 0);
      const status = await up.ctl(['upgrade', 'status', '--kubeconfig', quoted]);
      assertExit(status, 2, 'status in namespace "no"');
      assert.match(status.stderr, /no upgrade has run for context sim, namespace no\n/);
    });
  });
});
