/**
 * The kubeconfig's credentials are secrets like the management API's (docs/reliability.md,
 * guarantee 6): the built ctl never prints a Kubernetes bearer token, a token an exec plugin
 * hands over, a Basic password or a client key, in any form.
 *
 * - A kubeconfig that does not parse: the YAML parser's message quotes the lines around the
 *   fault, and those lines are `token:`, `client-key-data:`, `password:`. ctl says where the
 *   fault is, not what the lines hold.
 * - A Kubernetes API (or a proxy in front of it) that quotes the Authorization header back in a
 *   401's Status message, as is, percent-encoded and base64: ctl registers every credential it
 *   sends with the redactor, the one a plugin gives at run time too.
 * - A password in the server URL (`server: https://ops:<password>@host`): Node, like kubectl,
 *   sends it as Basic auth, and -v printed the URL whole. ctl names the server as `***@host`
 *   and redacts the password and its Basic credential wherever they come back.
 */

import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCtlInProcess } from '../helpers/in-process-ctl.js';
import { tempDir } from '../helpers/temp.js';
import { listenTls } from '../helpers/tls-server.js';

const TOKEN = 'kube-canary-token-7f3a9c1e5b';
const PLUGIN_TOKEN = 'plugin-canary-token-2d8e4f6a0c';
const BASIC_PASSWORD = 'kube-basic-Pa55word!';
/** A password in the server URL itself (`https://user:password@host`, sent as Basic auth). */
const URL_PASSWORD = 'kube-url-canary-5e1b9d';
const CLIENT_KEY = Buffer.from('-----BEGIN EC PRIVATE KEY-----\nclient-key-canary\n').toString('base64');

/** Every form a credential may come back in: as is, percent-encoded, base64. */
function formsOf(secret: string): string[] {
  return [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')];
}

function leaks(text: string, secrets: string[]): string[] {
  return secrets.flatMap(formsOf).filter((form) => text.includes(form));
}

/** 401 for every request, its message quoting the Authorization header in three forms. */
function echoingApi(request: IncomingMessage, response: ServerResponse): void {
  const authorization = request.headers.authorization ?? '(none)';
  const credential = authorization.replace(/^\S+\s+/, '');
  const decoded = /^Basic /.test(authorization)
    ? Buffer.from(credential, 'base64').toString('utf8')
    : credential;
  response.writeHead(401, {
    'content-type': 'application/json',
    warning: `299 - "credential ${credential}"`,
  });
  response.end(
    JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Unauthorized',
      code: 401,
      message: `rejected ${authorization}; as a query: auth=${encodeURIComponent(decoded)}; logged as ${Buffer.from(decoded).toString('base64')}`,
    }),
  );
}

