/**
 * The files of a kubeconfig that client-node would read itself, read by ctl within their bounds
 * (src/kube/token-file.ts, kubeconfig-text.ts, request-files.ts): a user's token-file as kubectl
 * reads it, and the CA, client certificate and key read again for each request. The FIFO cases
 * are in test/e2e/kubeconfig-token-file.test.ts, where a regression (a blocking read) is a child
 * process that its hang guard kills, not this test process held for good: here a directory and a
 * file past the bound stand for them, which a plain readFileSync would fail on, or read whole.
 */

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadKubeConfig } from '../../../src/kube/client.js';
import { inDecoyWorkingFolder } from '../../helpers/decoy-working-folder.js';
import { TOKEN_FILE_PERIOD_MS, TokenFile } from '../../../src/kube/token-file.js';
import { usageRefusal } from '../../helpers/usage-refusal.js';

const dir = mkdtempSync(join(tmpdir(), 'ctl-token-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A kubeconfig in its own folder (`name/config`) with these users; the context uses `u1`. */
function kubeconfig(name: string, users: string[], cluster = 'insecure-skip-tls-verify: true'): string {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  const path = join(folder, 'config');
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: dev',
      'clusters:',
      `- name: c1\n  cluster: {server: "https://127.0.0.1:6443", ${cluster}}`,
      'users:',
      ...users,
      'contexts:',
      '- name: dev\n  context: {cluster: c1, user: u1}',
    ].join('\n'),
  );
  return path;
}

describe('TokenFile: a token-file read as client-go reads it', () => {
  it('the token less its white space, read again once a minute old; a failed read again keeps the token', () => {
    const file = join(dir, 'rotating-token');
    writeFileSync(file, 'first-token\n');
    let now = 1_000_000;
    const token = new TokenFile(file, "the kubeconfig's token-file of user u1", () => now);
    assert.equal(token.current(), 'first-token');
    writeFileSync(file, ' second-token \n');
    now += TOKEN_FILE_PERIOD_MS - 1;
    assert.equal(token.current(), 'first-token', 'not read again within the minute');
    now += 1;
    assert.equal(token.current(), 'second-token', 'read again after a minute');
    // Rotated into something ctl will not read: the token before is kept.
    rmSync(file);
    mkdirSync(file);
    now += TOKEN_FILE_PERIOD_MS;
    assert.equal(token.current(), 'second-token');
    rmSync(file, { recursive: true });
    writeFileSync(file, 'third-token');
    now += TOKEN_FILE_PERIOD_MS;
    assert.equal(token.current(), 'third-token');
  });

  it('the first read: a directory, a file past 64 KiB, an empty or missing file are usage errors naming the role', () => {
    const role = "the kubeconfig's token-file of user u1";
    const folder = join(dir, 'token-folder');
    mkdirSync(folder);
    assert.throws(
      () => new TokenFile(folder, role).current(),
      usageRefusal(`${role} ${folder} is a directory, not a regular file`),
    );
    const large = join(dir, 'large-token');
    writeFileSync(large, '');
    truncateSync(large, 1024 * 1024);
    assert.throws(
      () => new TokenFile(large, role).current(),
      usageRefusal(`${role} ${large} is 1 MiB, more than the 64 KiB ctl reads of it; ctl did not read it`),
    );
    const empty = join(dir, 'empty-token');
    writeFileSync(empty, '\n');
    assert.throws(() => new TokenFile(empty, role).current(), usageRefusal(`${role} ${empty} is empty`));
    const missing = join(dir, 'no-such-token');
    assert.throws(
      () => new TokenFile(missing, role).current(),
      usageRefusal(`${role} ${missing}: no such file`),
    );
  });
});

