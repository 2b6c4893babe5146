/**
 * Out of the cluster, with neither --api-url nor CTL_API_URL, ctl reaches the management API
 * through its own port-forward: client-node's WebSocket port-forward to pod port 9443 of a
 * ready pod, which the simulator's Kubernetes API forwards to its management API. The
 * credentials come from the cluster's Secret, as a user's would. HTTPS_PROXY points at a dead
 * port to prove the local end of the forward never goes through a proxy.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadScenario, type SimulatedCluster, startSimulatedCluster } from '../helpers/simulator.js';
import { runCtl } from '../helpers/run-ctl.js';

interface AuditLine {
  api: 'kube' | 'rest';
  method: string;
  path: string;
  status: number;
}

function auditLines(cluster: SimulatedCluster): AuditLine[] {
  return readFileSync(path.join(cluster.dir, 'audit.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditLine);
}

function ndjson(
  stdout: string,
): { type: string; step?: string; message: string; data?: Record<string, unknown> }[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; message: string; data?: Record<string, unknown> });
}

describe('ctl upgrade without --api-url: the automatic port-forward', () => {
  let dir: string;
  let cluster: SimulatedCluster;
  let env: Record<string, string | undefined>;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-port-forward-'));
    const scenario = loadScenario('happy-path');
    // Real (short) waits: pods really restart while the forward is in use.
    cluster = await startSimulatedCluster({
      scenario: { ...scenario, timing: { operatorStart: 0.2, podRestart: 0.3, databaseUpgrade: 0.2 } },
      dir: path.join(dir, 'sim'),
    });
    env = {
      KUBECONFIG: cluster.kubeconfigPath,
      CTL_CA_FILE: cluster.caPath,
      CTL_BUNDLE: cluster.env.CTL_BUNDLE,
      XDG_STATE_HOME: path.join(dir, 'state'),
      // Unset on purpose: ctl must find the API and the credentials by itself.
      CTL_API_URL: undefined,
      CTL_USERNAME: undefined,
      CTL_PASSWORD: undefined,
      HTTPS_PROXY: 'http://127.0.0.1:9',
      NO_PROXY: undefined,
    };
  });

  after(async () => {
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('plan: the management API answers through the forward to pod port 9443', async () => {
    const result = await runCtl(['upgrade', 'plan', '--to', '7.8.2-6', '-o', 'json', '-v'], {
      env,
      cwd: dir,
    });
    assert.equal(result.code, 0, result.stderr);
    const plan = JSON.parse(result.stdout) as { checks: { id: string; status: string; message: string }[] };
    const reachable = plan.checks.find((check) => check.id === 'api-reachable');
    assert.equal(reachable?.status, 'pass', reachable?.message);
    assert.match(
      result.stderr,
      /management API: port-forward https:\/\/127\.0\.0\.1:\d+ -> redis\/rec pod port 9443/,
    );
    assert.match(result.stderr, /password from Secret rec/);
    // Verified with CTL_CA_FILE against the service's name, not 127.0.0.1.
    assert.match(
      result.stderr,
      /TLS: verifying the certificate of https:\/\/127\.0\.0\.1:\d+ as rec\.redis\.svc or rec\.redis\.svc\.cluster\.local or rec\b/,
    );
    const forwards = auditLines(cluster).filter(
      (line) => line.api === 'kube' && /\/namespaces\/redis\/pods\/rec-\d+\/portforward/.test(line.path),
    );
    assert.ok(forwards.length > 0, 'the Kubernetes API saw a pods/portforward request');
    assert.ok(
      auditLines(cluster).some((line) => line.api === 'rest' && line.path.startsWith('/v1/nodes')),
      'the management API was called',
    );
  });

  test('run: all seven steps through the forward while the pods restart', async () => {
    const before = auditLines(cluster).length;
    const result = await runCtl(['upgrade', 'run', '--to', '7.8.2-6', '--yes', '-o', 'json'], {
      env,
      cwd: dir,
    });
    assert.equal(result.code, 0, result.stderr);
    const events = ndjson(result.stdout);
    const done = events.at(-1);
    assert.equal(done?.type, 'done');
    assert.equal(done?.data?.result, 'succeeded');
    assert.deepEqual(
      events.filter((e) => e.type === 'step-done').map((e) => e.step),
      ['preflight', 'operator', 'cluster', 'monitor', 'databases'],
    );
    const calls = auditLines(cluster).slice(before);
    assert.ok(
      calls.some((line) => line.api === 'kube' && /\/pods\/rec-\d+\/portforward/.test(line.path)),
      'the run opened its own port-forward',
    );
    // The monitor step checked each node's version through the forward, after the rollout.
    assert.ok(calls.some((line) => line.api === 'rest' && line.path === '/v1/nodes' && line.status === 200));
    const recType = cluster.kube.store.resolve('app.redislabs.com/v1', 'RedisEnterpriseCluster');
    const rec = cluster.kube.store.get(recType, 'redis', 'rec') as unknown as {
      spec: { redisEnterpriseImageSpec: { versionTag: string } };
      status: { state: string };
    };
    assert.equal(rec.spec.redisEnterpriseImageSpec.versionTag, '7.8.2-60');
    assert.equal(rec.status.state, 'Running');
  });
});
