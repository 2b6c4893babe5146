/**
 * kubectl's checks of the kubeconfig user it uses (client-go tools/clientcmd/validation.go
 * validateAuthInfo, and exec.go's apiVersion check; src/kube/auth-info.ts), made by ctl when the
 * kubeconfig is loaded, before any request: exit 2, kubectl's words, what to change. Each
 * expected text is what kubectl 1.28, 1.32 and 1.35 print for the same user (`kubectl get ns`
 * with the kubeconfig, run by hand when this test was written), after client-go's
 * `error: ` (several: `Error in configuration:` and a `* ` line each). Only the context in use is checked, as kubectl checks only it.
 * Before, client-node sent what it made of such a user.
 */

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';
import { ExitCode, UsageError } from '../../../src/errors.js';
import { loadKubeConfig } from '../../../src/kube/client.js';
import { tempDir } from '../../helpers/temp.js';
import { kubeconfigOfUsers } from '../../helpers/kubeconfig-files.js';

const kubeconfig = (folder: string, users: Record<string, object>) => kubeconfigOfUsers(dir, folder, users);
const dir = tempDir('ctl-auth-info-');

const certFile = join(dir, 'client.crt');
writeFileSync(certFile, 'not a certificate: nothing here reads it as one');
const keyFile = join(dir, 'client.key');
writeFileSync(keyFile, 'not a key');
const tokenFile = join(dir, 'token');
writeFileSync(tokenFile, 'file-token\n');
const v1 = 'client.authentication.k8s.io/v1';
const plugin = { apiVersion: v1, command: '/bin/false', interactiveMode: 'Never' };

/** Each user kubectl refuses: what kubectl says of user `u-<name>` (USER), and what the hint says. */
const refused: Record<string, { user: object; kubectl: string; hint: RegExp }> = {
  tokenAndBasic: {
    user: { token: 't', username: 'ops', password: 'p' },
    kubectl:
      'more than one authentication method found for USER; found [token basicAuth], only one is allowed',
    hint: /^Keep one way to sign in for user USER: remove its token, or its username and password\.$/,
  },
  tokenAndUsername: {
    user: { token: 't', username: 'ops' },
    kubectl:
      'more than one authentication method found for USER; found [token basicAuth], only one is allowed',
    hint: /Keep one way to sign in/,
  },
  tokenAndPassword: {
    user: { token: 't', password: 'p' },
    kubectl:
      'more than one authentication method found for USER; found [token basicAuth], only one is allowed',
    hint: /Keep one way to sign in/,
  },
  certFileAndData: {
    user: { 'client-certificate': certFile, 'client-certificate-data': 'YQ==', 'client-key-data': 'YQ==' },
    kubectl: 'client-cert-data and client-cert are both specified for USER. client-cert-data will override.',
    hint: /^Keep one of client-certificate and client-certificate-data in user USER\.$/,
  },
  keyFileAndData: {
    user: { 'client-certificate-data': 'YQ==', 'client-key': keyFile, 'client-key-data': 'YQ==' },
    kubectl: 'client-key-data and client-key are both specified for USER; client-key-data will override',
    hint: /^Keep one of client-key and client-key-data in user USER\.$/,
  },
  certWithoutKey: {
    user: { 'client-certificate-data': 'YQ==' },
    kubectl:
      'client-key-data or client-key must be specified for USER to use the clientCert authentication method.',
    hint: /key of its client certificate \(client-key or client-key-data\), or remove the certificate/,
  },
  execWithoutCommand: {
    user: { exec: { apiVersion: v1, interactiveMode: 'Never' } },
    kubectl: 'command must be specified for USER to use exec authentication plugin',
    hint: /Give the plugin's command in users\[\]\.user\.exec of user USER/,
  },
  execEmptyCommand: {
    user: { exec: { ...plugin, command: '' } },
    kubectl: 'command must be specified for USER to use exec authentication plugin',
    hint: /Give the plugin's command/,
  },
  execWithoutApiVersion: {
    user: { exec: { command: '/bin/false', interactiveMode: 'Never' } },
    kubectl: 'apiVersion must be specified for USER to use exec authentication plugin',
    hint: /apiVersion: client\.authentication\.k8s\.io\/v1 or v1beta1/,
  },
  execV1WithoutInteractiveMode: {
    user: { exec: { apiVersion: v1, command: '/bin/false' } },
    kubectl: 'interactiveMode must be specified for USER to use exec authentication plugin',
    hint: /Set interactiveMode in users\[\]\.user\.exec of user USER: Never/,
  },
  execInvalidInteractiveMode: {
    user: { exec: { ...plugin, interactiveMode: 'Sometimes' } },
    kubectl: 'invalid interactiveMode for USER: "Sometimes"',
    hint: /Set interactiveMode/,
  },
  execEnvWithoutName: {
    user: {
      exec: {
        ...plugin,
        env: [
          { name: 'A', value: '1' },
          { name: '', value: 'x' },
        ],
      },
    },
    kubectl: 'env variable name must be specified for USER to use exec authentication plugin',
    hint: /Give every env entry of users\[\]\.user\.exec of user USER a name, or remove the entry/,
  },
  groupsWithoutAs: {
    user: { token: 't', 'as-groups': ['admins'] },
    kubectl: 'requesting uid, groups or user-extra for USER without impersonating a user',
    hint: /^Give user USER the user to impersonate \(as\), or remove as-uid, as-groups and as-user-extra\.$/,
  },
  uidWithoutAs: {
    user: { token: 't', 'as-uid': '42' },
    kubectl: 'requesting uid, groups or user-extra for USER without impersonating a user',
    hint: /impersonate/,
  },
  // Several at once: as kubectl prints client-go's aggregate, in its order, each hint said.
  several: {
    user: { token: 't', username: 'ops', 'client-certificate-data': 'YQ==' },
    kubectl:
      'Error in configuration:\n* client-key-data or client-key must be specified for USER to use the clientCert authentication method.\n* more than one authentication method found for USER; found [token basicAuth], only one is allowed',
    hint: /key of its client certificate.* Keep one way to sign in/,
  },
};

