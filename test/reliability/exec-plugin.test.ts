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
import { alive } from '../helpers/processes.js';

const PRELOAD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'deadline-preload.js');

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

/**
 * A kubeconfig whose user runs `script` as its exec plugin; the API server is never reached.
 * `settings` go into the exec map as they are (flow YAML: `args: [...], env: [...]`).
 */
function kubeconfigWithPlugin(dir: string, name: string, script: string, settings = ''): string {
  const plugin = path.join(dir, `${name}-plugin`);
  writeFileSync(plugin, `#!/bin/sh\n${script}\n`, { mode: 0o700 });
  const file = path.join(dir, `${name}-kubeconfig`);
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:9", insecure-skip-tls-verify: true}}]',
      `users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: "${plugin}", interactiveMode: Never${settings ? `, ${settings}` : ''}}}}]`,
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

  test('a plugin that prints without end on stderr: exit 1 past the limit, no crash; the plugin is stopped', async () => {
    const pids = path.join(dir, 'noisy-pids');
    writeFileSync(pids, '');
    // client-node kept every byte of a plugin's stderr: ctl died with `Invalid string length`.
    const kubeconfig = kubeconfigWithPlugin(
      dir,
      'noisy',
      `echo $$ >> "${pids}"\nexec yes "still signing in" >&2`,
    );
    const result = await runCtl(['upgrade', 'plan', '--to', '7.8.2-6', '--kubeconfig', kubeconfig], {
      timeoutMs: 45_000,
    });
    assert.equal(result.code, 1, result.stderr.slice(0, 2000));
    assert.match(result.stderr, /credential plugin .*noisy-plugin printed more than 1024 KiB on stderr/);
    assert.doesNotMatch(result.stderr, /Invalid string length|^\s+at /m);
    assert.ok(result.stderr.length < 4096, `stderr is ${result.stderr.length} characters`);
    const left = await stillRunning(readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number));
    assert.deepEqual(left, [], `plugin processes still running: ${left.join(', ')}`);
  });

  test('a failing plugin that quotes its secret settings: its reason is shown, the secrets are not', async () => {
    const envSecret = 'EnvClientS3cret/with+chars';
    const argSecret = 'ArgClientS3cret-0f9e';
    const kubeconfig = kubeconfigWithPlugin(
      dir,
      'failing',
      // What a sign-in helper that is refused often prints: the settings it was given.
      'echo "sign-in refused: client secret $OIDC_CLIENT_SECRET, args $*" >&2\nexit 1',
      `args: [get-token, "--client-secret=${argSecret}", --token, "${argSecret}-2"], env: [{name: OIDC_CLIENT_SECRET, value: "${envSecret}"}, {name: REGION, value: eu-west-1}]`,
    );
    const outputs: string[] = [];
    for (const extra of [[], ['-v=9'], ['-o', 'json']]) {
      const result = await runCtl(
        ['upgrade', 'plan', '--to', '7.8.2-6', '--kubeconfig', kubeconfig, ...extra],
        {
          timeoutMs: 45_000,
        },
      );
      assert.equal(result.code, 1, result.stderr);
      outputs.push(`${result.stdout}\n${result.stderr}`);
    }
    const printed = outputs.join('\n');
    assert.match(
      printed,
      /credential plugin .*failing-plugin failed \(exit 1\): sign-in refused: client secret \[REDACTED\]/,
    );
    // Not every argument is a secret: the command's words and the region stay readable.
    assert.match(printed, /args get-token --client-secret=\[REDACTED\] --token \[REDACTED\]/);
    for (const secret of [envSecret, argSecret, encodeURIComponent(envSecret)])
      assert.ok(!printed.includes(secret), `printed ${secret}:\n${printed.slice(0, 3000)}`);
  });

  test('a plugin that prints a bare token, not an ExecCredential: no part of it is quoted', async () => {
    const token = 'BareT0kenFromAFile-a1b2c3d4e5f6';
    const kubeconfig = kubeconfigWithPlugin(dir, 'bare', `echo "${token}"`);
    const result = await runCtl(['upgrade', 'plan', '--to', '7.8.2-6', '--kubeconfig', kubeconfig, '-v=9'], {
      timeoutMs: 45_000,
    });
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      /credential plugin .*bare-plugin printed no ExecCredential: its output \(\d+ bytes\) is not JSON/,
    );
    // JSON.parse's own message quoted the first 10 characters of what it read.
    for (let length = 6; length <= token.length; length += 1)
      assert.ok(!result.stderr.includes(token.slice(0, length)), `printed ${token.slice(0, length)}`);
  });
});
