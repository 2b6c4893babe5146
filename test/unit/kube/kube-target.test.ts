import assert from 'node:assert/strict';
import { delimiter, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import {
  helmTargetArgs,
  kubeconfigEnv,
  kubectlCommand,
  kubectlTargetArgs,
  retargeted,
  selectedKubeTarget,
} from '../../../src/kube/kube-target.js';
import { commandFor } from '../../../src/kube/kube-target.js';
import { kubeDeadlineError, registerServerTarget } from '../../../src/kube/deadlines.js';
import { nestsDeeperThan } from '../../../src/json-read.js';
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

  it("a recorded command is printed for this run's kubeconfig, its context kept when none is given", () => {
    const then = { kubeconfigs: ['/home/a/kube config'], context: "prod'x" };
    const words = [
      'exec',
      '-it',
      'rec-0',
      '-n',
      'redis',
      '--',
      'crdb-cli',
      'crdb',
      'update',
      '--crdb-guid',
      'CRDB_GUID',
    ];
    const recorded = commandFor('kubectl', then, ...words);
    assert.equal(
      retargeted(recorded, { kubeconfigs: ['/ci/kubeconfig'] }),
      `kubectl --kubeconfig /ci/kubeconfig --context 'prod'\\''x' ${words.join(' ')}`,
    );
    assert.equal(
      retargeted(recorded, { kubeconfigs: ['/ci/a', '/ci/b'], context: 'ci' }),
      commandFor('kubectl', { kubeconfigs: ['/ci/a', '/ci/b'], context: 'ci' }, ...words),
    );
    const helm = commandFor('helm', then, 'history', 'rel');
    assert.equal(retargeted(helm, {}), `helm --kube-context 'prod'\\''x' history rel`);
    const ctl = commandFor('ctl', { context: 'a' }, 'upgrade', 'run', '--to', '8.0.20-27');
    assert.equal(
      retargeted(ctl, { kubeconfigs: ['/k'] }),
      'ctl --kubeconfig /k --context a upgrade run --to 8.0.20-27',
    );
    // Anything ctl did not build this way is kept as it is.
    for (const other of [
      `CERT=$(${recorded}) && curl x`,
      'curl -sfk https://localhost:9443/v1/bdbs',
      `${recorded} | grep x`,
    ])
      assert.equal(retargeted(other, { kubeconfigs: ['/ci/kubeconfig'] }), other);
  });

  it("a Kubernetes deadline's kubectl names the kubeconfig of that server's clients", () => {
    registerServerTarget('https://10.1.2.3:6443', { kubeconfigs: ['/k/prod.yaml'], context: 'prod' });
    // The shared connection pool spells the server as host and port (src/kube/agent.ts).
    const error = kubeDeadlineError('GET /version', 'https://10.1.2.3:6443', 'response');
    assert.match(
      error.hint ?? '',
      /kubectl --kubeconfig \/k\/prod\.yaml --context prod get --raw \/version --request-timeout 10s/,
    );
    const other = kubeDeadlineError('GET /version', 'https://10.9.9.9:443', 'connect');
    assert.match(other.hint ?? '', /\(kubectl get --raw \/version/);
  });

  it('nesting past a bound is found outside strings only, in one pass', () => {
    assert.equal(nestsDeeperThan('[[[]]]', 3), false);
    assert.equal(nestsDeeperThan('[[[[]]]]', 3), true);
    assert.equal(nestsDeeperThan('{"a":{"b":[{}]}}', 3), true);
    assert.equal(nestsDeeperThan('{"a":"[[[[[[","b":[1]}', 3), false);
    assert.equal(nestsDeeperThan('["\\"[[[[[[", 1]', 3), false);
    assert.equal(nestsDeeperThan('[[],[],[],[],[]]', 2), false);
    // Backslashes before a quote: an even run ends the string, an odd one escapes the quote.
    assert.equal(nestsDeeperThan('["a\\\\", [[[[]]]]]', 3), true);
    assert.equal(nestsDeeperThan('["a\\\\\\"[[[[]]]]"]', 3), false);
    assert.equal(nestsDeeperThan('["never ends [[[[[[[[', 3), false);
  });

  it('skipping each string whole finds what a scan of every character finds', () => {
    // The scan the skip replaced (one character at a time), as the reference.
    const reference = (text: string, max: number): boolean => {
      let depth = 0;
      let inString = false;
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (inString) {
          if (c === '\\') i++;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === '[' || c === '{') {
          if (++depth > max) return true;
        } else if (c === ']' || c === '}') depth--;
      }
      return false;
    };
    const alphabet = ['[', ']', '{', '}', '"', '\\', 'a', ',', ':'];
    let seed = 20261130;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let round = 0; round < 3000; round++) {
      const length = 8 + (next() % 40);
      let text = '';
      for (let i = 0; i < length; i++) text += alphabet[next() % alphabet.length];
      for (const max of [1, 2, 3, 5])
        assert.equal(nestsDeeperThan(text, max), reference(text, max), `${JSON.stringify(text)} max ${max}`);
    }
  });
});
