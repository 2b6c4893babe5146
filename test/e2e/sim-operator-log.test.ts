/**
 * The operator's log through the real kubectl: `kubectl logs deploy/redis-enterprise-operator`
 * with --since, --tail, --timestamps and -f, served by the emulator's `pods/log` subresource
 * (what the docs send users to for a frozen upgrade: "check the operator logs").
 */

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { kubectlFor } from '../helpers/tools.js';
import { operatorLog, type SimHarness, startHarness, versionTagPatch } from './sim-support.js';

describe('sim: the operator log through kubectl logs', () => {
  let sim: SimHarness;
  before(async () => {
    sim = await startHarness('happy-path');
  });
  after(async () => {
    await sim?.close();
  });

  test('the default container is the operator; its first line says its version', async () => {
    const result = await sim.kubectl(['logs', 'deploy/redis-enterprise-operator']);
    assert.match(result.stderr, /Defaulted container "redis-enterprise-operator"/);
    const lines = await operatorLog(sim);
    assert.equal(lines[0]?.msg, 'Operator Version');
    assert.equal(lines[0]?.version, sim.cluster.scenario.operator.version);
    const admission = await sim.kubectl(['logs', 'deploy/redis-enterprise-operator', '-c', 'admission']);
    assert.equal(admission.stdout, '');
  });

  test('-f streams new lines until the client goes away', async () => {
    const child = spawn(
      kubectlFor(sim.cluster.scenario.kubernetesVersion),
      ['logs', '-f', 'deploy/redis-enterprise-operator', '--tail=0'],
      {
        env: { ...sim.sandbox.env, KUBECONFIG: sim.cluster.kubeconfigPath },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      // Wait until the stream is open (kubectl prints "Defaulted container" first).
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        err += chunk;
      });
      const deadline = Date.now() + 20_000;
      while (!err.includes('Defaulted container') && Date.now() < deadline) await sleep(50);
      assert.match(err, /Defaulted container/, 'kubectl logs -f to open its stream');
      await sleep(300);
      await sim.kubectl(['patch', 'rec', 'rec', '--type', 'merge', '-p', versionTagPatch(sim, '7.4.6-102')]);
      const until = Date.now() + 30_000;
      while (!out.includes('"Upgrade completed"') && Date.now() < until) await sleep(50);
      assert.match(
        out,
        /"msg":"Upgrading Redis Enterprise cluster"/,
        'the followed stream to carry the upgrade',
      );
      assert.match(out, /"msg":"Upgrade completed"/, 'the followed stream to carry the completion');
      assert.doesNotMatch(out, /"msg":"Operator Version"/, '--tail=0 to skip the earlier lines');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  test('--tail, --since and --timestamps', async () => {
    const all = await operatorLog(sim);
    assert.ok(all.length >= 3, `several lines, got ${all.length}`);
    const tail = await operatorLog(sim, ['--tail=1']);
    assert.deepEqual(tail, all.slice(-1));
    const recent = await operatorLog(sim, ['--since=1h']);
    assert.equal(recent.length, all.length);
    await sleep(1100);
    const none = await sim.kubectl(['logs', 'deploy/redis-enterprise-operator', '--since=1s']);
    assert.equal(none.stdout, '');
    const stamped = await sim.kubectl([
      'logs',
      'deploy/redis-enterprise-operator',
      '--timestamps',
      '--tail=1',
    ]);
    assert.match(stamped.stdout, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z \{"level":/);
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
