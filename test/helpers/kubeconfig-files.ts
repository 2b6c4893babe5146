/**
 * Kubeconfig files for the tests of how ctl reads them (src/kube): one context per entry, named
 * by the entry, the first one current. Written as JSON, which a kubeconfig reader takes as YAML.
 */

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExitCode, UsageError } from '../../src/errors.js';
import { loadKubeConfig } from '../../src/kube/client.js';

const LOCAL_SERVER = { server: 'https://127.0.0.1:6443' };

/** `<dir>/<folder>/config` with users `u-<name>`, each with its own context `<name>`, on one cluster `c`. */
export function kubeconfigOfUsers(
  dir: string,
  folder: string,
  users: Record<string, object>,
  cluster: object = LOCAL_SERVER,
): string {
  const names = Object.keys(users);
  return written(dir, folder, {
    'current-context': names[0],
    clusters: [{ name: 'c', cluster }],
    users: names.map((name) => ({ name: `u-${name}`, user: users[name] })),
    contexts: names.map((name) => ({ name, context: { cluster: 'c', user: `u-${name}` } })),
  });
}

/** `<dir>/<folder>/config` with clusters `c-<name>`, each with its own context `<name>`, for one user `u`. */
export function kubeconfigOfClusters(
  dir: string,
  folder: string,
  clusters: Record<string, object>,
  user: object = { token: 't' },
): string {
  const names = Object.keys(clusters);
  return written(dir, folder, {
    'current-context': names[0],
    clusters: names.map((name) => ({ name: `c-${name}`, cluster: clusters[name] })),
    users: [{ name: 'u', user }],
    contexts: names.map((name) => ({ name, context: { cluster: `c-${name}`, user: 'u' } })),
  });
}

function written(dir: string, folder: string, config: object): string {
  mkdirSync(join(dir, folder), { recursive: true });
  const file = join(dir, folder, 'config');
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'Config', ...config }));
  return file;
}

/** The usage error (exit 2) ctl refuses `context` of `file` with, before any request. */
export async function kubeconfigRefusal(file: string, context: string): Promise<UsageError> {
  try {
    await loadKubeConfig({ kubeconfig: file, context, env: {} });
  } catch (error) {
    assert.ok(error instanceof UsageError, `${context}: ${String(error)}`);
    assert.equal(error.exitCode, ExitCode.usage, context);
    return error;
  }
  assert.fail(`${context}: loaded, kubectl refuses it`);
}
