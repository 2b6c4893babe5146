import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { createKubeClients, loadKubeConfig, resolveNamespace } from '../../../src/kube/client.js';
import { resourcePath } from '../../../src/kube/rest.js';
import {
  describeKubeError,
  isForbidden,
  isNotFound,
  orUndefinedIfNotFound,
} from '../../../src/kube/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'ctl-kubeconfig-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(file: string, current: string, contexts: { name: string; namespace?: string }[]): string {
  const path = join(dir, file);
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      `current-context: ${current}`,
      'clusters:',
      '- name: c1',
      '  cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}',
      'users:',
      '- name: u1',
      '  user: {token: abc}',
      'contexts:',
      ...contexts.flatMap((c) => [
        `- name: ${c.name}`,
        `  context: {cluster: c1, user: u1${c.namespace ? `, namespace: ${c.namespace}` : ''}}`,
      ]),
    ].join('\n'),
  );
  return path;
}

describe('loadKubeConfig', () => {
  const main = kubeconfig('main.yaml', 'dev', [{ name: 'dev', namespace: 'redis' }, { name: 'prod' }]);

  it('uses --kubeconfig and its current context and namespace', async () => {
    const loaded = await loadKubeConfig({ kubeconfig: main, env: {} });
    assert.equal(loaded.contextName, 'dev');
    assert.equal(loaded.namespace, 'redis');
    assert.equal(loaded.server, 'https://127.0.0.1:6443');
    assert.equal(loaded.inCluster, false);
  });

  it('--context switches the context; a context without namespace gives undefined', async () => {
    const loaded = await loadKubeConfig({ kubeconfig: main, context: 'prod', env: {} });
    assert.equal(loaded.contextName, 'prod');
    assert.equal(loaded.namespace, undefined);
  });

  it('-n wins, else the context namespace, else default', () => {
    assert.equal(resolveNamespace('x', { namespace: 'redis' }), 'x');
    assert.equal(resolveNamespace(undefined, { namespace: 'redis' }), 'redis');
    assert.equal(resolveNamespace(undefined, { namespace: undefined }), 'default');
  });

  it('an unknown --context is a usage error listing the known ones', async () => {
    await assert.rejects(
      loadKubeConfig({ kubeconfig: main, context: 'nope', env: {} }),
      (error: unknown) => error instanceof UsageError && error.hint === 'Known contexts: dev, prod.',
    );
  });

  it('a kubeconfig that is not YAML: its file, the place and what is wrong, never a tag, an alias or a line', async () => {
    const secret = 'kc-Secret-4471';
    const head = ['apiVersion: v1', 'kind: Config', 'users:', '- name: u', '  user:'];
    const cases: [string, string[], RegExp][] = [
      // A tag handle no %TAG declares: js-yaml's reason quotes it. (A tag alone is read as its value.)
      [
        'tag.yaml',
        [...head, `    token: !${secret}!x y`],
        /: line 6, column \d+: a tag handle no %TAG directive declares$/,
      ],
      [
        'bomb.yaml',
        [
          `a0: &a0 [${secret}, x, x, x, x, x, x, x, x, x]`,
          ...[1, 2, 3, 4, 5].map(
            (i) =>
              `a${i}: &a${i} [${Array(10)
                .fill(`*a${i - 1}`)
                .join(', ')}]`,
          ),
          ...head,
          '    token: x',
        ],
        /: too many aliases$/,
      ],
      [
        'alias.yaml',
        [...head, `    token: *${secret}`],
        /: line 6, column \d+: an alias whose anchor is not set before it$/,
      ],
      [
        'indent.yaml',
        [...head, `    password: ${secret}`, '      misplaced: indentation'],
        /: line 7, column 16: bad indentation of a mapping entry$/,
      ],
      // A second document: where it begins.
      [
        'documents.yaml',
        [...head, '    token: x', '---', `token: ${secret}`],
        /: line 7, column 1: several documents where one is expected$/,
      ],
      // A boolean where kubectl reads text (yaml.v2 reads `no` as false): the field, to be quoted.
      [
        'boolean.yaml',
        [...head, `    token: ${secret}`, 'contexts:', '- name: c', '  context:', '    namespace: no'],
        /: contexts\[0\]\.context\.namespace is a boolean where kubectl reads text \(.*\): put the value in quotes$/,
      ],
    ];
    for (const [name, lines, expected] of cases) {
      const file = join(dir, name);
      writeFileSync(file, `${lines.join('\n')}\n`);
      await assert.rejects(loadKubeConfig({ kubeconfig: file, env: {} }), (error: unknown) => {
        assert.ok(error instanceof UsageError, String(error));
        assert.ok(error.message.startsWith(`cannot read the kubeconfig ${file}: `), error.message);
        assert.match(error.message, expected);
        assert.ok(!`${error.message}${error.hint}`.includes(secret), error.message);
        assert.match(error.hint ?? '', /kubectl config view --kubeconfig /);
        return true;
      });
    }
  });

  it('read as kubectl reads it: a tag as its value, a merge key merged, the published quoting', async () => {
    const file = join(dir, 'as-kubectl.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: dev',
        'clusters:',
        '- name: c1',
        '  cluster: &c1 {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}',
        '- name: c2',
        '  cluster:',
        '    <<: *c1',
        '    server: https://127.0.0.2:6443',
        'users:',
        '- name: u1',
        '  user:',
        '    token: !vault abc',
        'contexts:',
        '- name: dev',
        '  context:',
        '    cluster: c2',
        '    user: u1',
        // As the published bundle.yaml quotes: the next line no deeper than the key.
        "    namespace: 'redis",
        "    eu'",
        '',
      ].join('\n'),
    );
    const loaded = await loadKubeConfig({ kubeconfig: file, env: {} });
    assert.equal(loaded.server, 'https://127.0.0.2:6443');
    assert.equal(loaded.namespace, 'redis eu');
    assert.equal(loaded.config.getCluster('c2')?.skipTLSVerify, true, 'merged from c1');
    assert.equal(loaded.config.getUser('u1')?.token, 'abc');
  });

  it('YAML 1.1 booleans as kubectl reads them: insecure-skip-tls-verify yes and off, a quoted "no" as text', async () => {
    const file = join(dir, 'booleans.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: "on"',
        'clusters:',
        '- {name: c1, cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: yes}}',
        '- {name: c2, cluster: {server: "https://127.0.0.2:6443", insecure-skip-tls-verify: Off}}',
        'users:',
        '- {name: u1, user: {token: abc, exec: {command: x, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never, provideClusterInfo: y}}}',
        'contexts:',
        "- {name: 'on', context: {cluster: c1, user: u1, namespace: 'no'}}",
        '- {name: two, context: {cluster: c2, user: u1}}',
        // A field kubectl does not know is not judged, nor an extension.
        'preferences: {colors: YES, extensions: [{name: e, extension: {enabled: on}}]}',
        'unknown-field: n',
        '',
      ].join('\n'),
    );
    const loaded = await loadKubeConfig({ kubeconfig: file, env: {} });
    assert.equal(loaded.contextName, 'on');
    assert.equal(loaded.namespace, 'no');
    assert.equal(loaded.config.getCluster('c1')?.skipTLSVerify, true, 'yes');
    assert.equal(loaded.config.getCluster('c2')?.skipTLSVerify, false, 'Off');
  });

  it("a certificate or key file the context names is a regular file of a certificate's size, its path relative to the kubeconfig", async () => {
    const sub = join(dir, 'certs');
    mkdirSync(sub, { recursive: true });
    execFileSync('mkfifo', [join(sub, 'ca.fifo')]);
    writeFileSync(join(sub, 'client.key'), '');
    truncateSync(join(sub, 'client.key'), 5 * 1024 * 1024);
    const named = (cluster: string, user: string): string => {
      const path = join(sub, 'config.yaml');
      writeFileSync(
        path,
        [
          'apiVersion: v1',
          'kind: Config',
          'current-context: dev',
          'clusters:',
          `- name: c1\n  cluster: {server: "https://127.0.0.1:6443", ${cluster}}`,
          'users:',
          `- name: u1\n  user: {${user}}`,
          'contexts:',
          '- name: dev\n  context: {cluster: c1, user: u1}',
        ].join('\n'),
      );
      return path;
    };
    await assert.rejects(
      loadKubeConfig({ kubeconfig: named('certificate-authority: ca.fifo', 'token: abc'), env: {} }),
      (error: unknown) => {
        assert.ok(error instanceof UsageError);
        assert.equal(
          error.message,
          `the kubeconfig's certificate-authority of cluster c1 ${join(sub, 'ca.fifo')} is a FIFO (named pipe), not a regular file`,
        );
        return true;
      },
    );
    await assert.rejects(
      loadKubeConfig({
        kubeconfig: named(
          'insecure-skip-tls-verify: true',
          'client-certificate-data: eA==, client-key: client.key',
        ),
        env: {},
      }),
      /the kubeconfig's client-key of user u1 \S+client\.key is 5 MiB, more than the 4 MiB ctl reads of it/,
    );
  });

  it('a missing --kubeconfig file is a usage error', async () => {
    await assert.rejects(loadKubeConfig({ kubeconfig: join(dir, 'absent.yaml'), env: {} }), UsageError);
  });

  it('an empty kubeconfig is no configuration, as kubectl reads it: named, never a JavaScript error', async () => {
    const empty = join(dir, 'empty.yaml');
    const comments = join(dir, 'comments.yaml');
    writeFileSync(empty, '');
    writeFileSync(comments, '# nothing here yet\n');
    for (const file of [empty, comments]) {
      await assert.rejects(loadKubeConfig({ kubeconfig: file, env: {} }), (error: unknown) => {
        assert.ok(error instanceof UsageError);
        assert.equal(error.message, `the kubeconfig ${file} defines no context`);
        assert.match(error.hint ?? '', /Point --kubeconfig or KUBECONFIG at the kubeconfig of your cluster/);
        assert.doesNotMatch(error.message, /Cannot read properties/);
        return true;
      });
    }
    // One of several in KUBECONFIG adds nothing (client-go's Load of no bytes), wherever it is.
    for (const files of [
      [empty, main],
      [main, comments],
    ]) {
      const loaded = await loadKubeConfig({ env: { KUBECONFIG: files.join(delimiter) } });
      assert.equal(loaded.contextName, 'dev');
    }
    const list = join(dir, 'list.yaml');
    writeFileSync(list, '- clusters\n- contexts\n');
    await assert.rejects(
      loadKubeConfig({ kubeconfig: list, env: {} }),
      /cannot read the kubeconfig .*list\.yaml: the file holds a YAML list, not a kubeconfig's mapping/,
    );
  });

  it('KUBECONFIG lists files; the first current-context wins, contexts merge', async () => {
    const other = kubeconfig('other.yaml', 'staging', [{ name: 'staging', namespace: 'stage' }]);
    const loaded = await loadKubeConfig({
      env: { KUBECONFIG: [main, join(dir, 'missing.yaml'), other].join(delimiter) },
    });
    assert.equal(loaded.contextName, 'dev');
    const switched = await loadKubeConfig({
      context: 'staging',
      env: { KUBECONFIG: [main, other].join(delimiter) },
    });
    assert.equal(switched.namespace, 'stage');
  });

  it('selection: what the person chose, as the printed commands name it (kube-target.ts)', async () => {
    const other = kubeconfig('chosen-other.yaml', 'staging', [{ name: 'staging' }]);
    // --kubeconfig, relative: named absolute, so the command works from any folder.
    const flag = await loadKubeConfig({ kubeconfig: main, context: 'prod', env: {} });
    assert.deepEqual(flag.selection, { context: 'prod', kubeconfigs: [main] });
    assert.deepEqual(
      (await loadKubeConfig({ kubeconfig: relative(process.cwd(), main), env: {} })).selection,
      {
        kubeconfigs: [main],
      },
    );
    // The current context, not chosen: nothing but the file.
    assert.deepEqual((await loadKubeConfig({ kubeconfig: main, env: {} })).selection, {
      kubeconfigs: [main],
    });
    // KUBECONFIG: the files that exist, in order (kubectl skips the missing ones too).
    const listed = await loadKubeConfig({
      env: { KUBECONFIG: [main, join(dir, 'missing.yaml'), other].join(delimiter) },
    });
    assert.deepEqual(listed.selection, { kubeconfigs: [main, other] });
    const one = await loadKubeConfig({
      env: { KUBECONFIG: [join(dir, 'missing.yaml'), other].join(delimiter) },
    });
    assert.deepEqual(one.selection, { kubeconfigs: [other] });
    // The default file: kubectl reads it anyway, nothing to name.
    const home = join(dir, 'home-selection');
    mkdirSync(join(home, '.kube'), { recursive: true });
    copyFileSync(main, join(home, '.kube', 'config'));
    assert.deepEqual((await loadKubeConfig({ env: { HOME: home } })).selection, {});
    assert.deepEqual((await loadKubeConfig({ context: 'prod', env: { HOME: home } })).selection, {
      context: 'prod',
    });
  });

  it('a chosen context or kubeconfig path with a line break or a control character is refused (exit 2)', async () => {
    for (const context of ['prod\nrm -rf ~', 'prod\r', 'a\u001b[2Jb', 'x\u202ey']) {
      const multi = kubeconfig('control.yaml', 'dev', [{ name: 'dev' }]);
      await assert.rejects(loadKubeConfig({ kubeconfig: multi, context, env: {} }), (error: unknown) => {
        assert.ok(error instanceof UsageError, String(error));
        assert.match(error.message, /line break or a control character/);
        // Shown escaped, never raw.
        assert.ok(!/[\n\r\u001b\u202e]/.test(error.message), error.message);
        assert.match(error.hint ?? '', /kubectl config rename-context/);
        return true;
      });
    }
    const odd = join(dir, 'line\nbreak');
    mkdirSync(odd, { recursive: true });
    const file = join(odd, 'config.yaml');
    copyFileSync(main, file);
    await assert.rejects(loadKubeConfig({ kubeconfig: file, env: {} }), /line break or a control character/);
  });

  it('KUBECONFIG naming no file that exists is an error, never ~/.kube/config (kubectl ignores it too)', async () => {
    // A typo in KUBECONFIG must not upgrade the cluster of ~/.kube/config, which kubectl would
    // not have used either (client-go reads only the files KUBECONFIG lists).
    const home = join(dir, 'home-with-config');
    mkdirSync(join(home, '.kube'), { recursive: true });
    copyFileSync(main, join(home, '.kube', 'config'));
    const missing = [join(dir, 'typo.yaml'), join(dir, 'typo2.yaml')].join(delimiter);
    for (const env of [
      { KUBECONFIG: missing, HOME: home },
      { KUBECONFIG: missing, HOME: home, KUBERNETES_SERVICE_HOST: '10.0.0.1' },
    ]) {
      await assert.rejects(
        loadKubeConfig({ env }),
        (error: unknown) =>
          error instanceof UsageError &&
          error.message === `KUBECONFIG=${missing}: no such file` &&
          /Fix KUBECONFIG/.test(error.hint ?? ''),
      );
    }
    // Empty, it is as good as unset: ~/.kube/config.
    assert.equal((await loadKubeConfig({ env: { KUBECONFIG: '', HOME: home } })).contextName, 'dev');
  });

  it('no kubeconfig anywhere and not in a pod: a usage error that says where it looked and how to try ctl', async () => {
    await assert.rejects(
      loadKubeConfig({ env: { HOME: dir } }),
      (error: unknown) =>
        error instanceof UsageError &&
        error.message ===
          `no kubeconfig found: KUBECONFIG is not set and ${join(dir, '.kube', 'config')} does not exist` &&
        // Someone who has just installed ctl and has no cluster at hand learns the simulated one.
        /--kubeconfig FILE, set KUBECONFIG.*To try ctl without a cluster: ctl demo, or ctl sim up/.test(
          error.hint ?? '',
        ),
    );
  });

  it('in a pod without a kubeconfig: the in-cluster config', async () => {
    const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
    // client-node reads the service address from process.env itself.
    process.env.KUBERNETES_SERVICE_HOST = '10.0.0.1';
    process.env.KUBERNETES_SERVICE_PORT = '443';
    // The pod's service account files, under a folder standing in for the pod's root: they are
    // read when the config is loaded, as client-go's InClusterConfig reads the token.
    const root = join(dir, 'pod');
    const account = join(root, 'var/run/secrets/kubernetes.io/serviceaccount');
    mkdirSync(account, { recursive: true });
    writeFileSync(join(account, 'token'), 'pod-token\n');
    writeFileSync(join(account, 'ca.crt'), 'not read as a certificate: no request is sent');
    try {
      const loaded = await loadKubeConfig({
        env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', HOME: dir },
        inClusterRoot: root,
      });
      assert.equal(loaded.inCluster, true);
      assert.equal(loaded.server, 'https://10.0.0.1:443');
      await assert.rejects(
        loadKubeConfig({ context: 'x', env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', HOME: dir } }),
        UsageError,
      );
    } finally {
      restore('KUBERNETES_SERVICE_HOST', saved.host);
      restore('KUBERNETES_SERVICE_PORT', saved.port);
    }
  });

  it('createKubeClients builds the path and object clients of the context', async () => {
    const clients = await createKubeClients(await loadKubeConfig({ kubeconfig: main, env: {} }), () => {});
    assert.equal(clients.contextName, 'dev');
    assert.equal(typeof clients.rest.get, 'function');
    assert.equal(typeof clients.objects.patch, 'function');
  });

  it('resourcePath: the core group under /api, the others under /apis, each segment encoded', () => {
    assert.equal(resourcePath('', 'v1', 'pods', 'redis'), '/api/v1/namespaces/redis/pods');
    assert.equal(resourcePath('', 'v1', 'namespaces'), '/api/v1/namespaces');
    assert.equal(
      resourcePath('coordination.k8s.io', 'v1', 'leases', 'redis', 'ctl-upgrade-lock-rec'),
      '/apis/coordination.k8s.io/v1/namespaces/redis/leases/ctl-upgrade-lock-rec',
    );
    assert.equal(
      resourcePath('app.redislabs.com', 'v1alpha1', 'redisenterprisedatabases', 'a b', 'x/y'),
      '/apis/app.redislabs.com/v1alpha1/namespaces/a%20b/redisenterprisedatabases/x%2Fy',
    );
  });
});

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

describe('kube errors', () => {
  const exception = (code: number, body: unknown) =>
    Object.assign(new Error(`HTTP-Code: ${code}`), { code, body });

  it('reads the code and the Status from the string body', () => {
    const error = exception(
      404,
      JSON.stringify({ kind: 'Status', reason: 'NotFound', message: 'secrets "x" not found' }),
    );
    assert.deepEqual(describeKubeError(error), {
      code: 404,
      reason: 'NotFound',
      message: 'secrets "x" not found',
    });
    assert.equal(isNotFound(error), true);
    assert.equal(isForbidden(exception(403, '')), true);
  });

  it('a transport error has no code', () => {
    assert.deepEqual(describeKubeError(new Error('connect ECONNREFUSED')), {
      code: undefined,
      reason: undefined,
      message: 'connect ECONNREFUSED',
    });
  });

  it('orUndefinedIfNotFound: 404 -> undefined, others rethrown', async () => {
    assert.equal(await orUndefinedIfNotFound(Promise.reject(exception(404, ''))), undefined);
    await assert.rejects(orUndefinedIfNotFound(Promise.reject(exception(500, ''))), /HTTP-Code: 500/);
  });
});
