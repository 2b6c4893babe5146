/**
 * The in-cluster service account's token, read for each request within its bound and trimmed
 * (src/kube/request-files.ts authProviderToken, IN_CLUSTER_ROLES): an empty one is refused, and
 * its hint is the pod's, not the kubeconfig's (no kubeconfig names that file: Kubernetes mounts
 * it). Before, the hint said to fix the path in the kubeconfig. client-node's in-cluster config is
 * loaded from a folder standing in for the pod's root (loadFromCluster's path prefix).
 */

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ExitCode, UsageError } from '../../../src/errors.js';
import { importKubeConfig } from '../../../src/kube/client.js';
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

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