/** Users kubectl uses as they are (it checks none of these). */
const kept: Record<string, object> = {
  token: { token: 't' },
  basic: { username: 'ops', password: 'p' },
  certAndKey: { 'client-certificate': certFile, 'client-key': keyFile },
  // validateAuthInfo checks a key only beside a certificate.
  keyAlone: { 'client-key-data': 'YQ==' },
  // A missing interactiveMode is IfAvailable for v1beta1 (api/v1/defaults.go).
  execV1beta1: { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: '/bin/false' } },
  execV1: { exec: plugin },
  impersonating: { token: 't', as: 'someone', 'as-groups': ['admins'] },
  // A token-file is not the token validateAuthInfo counts (kubectl 1.35 goes on to the request).
  tokenFileAndBasic: { 'token-file': tokenFile, username: 'ops', password: 'p' },
  anonymous: {},
};

function refusedWith(name: string, kubectl: string, hint: RegExp): (error: unknown) => boolean {
  const user = `u-${name}`;
  return (error: unknown) => {
    assert.ok(error instanceof UsageError, `${name}: ${String(error)}`);
    assert.equal(error.exitCode, ExitCode.usage, name);
    assert.equal(
      error.message,
      `the kubeconfig's user ${user} is not valid; kubectl says: ${kubectl.replaceAll('USER', user)}`,
      name,
    );
    assert.match(error.hint ?? '', new RegExp(hint.source.replaceAll('USER', user)), name);
    return true;
  };
}

describe("kubectl's checks of the kubeconfig user in use", () => {
  const file = kubeconfig('all', {
    ...kept,
    ...Object.fromEntries(Object.entries(refused).map(([name, { user }]) => [name, user])),
  });

  it("each user kubectl refuses: refused when loaded, exit 2, in kubectl's words, with what to change", async () => {
    for (const [name, { kubectl, hint }] of Object.entries(refused)) {
      await assert.rejects(
        loadKubeConfig({ kubeconfig: file, context: name, env: {} }),
        refusedWith(name, kubectl, hint),
      );
    }
  });

  it('the users kubectl uses load, beside the refused ones: only the context in use is checked', async () => {
    for (const name of Object.keys(kept)) {
      const loaded = await loadKubeConfig({ kubeconfig: file, context: name, env: {} });
      assert.equal(loaded.config.getCurrentUser()?.name, `u-${name}`, name);
    }
  });

  it("an exec plugin's apiVersion client-go does not speak: exec.go's words, once validation passes", async () => {
    const versions = kubeconfig('versions', {
      alpha: { exec: { ...plugin, apiVersion: 'client.authentication.k8s.io/v1alpha1' } },
      other: { exec: { ...plugin, apiVersion: 'foo/v9' } },
    });
    for (const [context, version] of [
      ['alpha', 'client.authentication.k8s.io/v1alpha1'],
      ['other', 'foo/v9'],
    ] as const) {
      await assert.rejects(loadKubeConfig({ kubeconfig: versions, context, env: {} }), (error: unknown) => {
        assert.ok(error instanceof UsageError, context);
        assert.equal(error.exitCode, ExitCode.usage);
        assert.equal(
          error.message,
          `the kubeconfig's user u-${context} has an exec plugin kubectl does not run; kubectl says: exec plugin: invalid apiVersion "${version}"`,
        );
        assert.match(
          error.hint ?? '',
          /client\.authentication\.k8s\.io\/v1 or client\.authentication\.k8s\.io\/v1beta1/,
        );
        return true;
      });
    }
  });

  it('a merged KUBECONFIG: the user of the first file that defines it is the one checked', async () => {
    const first = kubeconfig('merged-first', { good: { token: 't' } });
    const second = kubeconfig('merged-second', { good: { token: 't', username: 'ops' } });
    const loaded = await loadKubeConfig({
      env: { KUBECONFIG: [first, second].join(delimiter) },
      context: 'good',
    });
    assert.equal(loaded.config.getCurrentUser()?.username, undefined);
    await assert.rejects(
      loadKubeConfig({ env: { KUBECONFIG: [second, first].join(delimiter) }, context: 'good' }),
      /more than one authentication method found for u-good/,
    );
  });
});
