/**
 * What ctl would run for a kubeconfig's user, as kubectl would run it: an `exec.command` with a
 * path separator taken from the folder of the kubeconfig that defines the user (each file of a
 * merged KUBECONFIG its own), a bare name left to $PATH, an absolute path kept (client-go's
 * ResolveLocalPaths, src/kube/kubeconfig-text.ts); a user of the gcp or azure auth provider
 * refused with kubectl's message, oidc untouched (src/kube/removed-auth-providers.ts). Nothing is
 * run here: only the loaded config is read.
 */

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { ExitCode, UsageError } from '../../../src/errors.js';
import { loadKubeConfig } from '../../../src/kube/client.js';
import { resolveExecCommands } from '../../../src/kube/kubeconfig-text.js';
import { tempDir } from '../../helpers/temp.js';

const dir = tempDir('ctl-kubeconfig-exec-');

/** A kubeconfig of users `u-<name>`, each with its own context `<name>`; the first is current. */
function kubeconfig(folder: string, users: Record<string, object>): string {
  mkdirSync(join(dir, folder), { recursive: true });
  const file = join(dir, folder, 'config');
  const names = Object.keys(users);
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': names[0],
      clusters: [{ name: `c-${folder}`, cluster: { server: 'https://127.0.0.1:6443' } }],
      users: names.map((name) => ({ name: `u-${name}`, user: users[name] })),
      contexts: names.map((name) => ({ name, context: { cluster: `c-${folder}`, user: `u-${name}` } })),
    }),
  );
  return file;
}

function execUser(command: string): object {
  return { exec: { apiVersion: 'client.authentication.k8s.io/v1', command, args: ['--x'] } };
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
