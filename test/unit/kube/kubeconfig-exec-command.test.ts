/**
 * What ctl would run for a kubeconfig's user, as kubectl would run it: an `exec.command` with a
 * path separator taken from the folder of the kubeconfig that defines the user (each file of a
 * merged KUBECONFIG its own), a bare name left to $PATH, an absolute path kept (client-go's
 * ResolveLocalPaths, src/kube/kubeconfig-text.ts); a user whose auth-provider kubectl refuses
 * (gcp, azure, a name it does not know, an exec plugin beside it) or that client-node would serve
 * otherwise (a command in the provider's config, oidc with a tokenFile) refused before any
 * request, oidc and client-node's tokenFile form kept (src/kube/refused-auth-providers.ts).
 * Nothing is run here: only the loaded config is read, and a request's options built.
 */

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { ExitCode, UsageError } from '../../../src/errors.js';
import { loadKubeConfig } from '../../../src/kube/client.js';
import { resolveExecCommands } from '../../../src/kube/kubeconfig-text.js';
import { tempDir } from '../../helpers/temp.js';
import { kubeconfigOfUsers } from '../../helpers/kubeconfig-files.js';

const kubeconfig = (folder: string, users: Record<string, object>) => kubeconfigOfUsers(dir, folder, users);
const dir = tempDir('ctl-kubeconfig-exec-');

function execUser(command: string): object {
  // interactiveMode: kubectl refuses a v1 plugin without it (src/kube/auth-info.ts), and so does ctl.
  return {
    exec: { apiVersion: 'client.authentication.k8s.io/v1', command, args: ['--x'], interactiveMode: 'Never' },
  };
}

async function commandOf(env: NodeJS.ProcessEnv, context: string, kubeconfigFlag?: string): Promise<unknown> {
  const loaded = await loadKubeConfig({ kubeconfig: kubeconfigFlag, context, env });
  return loaded.config.getCurrentUser()?.exec?.command;
}

describe('a kubeconfig exec plugin is the program kubectl runs', () => {
  it('a path with a separator is taken from the kubeconfig folder; a bare name and an absolute path are kept', async () => {
    const file = kubeconfig('a', {
      dot: execUser('./plugin'),
      nested: execUser('bin/../tools/plugin'),
      bare: execUser('gke-gcloud-auth-plugin'),
      absolute: execUser('/usr/local/bin/plugin'),
    });
    assert.equal(await commandOf({}, 'dot', file), join(dir, 'a', 'plugin'));
    // Cleaned, as filepath.Join cleans.
    assert.equal(await commandOf({}, 'nested', file), join(dir, 'a', 'tools', 'plugin'));
    assert.equal(await commandOf({}, 'bare', file), 'gke-gcloud-auth-plugin');
    assert.equal(await commandOf({}, 'absolute', file), '/usr/local/bin/plugin');
  });

  it('a kubeconfig named by a relative path: its folder made absolute first (filepath.Abs)', async () => {
    const file = kubeconfig('rel', { dot: execUser('./plugin') });
    assert.equal(await commandOf({}, 'dot', relative(process.cwd(), file)), join(dir, 'rel', 'plugin'));
  });

  it('merged KUBECONFIG: each user from the folder of the file that defines it', async () => {
    const first = kubeconfig('first', { one: execUser('./plugin') });
    const second = kubeconfig('second', { two: execUser('./plugin'), one: execUser('./shadowed') });
    const env = { KUBECONFIG: [first, second].join(delimiter) };
    assert.equal(await commandOf(env, 'one'), join(dir, 'first', 'plugin'));
    assert.equal(await commandOf(env, 'two'), join(dir, 'second', 'plugin'));
  });

  it('resolveExecCommands leaves entries it cannot read as they are', () => {
    const users: unknown[] = [
      null,
      { user: null },
      { user: { exec: null } },
      { user: { exec: { command: 7 } } },
    ];
    resolveExecCommands(users, '/base');
    assert.deepEqual(users, [
      null,
      { user: null },
      { user: { exec: null } },
      { user: { exec: { command: 7 } } },
    ]);
    resolveExecCommands('not a list', '/base');
  });
});

