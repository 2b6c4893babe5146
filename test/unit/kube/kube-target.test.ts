import assert from 'node:assert/strict';
import { delimiter, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import {
  helmTargetArgs,
  kubeconfigEnv,
  kubectlCommand,
  kubectlTargetArgs,
  selectedKubeTarget,
} from '../../../src/kube/kube-target.js';
import { findManagedCluster } from '../../../src/kube/management-access.js';
import type { ClusterReads } from '../../../src/kube/reads.js';
import { kubeFailure } from '../../../src/kube/write.js';

describe('KubeTarget: the kubeconfig and context chosen, as commands name them', () => {
  it('names what was chosen: the context as given, the files absolute', () => {
    assert.deepEqual(selectedKubeTarget(undefined, []), {});
    assert.deepEqual(selectedKubeTarget('prod', []), { context: 'prod' });
    assert.deepEqual(selectedKubeTarget(undefined, ['k/prod.yaml']), {
      kubeconfigs: [resolve('k/prod.yaml')],
    });
  });

  it('one file is --kubeconfig, several are KUBECONFIG; helm spells the context --kube-context', () => {
    const one = { kubeconfigs: ['/k/a'], context: 'c' };
    assert.deepEqual(kubectlTargetArgs(one), ['--kubeconfig', '/k/a', '--context', 'c']);
    assert.deepEqual(helmTargetArgs(one), ['--kubeconfig', '/k/a', '--kube-context', 'c']);
    assert.deepEqual(kubeconfigEnv(one), {});
    const two = { kubeconfigs: ['/k/a', '/k/b'] };
    assert.deepEqual(kubectlTargetArgs(two), []);
    assert.deepEqual(kubeconfigEnv(two), { KUBECONFIG: `/k/a${delimiter}/k/b` });
  });

  it('refuses a context or path with a line break or a control character (exit 2), shown escaped', () => {
    for (const [context, files] of [
      ['a\nb', []],
      ['a\rb', []],
      ['a\u0007b', []],
      ['ok', ['/k/line\nbreak']],
    ] as const) {
      assert.throws(
        () => selectedKubeTarget(context, files),
        (error: unknown) =>
          error instanceof UsageError && error.exitCode === 2 && !/[\n\r\u0007]/.test(error.message),
      );
    }
  });

  it("the access layer's hints name the target too (a refused write's kubectl auth can-i)", () => {
    const refused = Object.assign(new Error('forbidden'), { code: 403, statusCode: 403 });
    const error = kubeFailure(
      'patch',
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: 'redis' },
      refused,
      { context: "prod'x" },
    );
    assert.equal(
      kubectlCommand({ context: "prod'x" }, 'get', 'rec'),
      `kubectl --context 'prod'\\''x' get rec`,
    );
    assert.match(error.hint ?? '', /kubectl --context 'prod'\\''x' auth can-i patch configmap -n redis/);
  });

  it('a plan that finds no cluster resource: its kubectl hint reaches the chosen cluster', async () => {
    const reads = {
      selection: { kubeconfigs: ['/k/prod.yaml'], context: 'prod' },
      listCustomObjects: () => Promise.resolve([]),
    } as unknown as ClusterReads;
    await assert.rejects(findManagedCluster({ reads, namespace: 'redis' }, undefined), (error: unknown) => {
      assert.ok(error instanceof UsageError, String(error));
      assert.match(
        error.hint ?? '',
        /kubectl --kubeconfig \/k\/prod\.yaml --context prod get rec -A lists them/,
      );
      return true;
    });
  });
});
