/**
 * A kubeconfig user with an exec plugin and another credential: kubectl uses the other one and
 * never starts the plugin (client-go plugin/pkg/client/auth/exec/exec.go UpdateTransportConfig:
 * a token or token file, `tokenFile` or `token-file`, a username, a client certificate with its
 * key; src/kube/kubeconfig-text.ts setAsideUnusedExecs). client-node started the plugin for every request and then sent the token
 * (or Basic auth) over its answer: ctl ran a command kubectl never runs. The plugin here leaves a
 * mark when it runs; the API server records each request's Authorization header.
 */

import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { createKubeClients, loadKubeConfig } from '../../../src/kube/client.js';
import { tempDir } from '../../helpers/temp.js';
import { listenTls } from '../../helpers/tls-server.js';
import type { ServerCertificate } from '../../../src/sim/tls.js';
import { kubeconfigOfUsers } from '../../helpers/kubeconfig-files.js';
import { markingPlugin } from '../../helpers/kube-requests.js';

const dir = tempDir('ctl-exec-precedence-');
const { plugin, mark, exec } = markingPlugin(dir);
const tokenFile = join(dir, 'token');
writeFileSync(tokenFile, 'from-token-file\n');
// A certificate and key that TLS takes (written once the server's are made, below): the server
// is https, since a user's credentials go over TLS only (src/kube/plain-http.ts).
const cert = join(dir, 'client.crt');
const key = join(dir, 'client.key');

/** Each user, and the Authorization header kubectl sends for it; `plugin`: whether kubectl runs the plugin. */
const users: Record<string, { user: object; authorization: string | undefined; plugin: boolean }> = {
  token: { user: { token: 'from-token', exec }, authorization: 'Bearer from-token', plugin: false },
  tokenFile: {
    user: { 'token-file': tokenFile, exec },
    authorization: 'Bearer from-token-file',
    plugin: false,
  },
  // kubectl's key: its BearerTokenFile is a token (transport/config.go HasTokenAuth).
  kubectlTokenFile: {
    user: { tokenFile, exec },
    authorization: 'Bearer from-token-file',
    plugin: false,
  },
  // Beside a token, kubectl sends the file's token (token-file.ts).
  tokenAndTokenFile: {
    user: { token: 'from-token', tokenFile, exec },
    authorization: 'Bearer from-token-file',
    plugin: false,
  },
  basic: {
    user: { username: 'ops', password: 'pw', exec },
    authorization: `Basic ${Buffer.from('ops:pw').toString('base64')}`,
    plugin: false,
  },
  certAndKey: {
    user: { 'client-certificate': cert, 'client-key': key, exec },
    authorization: undefined,
    plugin: false,
  },
  // No username: kubectl's transport has no basic auth (HasBasicAuth asks for a username), so
  // the plugin is its credential.
  passwordOnly: { user: { password: 'pw', exec }, authorization: 'Bearer from-plugin', plugin: true },
  pluginOnly: { user: { exec }, authorization: 'Bearer from-plugin', plugin: true },
};

describe('an exec plugin beside another credential of the same user', () => {
  let server: Server;
  let url: string;
  let certificate: ServerCertificate;
  let seen: (string | undefined)[] = [];
  before(async () => {
    ({ server, url, certificate } = await listenTls((request, response) => {
      seen.push(request.headers.authorization);
      response.setHeader('Content-Type', 'application/json');
      response.end(
        '{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}',
      );
    }));
    writeFileSync(cert, certificate.certPem);
    writeFileSync(key, certificate.keyPem);
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const kubeconfig = (folder: string, users: Record<string, object>) =>
    kubeconfigOfUsers(dir, folder, users, { server: url, 'insecure-skip-tls-verify': true });

  it('kubectl never starts the plugin beside a token, a tokenFile or token-file, a username, a certificate and key; ctl neither', async () => {
    const file = kubeconfig(
      'precedence',
      Object.fromEntries(Object.entries(users).map(([name, { user }]) => [name, user])),
    );
    for (const [context, expected] of Object.entries(users)) {
      rmSync(mark, { force: true });
      seen = [];
      const kube = await createKubeClients(
        await loadKubeConfig({ kubeconfig: file, context, env: {} }),
        () => {},
      );
      await kube.rest.get('/api/v1/namespaces');
      assert.deepEqual(seen, [expected.authorization], context);
      assert.equal(existsSync(mark), expected.plugin, `${context}: the plugin ran: ${existsSync(mark)}`);
    }
  });

  it('a plugin set aside is still checked as kubectl checks it', async () => {
    rmSync(mark, { force: true });
    const file = kubeconfig('checked', {
      noApiVersion: { token: 't', exec: { command: plugin, interactiveMode: 'Never' } },
      badVersion: { token: 't', exec: { ...exec, apiVersion: 'client.authentication.k8s.io/v1alpha1' } },
    });
    await assert.rejects(
      loadKubeConfig({ kubeconfig: file, context: 'noApiVersion', env: {} }),
      (error: unknown) =>
        error instanceof UsageError &&
        error.message ===
          "the kubeconfig's user u-noApiVersion is not valid; kubectl says: apiVersion must be specified for u-noApiVersion to use exec authentication plugin",
    );
    await assert.rejects(
      loadKubeConfig({ kubeconfig: file, context: 'badVersion', env: {} }),
      /exec plugin: invalid apiVersion "client\.authentication\.k8s\.io\/v1alpha1"/,
    );
    assert.equal(existsSync(mark), false);
  });
});
