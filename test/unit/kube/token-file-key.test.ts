/**
 * A kubeconfig user's `tokenFile`, the key kubectl reads (client-go tools/clientcmd/api/v1/
 * types.go AuthInfo.TokenFile), which client-node never reads: ctl sent such a user's requests
 * without a token. It is read as the `token-file` is (src/kube/kubeconfig-token-files.ts,
 * token-file.ts): from the kubeconfig's folder, only for the user in use, within its bound, its
 * messages naming `tokenFile`. A `token` beside it is what kubectl falls back on: kubectl 1.28,
 * 1.32 and 1.35 send the file's token when the file reads (by hand against the simulator; the
 * e2e test/e2e/kubeconfig-token-file.test.ts holds ctl to one of them). Both keys: the
 * `tokenFile`, as kubectl.
 */

import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadKubeConfig } from '../../../src/kube/client.js';
import { TOKEN_FILE_PERIOD_MS, TokenFile } from '../../../src/kube/token-file.js';
import { kubeconfigOfUsers } from '../../helpers/kubeconfig-files.js';
import { inDecoyWorkingFolder } from '../../helpers/decoy-working-folder.js';
import { tempDir } from '../../helpers/temp.js';
import { usageRefusal } from '../../helpers/usage-refusal.js';

const dir = tempDir('ctl-token-file-key-');

/** `<dir>/<folder>/config`, users `u-<name>` each in context `<name>`, the first current. */
const kubeconfig = (folder: string, users: Record<string, object>) => kubeconfigOfUsers(dir, folder, users);

/** The token the context's user sends, as client-node reads it for a request. */
async function tokenOf(file: string, context?: string): Promise<string | undefined> {
  const loaded = await loadKubeConfig({ kubeconfig: file, env: {}, ...(context ? { context } : {}) });
  const options = (await loaded.config.applyToFetchOptions({})) as unknown as { headers: Headers };
  return options.headers.get('authorization') ?? undefined;
}

describe('TokenFile beside a token: the token while the file never read, as client-go', () => {
  it('the token until the file reads, tried again on each use; then the file, kept when it fails again', () => {
    const file = join(dir, 'beside-token');
    let now = 1_000_000;
    const token = new TokenFile(file, "the kubeconfig's tokenFile of user u1", () => now, 'inline-token');
    assert.equal(token.current(), 'inline-token', 'missing: the token, no refusal');
    writeFileSync(file, 'file-token\n');
    assert.equal(token.current(), 'file-token', 'tried again at the next use, not a minute later');
    rmSync(file);
    now += TOKEN_FILE_PERIOD_MS;
    assert.equal(token.current(), 'file-token', "a failed read again keeps the file's token");
  });
});

describe("loadKubeConfig: a user's tokenFile, kubectl's key", () => {
  it("is read, trimmed, from the kubeconfig's folder, not the working folder", async () => {
    const file = kubeconfig('relative', { u1: { tokenFile: 'tokens/u1' } });
    mkdirSync(join(dir, 'relative', 'tokens'));
    writeFileSync(join(dir, 'relative', 'tokens', 'u1'), ' token-of-the-folder\n');
    // The working folder holds a file of the same relative path: it is not the one read.
    await inDecoyWorkingFolder(dir, join('tokens', 'u1'), async () => {
      assert.equal(await tokenOf(file), 'Bearer token-of-the-folder');
    });
  });

  it('a token beside it: the file is sent when it reads, the token when it does not (kubectl measured)', async () => {
    const file = kubeconfig('beside', { u1: { token: 'inline-token', tokenFile: 'token' } });
    assert.equal(await tokenOf(file), 'Bearer inline-token', 'no file: the token, and no refusal');
    writeFileSync(join(dir, 'beside', 'token'), 'file-token\n');
    assert.equal(await tokenOf(file), 'Bearer file-token');
  });

  it('both keys: the tokenFile is read, as kubectl reads it; the token-file never is', async () => {
    const file = kubeconfig('both-keys', {
      u1: { tokenFile: 'kubectl-token', 'token-file': 'missing' },
      u2: { tokenFile: 'missing', 'token-file': 'client-node-token' },
    });
    writeFileSync(join(dir, 'both-keys', 'kubectl-token'), 'kubectl-token\n');
    writeFileSync(join(dir, 'both-keys', 'client-node-token'), 'client-node-token\n');
    assert.equal(await tokenOf(file, 'u1'), 'Bearer kubectl-token');
    await assert.rejects(
      tokenOf(file, 'u2'),
      usageRefusal(
        `the kubeconfig's tokenFile of user u-u2 ${join(dir, 'both-keys', 'missing')}: no such file`,
      ),
    );
  });

  it('missing, a directory or empty: refused when loaded, naming the tokenFile and the user', async () => {
    const file = kubeconfig('refused', {
      missing: { tokenFile: 'missing' },
      folder: { tokenFile: 'folder' },
      empty: { tokenFile: 'empty' },
    });
    mkdirSync(join(dir, 'refused', 'folder'));
    writeFileSync(join(dir, 'refused', 'empty'), ' \n');
    const role = (name: string) =>
      `the kubeconfig's tokenFile of user u-${name} ${join(dir, 'refused', name)}`;
    await assert.rejects(tokenOf(file, 'missing'), usageRefusal(`${role('missing')}: no such file`));
    await assert.rejects(
      tokenOf(file, 'folder'),
      usageRefusal(`${role('folder')} is a directory, not a regular file`),
    );
    await assert.rejects(tokenOf(file, 'empty'), usageRefusal(`${role('empty')} is empty`));
  });

  it('of a user no context uses: never read', async () => {
    const file = kubeconfig('unused', { used: { token: 'abc' }, unused: { tokenFile: 'missing' } });
    assert.equal(await tokenOf(file, 'used'), 'Bearer abc');
  });

  it("beside a username: refused, in kubectl's words (its transport refuses the pair)", async () => {
    const file = kubeconfig('basic', { u1: { tokenFile: 'token', username: 'ops', password: 'p' } });
    writeFileSync(join(dir, 'basic', 'token'), 'file-token');
    await assert.rejects(
      tokenOf(file),
      usageRefusal(
        "the kubeconfig's user u-u1 has a tokenFile and a username; kubectl says: username/password or bearer token may be set, but not both",
      ),
    );
  });
});