describe('kubeconfig credentials are never printed', () => {
  const dir = tempDir('ctl-kube-credentials-');
  // https: ctl sends the kubeconfig's credentials over TLS only, as kubectl (src/kube/plain-http.ts).
  let server: Server;
  let url = '';

  before(async () => {
    ({ server, url } = await listenTls(echoingApi));
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** A kubeconfig whose one user is `user` (YAML flow mapping), pointed at the echoing API. */
  function kubeconfig(name: string, user: string): string {
    const file = path.join(dir, name);
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: c, cluster: {server: "${url}", insecure-skip-tls-verify: true}}]`,
        `users: [{name: u, user: ${user}}]`,
        'contexts: [{name: x, context: {cluster: c, user: u, namespace: prod-cache}}]',
        'current-context: x',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    return file;
  }

  test('a kubeconfig that does not parse: where the fault is, never the lines that hold secrets', async () => {
    const file = path.join(dir, 'broken');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'users:',
        '- name: u',
        '  user:',
        `    token: ${TOKEN}`,
        `    password: ${BASIC_PASSWORD}`,
        `    client-key-data: ${CLIENT_KEY}`,
        '      misplaced: indentation',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    for (const args of [
      ['upgrade', 'plan', '--to', '7.8.2-6', '--kubeconfig', file],
      ['upgrade', 'plan', '--to', '7.8.2-6', '--kubeconfig', file, '-o', 'json', '-vv'],
      ['auth', 'token', '--kubeconfig', file, '--username', 'admin@example.com'],
    ]) {
      const result = await runCtlInProcess(args, { env: { CTL_PASSWORD: 'not-read' } });
      const printed = result.stdout + result.stderr;
      assert.deepEqual(leaks(printed, [TOKEN, BASIC_PASSWORD, CLIENT_KEY]), [], printed);
      assert.equal(result.code, 2, `${args.join(' ')}: ${printed}`);
      assert.match(
        result.stderr,
        /cannot read the kubeconfig \S+: line 9, column 16: bad indentation of a mapping entry/,
      );
    }
  });

  test('a password in the server URL: never printed, in -v, errors or an echo of its Basic header', async () => {
    const file = path.join(dir, 'server-url');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: c, cluster: {server: "${url.replace('https://', `https://ops:${URL_PASSWORD}@`)}", insecure-skip-tls-verify: true}}]`,
        'users: [{name: u, user: {}}]',
        'contexts: [{name: x, context: {cluster: c, user: u, namespace: prod-cache}}]',
        'current-context: x',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    const basic = Buffer.from(`ops:${URL_PASSWORD}`).toString('base64');
    let echoed = 0;
    for (const args of [
      ['upgrade', 'plan', '--to', '7.8.2-6', '-v'],
      ['upgrade', 'plan', '--to', '7.8.2-6', '-o', 'json', '-vv'],
      ['upgrade', 'status', '--state-store', 'configmap', '-v'],
    ]) {
      const result = await runCtlInProcess([...args, '--kubeconfig', file]);
      const printed = result.stdout + result.stderr;
      assert.notEqual(result.code, 0, `${args.join(' ')} cannot succeed: ${printed}`);
      // The Basic header the URL made reached the API, and its echo was shown (redacted).
      if (/rejected Basic/.test(printed)) echoed += 1;
      assert.deepEqual(leaks(printed, [URL_PASSWORD]), [], `${args.join(' ')}: ${printed}`);
      assert.ok(!printed.includes(basic), `${args.join(' ')}: the Basic credential: ${printed}`);
      if (args.includes('-v') && args[0] === 'upgrade' && args[1] === 'plan')
        assert.match(result.stderr, /server https:\/\/\*\*\*@127\.0\.0\.1:\d+/, printed);
    }
    assert.ok(echoed >= 2, `the echo was printed ${echoed} times`);
  });

  test('a Kubernetes API that quotes the Authorization header: token, plugin token and Basic password redacted', async () => {
    const plugin = path.join(dir, 'token-plugin');
    writeFileSync(
      plugin,
      `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"${PLUGIN_TOKEN}"}}'\n`,
    );
    chmodSync(plugin, 0o700);
    const users = {
      token: kubeconfig('token', `{token: ${TOKEN}}`),
      plugin: kubeconfig(
        'plugin',
        `{exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: "${plugin}", interactiveMode: Never}}`,
      ),
      basic: kubeconfig('basic', `{username: ops, password: "${BASIC_PASSWORD}"}`),
    };
    let echoed = 0;
    for (const [user, file] of Object.entries(users)) {
      for (const args of [
        ['upgrade', 'plan', '--to', '7.8.2-6'],
        ['upgrade', 'plan', '--to', '7.8.2-6', '-o', 'json', '-vv'],
        ['upgrade', 'status', '--state-store', 'configmap'],
      ]) {
        const result = await runCtlInProcess([...args, '--kubeconfig', file]);
        const printed = result.stdout + result.stderr;
        assert.notEqual(result.code, 0, `${user}: ${args.join(' ')} cannot succeed: ${printed}`);
        // The API's message is shown (redacted), so the test reaches what it means to test.
        if (/rejected/.test(printed)) echoed += 1;
        assert.deepEqual(
          leaks(printed, [TOKEN, PLUGIN_TOKEN, BASIC_PASSWORD]),
          [],
          `${user}: ${args.join(' ')}: ${printed}`,
        );
      }
    }
    assert.ok(echoed >= 6, `the echo was printed ${echoed} times`);
  });
});
