/**
 * The in-cluster service account's token, read for each request within its bound and trimmed
 * (src/kube/request-files.ts authProviderToken, IN_CLUSTER_ROLES): an empty one is refused, and
 * its hint is the pod's, not the kubeconfig's (no kubeconfig names that file: Kubernetes mounts
 * it). Before, the hint said to fix the path in the kubeconfig. client-node's in-cluster config is
 * loaded from a folder standing in for the pod's root (loadFromCluster's path prefix).
 */

import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ExitCode, UsageError } from '../../../src/errors.js';
import { importKubeConfig, loadKubeConfig } from '../../../src/kube/client.js';
import { boundRequestFiles, IN_CLUSTER_ROLES } from '../../../src/kube/request-files.js';
import { tempDir } from '../../helpers/temp.js';

const root = tempDir('ctl-in-cluster-');
const accountDir = join(root, 'var/run/secrets/kubernetes.io/serviceaccount');

describe("the in-cluster service account's token", () => {
  it("empty: refused before any request, with the pod's hint, not the kubeconfig's", async () => {
    mkdirSync(accountDir, { recursive: true });
    writeFileSync(join(accountDir, 'ca.crt'), 'not read as a certificate: no request is sent');
    writeFileSync(join(accountDir, 'token'), '\n');
    const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
    // client-node reads the service address from process.env itself.
    process.env.KUBERNETES_SERVICE_HOST = '10.0.0.1';
    process.env.KUBERNETES_SERVICE_PORT = '443';
    try {
      const { KubeConfig } = await importKubeConfig();
      const config = new KubeConfig();
      config.loadFromCluster(root);
      boundRequestFiles(config, IN_CLUSTER_ROLES);
      await assert.rejects(config.applyToFetchOptions({}), (error: unknown) => {
        assert.ok(error instanceof UsageError, String(error));
        assert.equal(error.exitCode, ExitCode.usage);
        assert.equal(
          error.message,
          `the in-cluster service account's token ${join(accountDir, 'token')} is empty`,
        );
        assert.match(
          error.hint ?? '',
          /^Kubernetes mounts the pod's service account token there: check the pod's service account and its token volume \(automountServiceAccountToken, a projected serviceAccountToken\)/,
        );
        assert.ok(!(error.hint ?? '').includes('fix the path in the kubeconfig'), error.hint);
        return true;
      });
    } finally {
      restore('KUBERNETES_SERVICE_HOST', saved.host);
      restore('KUBERNETES_SERVICE_PORT', saved.port);
    }
  });
});

describe('the in-cluster config, loaded', () => {
  // A pod's root of its own, apart from the test above.
  const podRoot = tempDir('ctl-in-cluster-load-');
  const account = join(podRoot, 'var/run/secrets/kubernetes.io/serviceaccount');
  const token = join(account, 'token');
  const ca = join(account, 'ca.crt');
  const podHint =
    /^Kubernetes mounts the pod's service account files there: check that the pod's user can read them/;

  async function loadRefusal(): Promise<UsageError> {
    const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
    process.env.KUBERNETES_SERVICE_HOST = '10.0.0.1';
    process.env.KUBERNETES_SERVICE_PORT = '443';
    try {
      await loadKubeConfig({ env: { KUBERNETES_SERVICE_HOST: '10.0.0.1' }, inClusterRoot: podRoot });
    } catch (error) {
      assert.ok(error instanceof UsageError, String(error));
      assert.equal(error.exitCode, ExitCode.usage);
      return error;
    } finally {
      restore('KUBERNETES_SERVICE_HOST', saved.host);
      restore('KUBERNETES_SERVICE_PORT', saved.port);
    }
    assert.fail('loaded');
  }

  it("a token or CA that is missing, a folder where the token file is expected (an unreadable form a test run as root can make: chmod 000 does not stop root; EACCES itself is in test/e2e/kubeconfig-unreadable.test.ts), or an empty token: refused when loaded (exit 2), naming the file, as client-go's InClusterConfig reads the token", async () => {
    mkdirSync(account, { recursive: true });
    writeFileSync(ca, 'not read as a certificate: no request is sent');
    let error = await loadRefusal();
    assert.equal(error.message, `the in-cluster service account's token ${token}: no such file`);
    assert.match(error.hint ?? '', podHint);

    mkdirSync(token);
    error = await loadRefusal();
    assert.equal(
      error.message,
      `the in-cluster service account's token ${token} is a directory, not a regular file`,
    );
    rmSync(token, { recursive: true });

    writeFileSync(token, ' \n');
    error = await loadRefusal();
    assert.equal(error.message, `the in-cluster service account's token ${token} is empty`);
    assert.match(error.hint ?? '', /^Kubernetes mounts the pod's service account token there/);

    writeFileSync(token, 'pod-token\n');
    rmSync(ca);
    error = await loadRefusal();
    assert.equal(error.message, `the in-cluster service account's CA ${ca}: no such file`);
    assert.match(error.hint ?? '', podHint);
  });
});

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
