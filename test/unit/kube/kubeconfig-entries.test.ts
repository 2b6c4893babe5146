/**
 * The kubeconfig's entries as kubectl judges them, held to the real kubectl 1.28, 1.32 and 1.35
 * (test/helpers/kubectl-verdict.ts: `kubectl get pods` against a loopback listener that counts
 * connections; a kubectl that connected did not refuse the kubeconfig). kubectl judges the
 * context in use only, and never by client-go's validateContext (kubernetes/client-go
 * tools/clientcmd/client_config.go DirectClientConfig.ConfirmUsable, read at its commit
 * 32ce75a7d; validateContext runs only in validation.go's Validate and package-level
 * ConfirmUsable, which kubectl does not call):
 * - a context's namespace that is no DNS-1123 label is used as it is (kubectl asks the server);
 * - a cluster without a server, a context without a cluster, an entry without a name, that the
 *   context in use does not name, leave kubectl working: ctl refused the whole file before
 *   (client-node's reader: `clusters[1].cluster.server is missing`);
 * - the context in use without a server, or naming no cluster or one not defined: kubectl sends
 *   its requests to http://localhost:8080; ctl refuses it (exit 2) rather than go there;
 * - the context in use naming no user, or one not defined: kubectl asks for a username and
 *   password (`Please enter Username: `, then `error: EOF` without a terminal) and connects
 *   nowhere (to a plain-http server it sends its requests without credentials); ctl refuses it
 *   (exit 2). Before, ctl sent the request, and without the cluster's CA (client-node drops the
 *   cluster's TLS settings without a user): a certificate error, exit 1.
 * - the user in use's `tokenFile` (kubectl's key; client-node reads only `token-file`): one
 *   that does not open stops kubectl before any request (`open <path>: no such file or
 *   directory`) and ctl too (exit 2, naming the tokenFile); ctl sent no token before.
 * And the words of several errors: kubectl prints one as it is, several as `Error in
 * configuration:` then a `* ` line each, repeats kept; ctl printed client-go's
 * `invalid configuration: [a, b]`, repeats dropped, which kubectl never prints.
 */

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadKubeConfig } from '../../../src/kube/client.js';
import {
  described,
  kubectlSays,
  kubectlVerdicts,
  type Listener,
  listen,
} from '../../helpers/kubectl-verdict.js';
import { kubeconfigRefusal } from '../../helpers/kubeconfig-files.js';
import { tempDir } from '../../helpers/temp.js';

const dir = tempDir('ctl-kubeconfig-entries-');
let listener: Listener;

/** A kubeconfig of cluster `c` (the listener), user `u` (a token) and context `x`, plus `extra`. */
function kubeconfig(
  name: string,
  extra: { clusters?: unknown[]; users?: unknown[]; contexts?: unknown[] } = {},
): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'x',
      clusters: [
        { name: 'c', cluster: { server: listener.url, 'insecure-skip-tls-verify': true } },
        ...(extra.clusters ?? []),
      ],
      users: [{ name: 'u', user: { token: 't' } }, ...(extra.users ?? [])],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }, ...(extra.contexts ?? [])],
    }),
  );
  return file;
}

