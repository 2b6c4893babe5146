/**
 * `ctl auth token` without --api-url or credentials, as CLI.md promises: the BUILT ctl finds the
 * cluster resource through the kubeconfig, reaches the management API through its own
 * port-forward to pod port 9443, and signs in with the keys of the cluster's Secret. Flags and
 * env still win, and when they give everything Kubernetes is not touched at all.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadScenario, type SimulatedCluster, startSimulatedCluster } from '../helpers/simulator.js';
import { runCtlInProcess } from '../helpers/in-process-ctl.js';
import { type CtlResult } from '../helpers/run-ctl.js';

function claimsOf(token: string): { iat: number; exp: number } {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
    iat: number;
    exp: number;
  };
}

function assertExit(result: CtlResult, code: number): void {
  assert.equal(result.code, code, `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
}

describe('ctl auth token finds the API and the credentials through Kubernetes (e2e)', () => {
  let dir: string;
  let cluster: SimulatedCluster;
  let password: string;
  const outputs: CtlResult[] = [];

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-auth-discovery-'));
    cluster = await startSimulatedCluster({ scenario: loadScenario('happy-path'), fast: true });
    password = cluster.env.CTL_PASSWORD ?? '';
    assert.ok(password.length > 0, 'the simulator has an API password');
  });

  after(async () => {
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Only KUBECONFIG and CTL_CA_FILE: no CTL_API_URL, CTL_USERNAME or CTL_PASSWORD. */
  async function ctl(
    args: string[],
    env: Record<string, string | undefined> = {},
    stdin?: string,
  ): Promise<CtlResult> {
    const home = path.join(dir, 'home');
    const result = await runCtlInProcess(['auth', 'token', ...args], {
      cwd: dir,
      stdin,
      env: {
        HOME: home,
        XDG_STATE_HOME: path.join(home, 'state'),
        XDG_CACHE_HOME: path.join(home, 'cache'),
        XDG_CONFIG_HOME: path.join(home, 'config'),
        KUBECONFIG: cluster.kubeconfigPath,
        CTL_CA_FILE: cluster.caPath,
        CTL_API_URL: undefined,
        CTL_USERNAME: undefined,
        CTL_PASSWORD: undefined,
        // The local end of the port-forward must not go through a proxy.
        HTTPS_PROXY: 'http://127.0.0.1:9',
        ...env,
      },
    });
    outputs.push(result);
    return result;
  }

  /** The audit entries a run adds: what it asked of Kubernetes and of the management API. */
  async function audited(run: () => Promise<CtlResult>): Promise<{
    result: CtlResult;
    kube: string[];
    rest: string[];
  }> {
    const start = cluster.audit.entries.length;
    const result = await run();
    const added = cluster.audit.entries.slice(start);
    const lines = (api: 'kube' | 'rest') =>
      added.filter((e) => e.api === api).map((e) => `${e.method} ${e.path.split('?')[0]} ${e.status}`);
    return { result, kube: lines('kube'), rest: lines('rest') };
  }

  test('--ttl 600: a JWT through ctl\'s own port-forward, signed in with the Secret "rec"', async () => {
    const { result, kube, rest } = await audited(() => ctl(['--ttl', '600']));
    assertExit(result, 0);
    assert.match(result.stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const claims = claimsOf(result.stdout.trim());
    assert.equal(claims.exp - claims.iat, 600);
    assert.equal(result.stderr, '');
    assert.ok(
      kube.some((line) =>
        /^GET \/apis\/app\.redislabs\.com\/v1\/namespaces\/redis\/redisenterpriseclusters 200$/.test(line),
      ),
      `the cluster resource was listed: ${kube.join('\n')}`,
    );
    assert.ok(
      kube.includes('GET /api/v1/namespaces/redis/secrets/rec 200'),
      `the Secret was read: ${kube.join('\n')}`,
    );
    assert.ok(
      kube.some((line) => /\/namespaces\/redis\/pods\/rec-\d+\/portforward/.test(line)),
      `a port-forward to a pod of rec: ${kube.join('\n')}`,
    );
    assert.ok(
      rest.some((line) => line.startsWith('POST /v1/users/authorize 200')),
      rest.join('\n'),
    );
  });

  test('-v says where the URL and the credentials came from', async () => {
    const result = await ctl(['-v', '-n', 'redis', '--cluster', 'rec']);
    assertExit(result, 0);
    assert.match(
      result.stderr,
      /management API: port-forward https:\/\/127\.0\.0\.1:\d+ -> redis\/rec pod port 9443/,
    );
    assert.match(
      result.stderr,
      /credentials: user admin@example\.com \(from Secret redis\/rec\), password from Secret redis\/rec/,
    );
  });

  test('-o json works the same way', async () => {
    const result = await ctl(['--ttl', '120', '-o', 'json']);
    assertExit(result, 0);
    const doc = JSON.parse(result.stdout) as { access_token: string; ttl: number };
    assert.equal(doc.ttl, 120);
    const claims = claimsOf(doc.access_token);
    assert.equal(claims.exp - claims.iat, 120);
  });

  test('CTL_USERNAME and CTL_PASSWORD win over the Secret: a wrong password is exit 4', async () => {
    const { result, kube } = await audited(() =>
      ctl([], { CTL_USERNAME: 'admin@example.com', CTL_PASSWORD: 'not-the-password' }),
    );
    assertExit(result, 4);
    assert.match(result.stderr, /authentication failed for admin@example\.com/);
    assert.ok(
      !kube.some((line) => line.includes('/secrets/')),
      `the Secret must not be read when env gives both: ${kube.join('\n')}`,
    );
  });

  test('--password-stdin wins over the Secret, the username still comes from it', async () => {
    const result = await ctl(['--password-stdin', '-v'], {}, 'wrong-from-stdin');
    assertExit(result, 4);
    assert.match(
      result.stderr,
      /user admin@example\.com \(from Secret redis\/rec\), password from --password-stdin/,
    );
    assert.match(result.stderr, /authentication failed for admin@example\.com/);
  });

  test('a namespace without a cluster resource: exit 2 naming the namespace, no API request', async () => {
    const { result, rest } = await audited(() => ctl(['-n', 'nowhere']));
    assertExit(result, 2);
    assert.match(result.stderr, /no cluster resource \(RedisEnterpriseCluster\) in namespace nowhere/);
    assert.match(result.stderr, /hint: .*--api-url/);
    assert.equal(result.stdout, '');
    assert.deepEqual(rest, []);
  });

  test('--cluster that is not there: exit 2 listing the ones that are', async () => {
    const result = await ctl(['--cluster', 'other']);
    assertExit(result, 2);
    assert.match(
      result.stderr,
      /--cluster other: no such cluster resource in namespace redis \(found: rec\)/,
    );
  });

  test('two cluster resources in the namespace: exit 2 listing both, until --cluster picks one', async () => {
    const { store } = cluster.kube;
    store.create(store.resolve('v1', 'Namespace'), { metadata: { name: 'pair' } });
    const rec = store.resolve('app.redislabs.com/v1', 'RedisEnterpriseCluster');
    for (const name of ['east', 'west']) {
      store.create(rec, {
        apiVersion: 'app.redislabs.com/v1',
        kind: 'RedisEnterpriseCluster',
        metadata: { name, namespace: 'pair' },
        spec: { nodes: 3 },
      });
    }
    const { result, rest } = await audited(() => ctl(['-n', 'pair']));
    assertExit(result, 2);
    assert.match(result.stderr, /2 cluster resources in namespace pair: east, west/);
    assert.match(result.stderr, /--cluster with one of: east, west/);
    assert.deepEqual(rest, []);
  });

  test('the Secret named by spec.clusterCredentialSecretName, else the cluster name', async () => {
    const { store } = cluster.kube;
    store.create(store.resolve('v1', 'Namespace'), { metadata: { name: 'custom' } });
    store.create(store.resolve('app.redislabs.com/v1', 'RedisEnterpriseCluster'), {
      apiVersion: 'app.redislabs.com/v1',
      kind: 'RedisEnterpriseCluster',
      metadata: { name: 'other', namespace: 'custom' },
      spec: { nodes: 3, clusterCredentialSecretName: 'other-credentials' },
    });
    const base64 = (text: string) => Buffer.from(text).toString('base64');
    store.create(store.resolve('v1', 'Secret'), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'other-credentials', namespace: 'custom' },
      data: { username: base64('admin@example.com'), password: base64(password) },
    });
    const { result, kube } = await audited(() =>
      ctl(['-v', '-n', 'custom', '--api-url', cluster.apiUrl], { HTTPS_PROXY: undefined }),
    );
    assertExit(result, 0);
    assert.ok(kube.includes('GET /api/v1/namespaces/custom/secrets/other-credentials 200'), kube.join('\n'));
    assert.match(result.stderr, /password from Secret custom\/other-credentials/);
  });

  test('--api-url given, credentials from the Secret: no port-forward', async () => {
    const { result, kube } = await audited(() =>
      ctl(['--api-url', cluster.apiUrl], { HTTPS_PROXY: undefined }),
    );
    assertExit(result, 0);
    assert.ok(kube.includes('GET /api/v1/namespaces/redis/secrets/rec 200'), kube.join('\n'));
    assert.ok(!kube.some((line) => line.includes('portforward')), kube.join('\n'));
  });

  test('URL and credentials all from flags and env: Kubernetes is not touched at all', async () => {
    const { result, kube } = await audited(() =>
      ctl(['--kubeconfig', path.join(dir, 'no-such-kubeconfig')], {
        CTL_API_URL: cluster.apiUrl,
        CTL_USERNAME: 'admin@example.com',
        CTL_PASSWORD: password,
        HTTPS_PROXY: undefined,
      }),
    );
    assertExit(result, 0);
    assert.deepEqual(kube, []);
  });

  test('no kubeconfig and no --api-url: exit 2 saying how to give the URL', async () => {
    const result = await ctl([], { KUBECONFIG: undefined });
    assertExit(result, 2);
    assert.match(result.stderr, /no management API URL: no kubeconfig found/);
    assert.match(result.stderr, /--api-url[\s\S]*CTL_API_URL/);
  });

  test('the password never appears in stdout or stderr, even with -vv (checked last)', async () => {
    const vv = await ctl(['-vv']);
    assertExit(vv, 0);
    assert.match(vv.stderr, /"password":"\[REDACTED\]"|\[REDACTED\]/);
    await ctl(['-vv', '--cluster', 'other']);
    await ctl(['-vv'], { CTL_CA_FILE: undefined });
    await ctl(['-vv', '--auth-form', 'body']);
    assert.ok(outputs.length >= 12);
    for (const result of outputs) {
      assert.ok(!result.stdout.includes(password), `password in stdout: ${result.stdout}`);
      assert.ok(!result.stderr.includes(password), `password in stderr: ${result.stderr}`);
    }
  });
});
