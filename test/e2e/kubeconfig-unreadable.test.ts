/**
 * Files ctl needs that it may not read (permission denied, EACCES): the kubeconfig itself, the
 * CA, client certificate and key and the token-file it names, and in a pod the service account's
 * token and CA. Each is refused before any request with exit 2 (CLI.md "Exit codes": a required
 * input ctl cannot read, as every kubeconfig file), naming the file, with Go's words for the
 * reason and what to do; the CA, certificate and key in kubectl's own words, compared here with
 * the real kubectl 1.28, 1.32 and 1.35 run the same way (test/helpers/kubectl-verdict.ts).
 * Before, ctl showed Node's `EACCES: permission denied, open '...'`, or the bare code `EACCES`,
 * the hint said to fix the path, and in a pod the first request failed on it (exit 1).
 *
 * The files are made unreadable with chmod 000. Run as root, that mode stops nobody (root has
 * CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH), so ctl and kubectl then run under util-linux's
 * `setpriv` without those two capabilities, and the mode holds as for any other user; a root
 * run without setpriv fails and says so, rather than test nothing.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ctlBin, ctlEnv, repoRoot } from '../helpers/run-ctl.js';
import {
  described,
  kubectlSays,
  kubectlVerdicts,
  type Listener,
  listen,
} from '../helpers/kubectl-verdict.js';
import { tempDir } from '../helpers/temp.js';
import { runTool } from '../helpers/tools.js';

/** What runs a program so that a file of mode 000 is unreadable to it, root or not. */
function unprivileged(): string[] {
  if (process.getuid?.() !== 0) return [];
  const probe = spawnSync('setpriv', ['--version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      "these tests run as root, where chmod 000 stops nobody, and need util-linux's setpriv to drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH: install util-linux, or run the tests as another user",
    );
  }
  return ['setpriv', '--bounding-set', '-dac_override,-dac_read_search'];
}

const dir = tempDir('ctl-unreadable-');
let listener: Listener;
let wrapper: string[];

/** An unreadable file `name` in `folder` (created), holding `text`. */
function unreadable(folder: string, name: string, text = 'unreadable'): string {
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, name);
  writeFileSync(file, text);
  chmodSync(file, 0o000);
  return file;
}

/** A kubeconfig in `folder` of cluster `c` (the listener, and `cluster`) and user `u` (`user`). */
function kubeconfig(folder: string, cluster: object, user: object): string {
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, 'config');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'x',
      clusters: [{ name: 'c', cluster: { server: listener.url, ...cluster } }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    }),
  );
  return file;
}

/** `ctl upgrade plan --kubeconfig <file>`, unprivileged. */
async function plan(file: string): Promise<{ code: number; stderr: string }> {
  const before = listener.connections();
  const [bin, ...args] = [...wrapper, process.execPath, ctlBin, 'upgrade', 'plan', '--kubeconfig', file];
  const result = await runTool(bin as string, args, { env: ctlEnv(), cwd: repoRoot, timeoutMs: 120_000 });
  assert.equal(listener.connections(), before, `ctl sent a request:\n${result.stderr}`);
  return { code: result.code, stderr: result.stderr };
}

/** ctl's `kubectl says: ...` part of its error as each kubectl prints it, for a file's problem. */
async function sameAsKubectl(file: string, stderr: string): Promise<void> {
  for (const verdict of await kubectlVerdicts(file, listener, { wrapper })) {
    assert.equal(verdict.connections, 0, described(verdict));
    assert.equal(verdict.code, 1, described(verdict));
    assert.ok(
      stderr.includes(`kubectl says: ${kubectlSays(verdict)}\n`),
      `${described(verdict)}\nctl:\n${stderr}`,
    );
  }
}

