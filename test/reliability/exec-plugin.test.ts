/**
 * The kubeconfig's exec credential plugin is bounded (src/kube/exec-plugin.ts): client-node
 * waits for it without a limit and keeps all it prints. A plugin that never answers (waiting
 * for a sign-in nobody gives) hung ctl for good; one that prints without end filled its memory.
 * Now each ends the command with exit 1 and a message that names the plugin, and the plugin is
 * stopped, not left running. And, like helm, it gets no ctl credential in its environment.
 */

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EXEC_PLUGIN_LIMITS } from '../../src/kube/exec-plugin.js';
import { runCtl } from '../helpers/run-ctl.js';
import { tempDir } from '../helpers/temp.js';

const PRELOAD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'deadline-preload.js');

/** Whether `pid` still runs (a zombie waiting to be reaped has stopped). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * The pids of `pids` still running once a signal sent as ctl exited has had time to arrive: up
 * to 5 s (a hang guard on a loaded machine, not a speed target).
 */
async function stillRunning(pids: number[]): Promise<number[]> {
  const until = Date.now() + 5_000;
  let left = pids.filter(alive);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = left.filter(alive);
  }
  return left;
}

/** A kubeconfig whose user runs `script` as its exec plugin; the API server is never reached. */
function kubeconfigWithPlugin(dir: string, name: string, script: string): string {
  const plugin = path.join(dir, `${name}-plugin`);
  writeFileSync(plugin, `#!/bin/sh\n${script}\n`, { mode: 0o700 });
  const file = path.join(dir, `${name}-kubeconfig`);
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:9", insecure-skip-tls-verify: true}}]',
      `users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: "${plugin}", interactiveMode: Never}}}]`,
      'contexts: [{name: x, context: {cluster: c, user: u, namespace: cache-eu}}]',
      'current-context: x',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return file;
}

describe('the exec credential plugin is bounded', () => {
  const dir = tempDir('ctl-exec-plugin-');

  test('a plugin that never answers: exit 1 at the deadline, naming it; the plugin is stopped', async () => {
    const pids = path.join(dir, 'pids');
    writeFileSync(pids, '');
    // Each run of the plugin records its pid, then waits for ever.
    const kubeconfig = kubeconfigWithPlugin(dir, 'silent', `echo $$ >> "${pids}"\nexec sleep 600`);
    const result = await runCtl(['upgrade', 'plan', '--to', '7.8.2-6', '--kubeconfig', kubeconfig], {
      preload: PRELOAD,
      // The plugin's deadline, shortened for the test (deadline-preload.ts).
      env: { CTL_TEST_DEADLINE_FROM: String(EXEC_PLUGIN_LIMITS.deadlineMs), CTL_TEST_DEADLINE_TO: '1500' },
      timeoutMs: 45_000,
    });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /credential plugin .*silent-plugin gave no credential within 60 s/);
    const started = readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number);
    assert.ok(started.length > 0, 'the plugin ran');
    const left = await stillRunning(started);
    assert.deepEqual(left, [], `plugin processes still running: ${left.join(', ')}`);
  });

  test('the plugin gets no ctl credential in its environment', async () => {
    const dump = path.join(dir, 'plugin-env');
    writeFileSync(dump, '');
    const credential =
      '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t"}}';
    const kubeconfig = kubeconfigWithPlugin(dir, 'env', `env >> "${dump}"\necho '${credential}'`);
    const password = 'plugin-must-not-see-this-password';
    const result = await runCtl(['upgrade', 'plan', '--to', '7.8.2-6', '--kubeconfig', kubeconfig], {
      env: { CTL_PASSWORD: password, CTL_USERNAME: 'admin@example.com' },
      timeoutMs: 45_000,
    });
    const env = readFileSync(dump, 'utf8');
    assert.ok(env.includes('PATH='), `the plugin ran: ${result.stderr}`);
    assert.ok(!env.includes(password), 'the plugin saw the password');
    assert.doesNotMatch(env, /^CTL_/m);
  });

  test('a plugin that prints without end: exit 1 past the output limit; the plugin is stopped', async () => {
    const pids = path.join(dir, 'endless-pids');
    writeFileSync(pids, '');
    const kubeconfig = kubeconfigWithPlugin(dir, 'endless', `echo $$ >> "${pids}"\nexec yes credential`);
    const result = await runCtl(['upgrade', 'plan', '--to', '7.8.2-6', '--kubeconfig', kubeconfig], {
      timeoutMs: 45_000,
    });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /credential plugin .*endless-plugin printed more than 1024 KiB/);
    const left = await stillRunning(readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number));
    assert.deepEqual(left, [], `plugin processes still running: ${left.join(', ')}`);
  });
});