describe('the auth providers kubectl removed', () => {
  for (const [name, kubectl, hint] of [
    ['gcp', 'The gcp auth plugin has been removed.', /gke-gcloud-auth-plugin/],
    ['azure', 'The azure auth plugin has been removed.', /kubelogin convert-kubeconfig/],
  ] as const) {
    it(`${name}: refused with kubectl's message and the plugin that replaced it, before any request`, async () => {
      const file = kubeconfig(name, {
        used: { 'auth-provider': { name, config: { 'cmd-path': '/bin/sh', 'cmd-args': '-c "exit 0"' } } },
      });
      await assert.rejects(loadKubeConfig({ kubeconfig: file, env: {} }), (error: unknown) => {
        assert.ok(error instanceof UsageError);
        assert.equal(error.exitCode, ExitCode.usage);
        assert.match(
          error.message,
          new RegExp(`^the kubeconfig's user u-used uses the ${name} auth provider`),
        );
        assert.ok(error.message.includes(`kubectl says: ${kubectl}`), error.message);
        assert.match(error.hint ?? '', hint);
        return true;
      });
    });
  }

  it('a user of a removed provider that the context does not use fails nothing; oidc loads', async () => {
    const file = kubeconfig('mixed', {
      oidc: { 'auth-provider': { name: 'oidc', config: { 'id-token': 'x', 'client-id': 'ctl' } } },
      unused: { 'auth-provider': { name: 'gcp', config: {} } },
    });
    const loaded = await loadKubeConfig({ kubeconfig: file, env: {} });
    assert.equal(loaded.config.getCurrentUser()?.authProvider?.name, 'oidc');
    // Should a request ever be made for that user, client-node's gcp provider still never runs.
    loaded.config.setCurrentContext('unused');
    await assert.rejects(
      loaded.config.applyToFetchOptions({}),
      /kubectl says: The gcp auth plugin has been removed/,
    );
  });
});