describe("loadKubeConfig: a user's token-file", () => {
  it("is taken from the kubeconfig's folder, not the working folder, and read when loaded", async () => {
    const path = kubeconfig('relative', ['- name: u1\n  user: {token-file: tokens/u1}']);
    mkdirSync(join(dir, 'relative', 'tokens'));
    writeFileSync(join(dir, 'relative', 'tokens', 'u1'), 'token-of-u1\n');
    const loaded = await loadKubeConfig({ kubeconfig: path, env: {} });
    assert.equal(loaded.config.getCurrentUser()?.token, 'token-of-u1');
  });

  it('only the user in use: the token-file of a user no context uses is never read', async () => {
    const folder = join(dir, 'unused-token-folder');
    mkdirSync(folder);
    const path = kubeconfig('unused', [
      '- name: u1\n  user: {token: abc}',
      `- name: u2\n  user: {token-file: ${folder}}`,
      '- name: u3\n  user: {token-file: missing}',
    ]);
    const loaded = await loadKubeConfig({ kubeconfig: path, env: {} });
    assert.equal(loaded.config.getCurrentUser()?.token, 'abc');
  });

  it('a token beside the token-file wins, as in client-node: the file is not read', async () => {
    const path = kubeconfig('both', ['- name: u1\n  user: {token: abc, token-file: missing}']);
    const loaded = await loadKubeConfig({ kubeconfig: path, env: {} });
    assert.equal(loaded.config.getCurrentUser()?.token, 'abc');
  });

  it('of the user in use: a directory or a file past its bound refused when loaded, naming the user and the field', async () => {
    mkdirSync(join(dir, 'refused-folder', 'token'), { recursive: true });
    await assert.rejects(
      loadKubeConfig({
        kubeconfig: kubeconfig('refused-folder', ['- name: u1\n  user: {token-file: token}']),
        env: {},
      }),
      usageRefusal(
        `the kubeconfig's token-file of user u1 ${join(dir, 'refused-folder', 'token')} is a directory, not a regular file`,
      ),
    );
    const path = kubeconfig('refused-large', ['- name: u1\n  user: {token-file: token}']);
    writeFileSync(join(dir, 'refused-large', 'token'), '');
    truncateSync(join(dir, 'refused-large', 'token'), 65 * 1024);
    await assert.rejects(
      loadKubeConfig({ kubeconfig: path, env: {} }),
      usageRefusal(
        /^the kubeconfig's token-file of user u1 \S+token is 65 KiB, more than the 64 KiB ctl reads of it/,
      ),
    );
  });

  it("an auth-provider's tokenFile: checked when loaded, read within its bound for a request", async () => {
    const folder = join(dir, 'provider-folder');
    mkdirSync(folder);
    await assert.rejects(
      loadKubeConfig({
        kubeconfig: kubeconfig('provider-refused', [
          `- name: u1\n  user: {auth-provider: {name: tokenFile, config: {tokenFile: ${folder}}}}`,
        ]),
        env: {},
      }),
      usageRefusal(
        `the kubeconfig's auth-provider tokenFile of user u1 ${folder} is a directory, not a regular file`,
      ),
    );
    const token = join(dir, 'provider-token');
    writeFileSync(token, 'provider-token-value');
    const loaded = await loadKubeConfig({
      kubeconfig: kubeconfig('provider', [
        `- name: u1\n  user: {auth-provider: {name: tokenFile, config: {tokenFile: ${token}}}}`,
      ]),
      env: {},
    });
    const options = (await loaded.config.applyToFetchOptions({})) as unknown as { headers: Headers };
    assert.equal(options.headers.get('authorization'), 'Bearer provider-token-value');
  });
});

describe("loadKubeConfig: an auth-provider's tokenFile", () => {
  it("a relative one is taken from the kubeconfig's folder, not the working folder; its token trimmed", async () => {
    const path = kubeconfig('provider-relative', [
      '- name: u1\n  user: {auth-provider: {name: tokenFile, config: {tokenFile: tokens/u1}}}',
    ]);
    mkdirSync(join(dir, 'provider-relative', 'tokens'));
    writeFileSync(join(dir, 'provider-relative', 'tokens', 'u1'), ' token-of-the-folder\n');
    // The working folder holds a file of the same relative path: client-node read that one.
    await inDecoyWorkingFolder(dir, join('tokens', 'u1'), async () => {
      const loaded = await loadKubeConfig({ kubeconfig: path, env: {} });
      const config: unknown = loaded.config.getCurrentUser()?.authProvider?.config;
      assert.equal(
        (config as { tokenFile?: unknown }).tokenFile,
        join(dir, 'provider-relative', 'tokens', 'u1'),
      );
      const options = (await loaded.config.applyToFetchOptions({})) as unknown as { headers: Headers };
      assert.equal(options.headers.get('authorization'), 'Bearer token-of-the-folder');
    });
  });

  it('an empty one (white space only) or a missing one is refused when loaded, as client-go refuses it', async () => {
    const path = kubeconfig('provider-empty', [
      '- name: u1\n  user: {auth-provider: {name: tokenFile, config: {tokenFile: token}}}',
    ]);
    const file = join(dir, 'provider-empty', 'token');
    await assert.rejects(
      loadKubeConfig({ kubeconfig: path, env: {} }),
      usageRefusal(`the kubeconfig's auth-provider tokenFile of user u1 ${file}: no such file`),
    );
    writeFileSync(file, ' \n\t');
    await assert.rejects(
      loadKubeConfig({ kubeconfig: path, env: {} }),
      usageRefusal(`the kubeconfig's auth-provider tokenFile of user u1 ${file} is empty`),
    );
  });
});

describe('the CA, client certificate and key: read within their bounds for each request', () => {
  it('a CA replaced by a directory or a file past 4 MiB after the kubeconfig was loaded: the request is refused, naming it', async () => {
    const folder = join(dir, 'swapped');
    mkdirSync(folder, { recursive: true });
    const ca = join(folder, 'ca.pem');
    writeFileSync(ca, 'not a certificate, never parsed here');
    const path = kubeconfig('swapped', ['- name: u1\n  user: {token: abc}'], 'certificate-authority: ca.pem');
    const loaded = await loadKubeConfig({ kubeconfig: path, env: {} });
    const read = (await loaded.config.applyToFetchOptions({})) as unknown as {
      agent?: { options?: { ca?: Buffer } };
    };
    assert.equal(read.agent?.options?.ca?.toString('utf8'), 'not a certificate, never parsed here');
    rmSync(ca);
    mkdirSync(ca);
    await assert.rejects(
      loaded.config.applyToFetchOptions({}),
      usageRefusal(
        `the kubeconfig's certificate-authority of cluster c1 ${ca} is a directory, not a regular file`,
      ),
    );
    rmSync(ca, { recursive: true });
    writeFileSync(ca, '');
    truncateSync(ca, 5 * 1024 * 1024);
    await assert.rejects(
      loaded.config.applyToFetchOptions({}),
      usageRefusal(
        /^the kubeconfig's certificate-authority of cluster c1 \S+ca\.pem is 5 MiB, more than the 4 MiB/,
      ),
    );
  });
});