describe("the kubeconfig's entries, as kubectl 1.28, 1.32 and 1.35 judge them", { timeout: 300_000 }, () => {
  before(async () => {
    listener = await listen();
  });
  after(() => listener.close());

  it("a context's namespace that is no DNS-1123 label: used as it is, as kubectl uses it", async () => {
    const namespaces = ['Bad_NS', 'a'.repeat(64), '-x'];
    const file = kubeconfig('namespaces', {
      contexts: namespaces.map((namespace, index) => ({
        name: `ns${index}`,
        context: { cluster: 'c', user: 'u', namespace },
      })),
    });
    for (const [index, namespace] of namespaces.entries()) {
      const loaded = await loadKubeConfig({ kubeconfig: file, context: `ns${index}`, env: {} });
      assert.equal(loaded.namespace, namespace);
    }
    for (const verdict of await kubectlVerdicts(file, listener, { context: 'ns0' })) {
      assert.ok(verdict.connections > 0, described(verdict));
      assert.doesNotMatch(verdict.output, /DNS_LABEL|invalid configuration/, described(verdict));
    }
  });

  it('entries the context in use does not name: a cluster without a server, a context without a cluster, entries without a name: read, as kubectl reads them', async () => {
    const file = kubeconfig('unused', {
      clusters: [
        { name: 'no-server', cluster: { 'certificate-authority-data': 'YQ==' } },
        { name: 'no-body' },
        { cluster: { server: 'https://nameless.example' } },
      ],
      users: [
        { user: { token: 'nameless' } },
        { name: 'u2', user: { 'token-file': 'missing-token' } },
        // kubectl reads only the token file of the user in use (getUserIdentificationPartialConfig).
        { name: 'u3', user: { tokenFile: 'missing-token' } },
      ],
      contexts: [
        { name: 'no-cluster', context: { user: 'u' } },
        { name: 'no-body' },
        { context: { cluster: 'c', user: 'u' } },
        { name: 'other', context: { cluster: 'no-server', user: 'u2' } },
      ],
    });
    const loaded = await loadKubeConfig({ kubeconfig: file, env: {} });
    assert.equal(loaded.contextName, 'x');
    assert.equal(loaded.server, listener.url);
    assert.deepEqual(
      loaded.config.clusters.map((cluster) => [cluster.name, cluster.server]),
      [
        ['c', listener.url],
        ['no-server', ''],
        ['no-body', ''],
      ],
    );
    assert.deepEqual(
      loaded.config.contexts.map((context) => context.name),
      ['x', 'no-cluster', 'no-body', 'other'],
    );
    assert.deepEqual(
      loaded.config.users.map((user) => user.name),
      ['u', 'u2', 'u3'],
    );
    for (const verdict of await kubectlVerdicts(file, listener)) {
      assert.ok(verdict.connections > 0, described(verdict));
    }
  });

  it("the user in use's tokenFile (kubectl's key): one that does not open stops both before any request; one that reads, neither", async () => {
    // kubectl reads the user's credentials only when it speaks TLS to the server
    // (client_config.go ClientConfig: isConfigTransportTLS): an https server, which it connects
    // to (counted) without reaching.
    const file = kubeconfig('token-file-key', {
      clusters: [
        {
          name: 'tls',
          cluster: { server: listener.url.replace(/^http:/, 'https:'), 'insecure-skip-tls-verify': true },
        },
      ],
      users: [
        { name: 'missing', user: { tokenFile: 'missing-token' } },
        { name: 'reads', user: { tokenFile: 'token-of-reads' } },
      ],
      contexts: [
        { name: 'missing', context: { cluster: 'tls', user: 'missing' } },
        { name: 'reads', context: { cluster: 'tls', user: 'reads' } },
      ],
    });
    const missing = join(dir, 'missing-token');
    const error = await kubeconfigRefusal(file, 'missing');
    assert.equal(error.message, `the kubeconfig's tokenFile of user missing ${missing}: no such file`);
    for (const verdict of await kubectlVerdicts(file, listener, { context: 'missing' })) {
      assert.equal(verdict.connections, 0, described(verdict));
      assert.match(
        verdict.output,
        new RegExp(`open ${missing}: no such file or directory`),
        described(verdict),
      );
    }
    writeFileSync(join(dir, 'token-of-reads'), 'from-the-file\n');
    const loaded = await loadKubeConfig({ kubeconfig: file, context: 'reads', env: {} });
    assert.equal(loaded.config.getCurrentUser()?.token, 'from-the-file');
    for (const verdict of await kubectlVerdicts(file, listener, { context: 'reads' })) {
      assert.ok(verdict.connections > 0, described(verdict));
    }
  });

  it('the context in use without a server or a cluster: refused (exit 2); kubectl would go to http://localhost:8080', async () => {
    const file = kubeconfig('no-server', {
      clusters: [{ name: 'bare', cluster: { 'insecure-skip-tls-verify': true } }],
      contexts: [
        { name: 'bare', context: { cluster: 'bare', user: 'u' } },
        { name: 'nowhere', context: { cluster: 'nowhere', user: 'u' } },
        { name: 'none', context: { user: 'u' } },
      ],
    });
    const refused: Record<string, string> = {
      bare: "the kubeconfig's cluster bare has no server",
      nowhere: 'context nowhere names no cluster known to the kubeconfig',
      none: 'context none names no cluster',
    };
    for (const [context, message] of Object.entries(refused)) {
      const error = await kubeconfigRefusal(file, context);
      assert.equal(error.message, message, context);
      assert.match(
        error.hint ?? '',
        context === 'bare'
          ? new RegExp(
              `^Give it the API server's URL: kubectl --kubeconfig ${file} config set-cluster bare --server https://HOST:PORT\\. \\(kubectl would send its requests to http://localhost:8080 instead\\.\\)$`,
            )
          : new RegExp(
              `^Fix the context with kubectl --kubeconfig ${file} config set-context ${context} --cluster CLUSTER_NAME\\.$`,
            ),
        context,
      );
      for (const verdict of await kubectlVerdicts(file, listener, { context })) {
        assert.equal(verdict.connections, 0, described(verdict));
        assert.notEqual(verdict.code, 0, described(verdict));
        assert.match(verdict.output, /localhost:8080/, described(verdict));
      }
    }
  });

  it('the context in use without a user, or naming one not defined: refused (exit 2); kubectl would ask for a username', async () => {
    // kubectl asks only when it speaks TLS to the server (client_config.go ClientConfig:
    // isConfigTransportTLS): an https server, which kubectl never reaches here.
    const file = kubeconfig('no-user', {
      clusters: [
        {
          name: 'tls',
          cluster: { server: listener.url.replace(/^http:/, 'https:'), 'insecure-skip-tls-verify': true },
        },
      ],
      contexts: [
        { name: 'nobody', context: { cluster: 'tls', user: 'nobody' } },
        { name: 'none', context: { cluster: 'tls' } },
      ],
    });
    const refused: Record<string, string> = {
      nobody: 'context nobody names user nobody, which the kubeconfig does not define',
      none: 'context none names no user',
    };
    for (const [context, message] of Object.entries(refused)) {
      const error = await kubeconfigRefusal(file, context);
      assert.equal(error.message, message, context);
      assert.equal(
        error.hint,
        `Name the user that signs in to this cluster: kubectl --kubeconfig ${file} config set-context ${context} --user USER_NAME.`,
      );
      for (const verdict of await kubectlVerdicts(file, listener, { context })) {
        assert.equal(verdict.connections, 0, described(verdict));
        assert.equal(verdict.code, 1, described(verdict));
        assert.match(verdict.output, /Please enter Username: error: EOF/, described(verdict));
      }
    }
  });

  it("one problem, several, the same one twice: in kubectl's own words and layout, each hint said once", async () => {
    const v1 = 'client.authentication.k8s.io/v1';
    const file = kubeconfig('format', {
      clusters: [{ name: 'ftp', cluster: { server: listener.url, 'proxy-url': 'ftp://proxy' } }],
      users: [
        { name: 'both', user: { token: 't', username: 'ops' } },
        {
          name: 'envs',
          user: {
            exec: {
              apiVersion: v1,
              command: '/bin/false',
              interactiveMode: 'Never',
              env: [{ value: 'a' }, { value: 'b' }],
            },
          },
        },
      ],
      contexts: [
        { name: 'one', context: { cluster: 'c', user: 'both' } },
        { name: 'two', context: { cluster: 'ftp', user: 'both' } },
        { name: 'twice', context: { cluster: 'c', user: 'envs' } },
      ],
    });
    const expected: Record<string, { what: string; hints: number }> = {
      one: { what: "the kubeconfig's user both is not valid", hints: 1 },
      two: { what: "the kubeconfig's user both and its cluster ftp are not valid", hints: 2 },
      twice: { what: "the kubeconfig's user envs is not valid", hints: 1 },
    };
    for (const [context, { what, hints }] of Object.entries(expected)) {
      const error = await kubeconfigRefusal(file, context);
      const verdicts = await kubectlVerdicts(file, listener, { context });
      for (const verdict of verdicts) {
        assert.equal(verdict.connections, 0, described(verdict));
        assert.equal(verdict.code, 1, described(verdict));
        assert.equal(error.message, `${what}; kubectl says: ${kubectlSays(verdict)}`, described(verdict));
      }
      assert.equal((error.hint ?? '').split(/(?<=\.) (?=[A-Z])/).length, hints, error.hint);
    }
    assert.match(
      (await kubeconfigRefusal(file, 'twice')).message,
      /\n\* env variable name must be specified for envs.*\n\* env variable name/,
    );
  });
});