describe('the auth-provider forms kubectl refuses, or client-node would serve otherwise', () => {
  const folder = 'forms';
  mkdirSync(join(dir, folder), { recursive: true });
  const token = join(dir, folder, 'token');
  writeFileSync(token, 'file-token');
  /** Left behind if anything ever runs one of the commands below. */
  const marker = join(dir, folder, 'ran');
  const leavesMarker = {
    apiVersion: 'client.authentication.k8s.io/v1',
    command: process.execPath,
    args: ['-e', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`],
  };
  const oidcConfig = { 'id-token': 'x', 'client-id': 'ctl' };
  /** Each form: the user, what the message says (`USER` for the user's name), what the hint says. */
  const refused = [
    {
      form: 'an exec command in the config of an oidc provider',
      user: { 'auth-provider': { name: 'oidc', config: { ...oidcConfig, exec: leavesMarker } } },
      message:
        "the kubeconfig's user USER has an exec command in its auth-provider's config (auth-provider.config.exec); kubectl never runs it, and neither does ctl",
      hint: /^Give the command as the user's exec credential plugin instead \(users\[\]\.user\.exec/,
    },
    {
      // Empty, client-node ran nothing and the oidc provider was used: refused as any other.
      form: 'an empty exec in the config of an oidc provider',
      user: { 'auth-provider': { name: 'oidc', config: { ...oidcConfig, exec: '' } } },
      message:
        "the kubeconfig's user USER has an exec command in its auth-provider's config (auth-provider.config.exec); kubectl never runs it, and neither does ctl",
      hint: /^Give the command as the user's exec credential plugin instead \(users\[\]\.user\.exec/,
    },
    {
      form: 'an exec left blank (null) in the config of a tokenFile provider',
      user: { 'auth-provider': { name: 'tokenFile', config: { tokenFile: token, exec: null } } },
      message: "the kubeconfig's user USER has an exec command in its auth-provider's config",
      hint: /users\[\]\.user\.exec/,
    },
    {
      form: 'an exec command beside a tokenFile',
      user: { 'auth-provider': { name: 'tokenFile', config: { tokenFile: token, exec: leavesMarker } } },
      message: "the kubeconfig's user USER has an exec command in its auth-provider's config",
      hint: /users\[\]\.user\.exec/,
    },
    {
      form: 'a name kubectl does not know',
      user: { 'auth-provider': { name: 'openstack', config: { ttl: '1h' } } },
      message:
        'the kubeconfig\'s user USER uses the auth provider "openstack", which kubectl does not have; kubectl says: no Auth Provider found for name "openstack"',
      hint: /exec credential plugin \(users\[\]\.user\.exec\)/,
    },
    {
      form: "the name client-node's ExecAuth claims, even with a tokenFile",
      user: { 'auth-provider': { name: 'exec', config: { tokenFile: token } } },
      message: 'kubectl says: no Auth Provider found for name "exec"',
      hint: /knows the oidc auth provider/,
    },
    {
      form: 'no name and no tokenFile',
      user: { 'auth-provider': { config: {} } },
      message: 'kubectl says: no Auth Provider found for name ""',
      hint: /knows the oidc auth provider/,
    },
    {
      form: 'a tokenFile that is not a path',
      user: { 'auth-provider': { name: 'custom', config: { tokenFile: 3 } } },
      message: 'kubectl says: no Auth Provider found for name "custom"',
      hint: /whose config has a tokenFile/,
    },
    {
      form: 'an exec plugin beside an auth-provider',
      user: { exec: leavesMarker, 'auth-provider': { name: 'oidc', config: oidcConfig } },
      message:
        "the kubeconfig's user USER has both an exec credential plugin and an auth-provider; kubectl says: authProvider cannot be provided in combination with an exec plugin for USER",
      hint: /remove the user's auth-provider/,
    },
    {
      form: 'oidc with a tokenFile, whose token client-node would send instead of the id-token',
      user: { 'auth-provider': { name: 'oidc', config: { ...oidcConfig, tokenFile: token } } },
      message: "kubectl's oidc provider ignores the tokenFile",
      hint: /^Remove tokenFile/,
    },
  ] as const;
  // One context a form (`form0`, ...), and a plain token user first, as the current context.
  const file = kubeconfig(folder, {
    kept: { token: 'kept-token' },
    ...Object.fromEntries(refused.map(({ user }, index) => [`form${index}`, user])),
  });

  it('each is refused when the kubeconfig is loaded: exit 2, what kubectl says, what to use instead', async () => {
    for (const [index, { form, message, hint }] of refused.entries()) {
      await assert.rejects(
        loadKubeConfig({ kubeconfig: file, context: `form${index}`, env: {} }),
        (error: unknown) => {
          assert.ok(error instanceof UsageError, form);
          assert.equal(error.exitCode, ExitCode.usage, form);
          assert.ok(
            error.message.includes(message.replaceAll('USER', `u-form${index}`)),
            `${form}: ${error.message}`,
          );
          assert.match(error.hint ?? '', hint, form);
          return true;
        },
      );
    }
    assert.equal(existsSync(marker), false, 'a command ran');
  });

  it("each is refused for a request made for another context's user: no command runs, none goes without credentials", async () => {
    const loaded = await loadKubeConfig({ kubeconfig: file, env: {} });
    for (const [index, { form, message }] of refused.entries()) {
      loaded.config.setCurrentContext(`form${index}`);
      await assert.rejects(loaded.config.applyToFetchOptions({}), (error: unknown) => {
        assert.ok(error instanceof UsageError, form);
        assert.ok(
          error.message.includes(message.replaceAll('USER', `u-form${index}`)),
          `${form}: ${error.message}`,
        );
        return true;
      });
    }
    assert.equal(existsSync(marker), false, 'a command ran');
  });

  it("oidc and client-node's tokenFile form (whatever its name) are kept", async () => {
    const kept = kubeconfig('kept', {
      oidc: { 'auth-provider': { name: 'oidc', config: oidcConfig } },
      tokenFile: { 'auth-provider': { name: 'tokenFile', config: { tokenFile: token } } },
      custom: { 'auth-provider': { name: 'custom', config: { tokenFile: token } } },
    });
    for (const context of ['oidc', 'tokenFile', 'custom']) {
      const loaded = await loadKubeConfig({ kubeconfig: kept, context, env: {} });
      assert.ok(loaded.config.getCurrentUser()?.authProvider, context);
      // The oidc provider's own sign-in is the e2e test's (kubeconfig-plugins): here the file's token.
      if (context === 'oidc') continue;
      // node-fetch's Headers (client-node builds them), read by their own get.
      const { headers } = await loaded.config.applyToFetchOptions({});
      const fetchHeaders = headers as { get(name: string): string | null } | undefined;
      assert.equal(fetchHeaders?.get('authorization'), 'Bearer file-token', context);
    }
  });
});