describe(
  'files ctl may not read (EACCES): refused before any request, exit 2, naming the file (e2e)',
  { timeout: 300_000 },
  () => {
    before(async () => {
      wrapper = unprivileged();
      listener = await listen();
    });
    after(() => listener.close());

    it('chmod 000 (as root: ctl and kubectl without CAP_DAC_OVERRIDE, setpriv): the kubeconfig itself', async () => {
      const folder = path.join(dir, 'self');
      const file = kubeconfig(folder, { 'insecure-skip-tls-verify': true }, { token: 't' });
      chmodSync(file, 0o000);
      const result = await plan(file);
      assert.equal(result.code, 2, result.stderr);
      assert.match(
        result.stderr,
        new RegExp(`^error: cannot read the kubeconfig ${file}: permission denied$`, 'm'),
      );
      assert.match(
        result.stderr,
        /^hint: Make the file readable by the user ctl runs as \(its permissions, and those of the folders above it\), or pass another with --kubeconfig FILE\.$/m,
      );
      assert.doesNotMatch(result.stderr, /EACCES/);
    });

    it("chmod 000 (as root: without CAP_DAC_OVERRIDE, setpriv): the CA, in kubectl's words as kubectl prints them", async () => {
      const folder = path.join(dir, 'ca');
      const ca = unreadable(folder, 'ca.pem');
      const file = kubeconfig(folder, { 'certificate-authority': 'ca.pem' }, { token: 't' });
      const result = await plan(file);
      assert.equal(result.code, 2, result.stderr);
      assert.match(
        result.stderr,
        new RegExp(
          `^error: the kubeconfig's cluster c is not valid; kubectl says: unable to read certificate-authority ${ca} for c due to open ${ca}: permission denied$`,
          'm',
        ),
      );
      assert.match(
        result.stderr,
        new RegExp(
          `^hint: Make ${ca} readable by the user ctl runs as .*, or fix the path of certificate-authority in cluster c`,
          'm',
        ),
      );
      await sameAsKubectl(file, result.stderr);
    });

    it('chmod 000 (as root: without CAP_DAC_OVERRIDE, setpriv): a client certificate and key, both errors as kubectl prints them', async () => {
      const folder = path.join(dir, 'cert');
      const cert = unreadable(folder, 'client.crt');
      const key = unreadable(folder, 'client.key');
      const file = kubeconfig(
        folder,
        { 'insecure-skip-tls-verify': true },
        { 'client-certificate': 'client.crt', 'client-key': 'client.key' },
      );
      const result = await plan(file);
      assert.equal(result.code, 2, result.stderr);
      assert.ok(
        result.stderr.includes(
          `error: the kubeconfig's user u is not valid; kubectl says: Error in configuration:\n* unable to read client-cert ${cert} for u due to open ${cert}: permission denied\n* unable to read client-key ${key} for u due to open ${key}: permission denied\n`,
        ),
        result.stderr,
      );
      assert.match(result.stderr, new RegExp(`^hint: Make ${cert} readable .* Make ${key} readable`, 'm'));
      await sameAsKubectl(file, result.stderr);
    });

    it('chmod 000 (as root: without CAP_DAC_OVERRIDE, setpriv): a token-file', async () => {
      const folder = path.join(dir, 'token');
      const token = unreadable(folder, 'token', 'secret-token');
      // An https server: toward a plain-http one ctl reads no token file, as kubectl sends it no
      // token (src/kube/plain-http.ts). No connection is expected either way.
      const server = listener.url.replace(/^http:/, 'https:');
      const file = kubeconfig(
        folder,
        { server, 'insecure-skip-tls-verify': true },
        { 'token-file': 'token' },
      );
      const result = await plan(file);
      assert.equal(result.code, 2, result.stderr);
      assert.match(
        result.stderr,
        new RegExp(
          `^error: cannot read the kubeconfig's token-file of user u ${token}: permission denied$`,
          'm',
        ),
      );
      assert.match(result.stderr, /^hint: Fix the path in the kubeconfig .*, or the file's permissions\.$/m);
    });

    it("chmod 000 (as root: without CAP_DAC_OVERRIDE, setpriv): in a pod, the service account's token and CA, when the in-cluster config is loaded", async () => {
      const root = path.join(dir, 'pod');
      const account = path.join(root, 'var/run/secrets/kubernetes.io/serviceaccount');
      const client = pathToFileURL(path.join(repoRoot, 'dist/src/kube/client.js')).href;
      // ctl's loader, in a process of its own without the capabilities (the pod's root injected).
      const script = `
      const { loadKubeConfig } = await import(${JSON.stringify(client)});
      try {
        await loadKubeConfig({ env: { KUBERNETES_SERVICE_HOST: '10.0.0.1' }, inClusterRoot: ${JSON.stringify(root)} });
        console.log(JSON.stringify({ loaded: true }));
      } catch (error) {
        console.log(JSON.stringify({ exitCode: error.exitCode, message: error.message, hint: error.hint }));
      }`;
      const load = async () => {
        const [bin, ...args] = [...wrapper, process.execPath, '--input-type=module', '-e', script];
        const result = await runTool(bin as string, args, {
          env: { ...ctlEnv(), KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
          cwd: repoRoot,
        });
        assert.equal(result.code, 0, result.stderr);
        return JSON.parse(result.stdout) as {
          loaded?: boolean;
          exitCode?: number;
          message?: string;
          hint?: string;
        };
      };
      const token = unreadable(account, 'token', 'pod-token');
      writeFileSync(path.join(account, 'ca.crt'), 'not read as a certificate: no request is sent');
      let outcome = await load();
      assert.equal(outcome.exitCode, 2, JSON.stringify(outcome));
      assert.equal(
        outcome.message,
        `cannot read the in-cluster service account's token ${token}: permission denied`,
      );
      assert.match(
        outcome.hint ?? '',
        /^Kubernetes mounts the pod's service account files there: check that the pod's user can read them/,
      );

      chmodSync(token, 0o644);
      const ca = path.join(account, 'ca.crt');
      chmodSync(ca, 0o000);
      outcome = await load();
      assert.equal(outcome.exitCode, 2, JSON.stringify(outcome));
      assert.equal(
        outcome.message,
        `cannot read the in-cluster service account's CA ${ca}: permission denied`,
      );

      chmodSync(ca, 0o644);
      assert.deepEqual(await load(), { loaded: true });
    });
  },
);
