/**
 * The parts of a kubeconfig that the bundle loads only when a kubeconfig uses them
 * (scripts/bundle.mjs, issue 39): the oidc auth provider and the proxy agents of a cluster's
 * `proxy-url` (http and socks); and what ctl runs for a kubeconfig's user, as kubectl would: an
 * exec plugin's relative command from the kubeconfig's folder, no gcp or azure provider, no
 * command from an auth-provider's config, no provider kubectl does not know. The BUILT ctl runs against a local server that stands
 * for the API server, and the test reads what arrived: the credential each provider produced and
 * the way through each proxy. The server answers 403 to everything; the command fails after its
 * first requests, which is all this test needs. It is https: ctl sends a kubeconfig user's
 * credentials over TLS only, as kubectl (src/kube/plain-http.ts); an http proxy in front of it
 * tunnels to it, and one plain-http server shows that nothing of the user goes there.
 */

import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Server as TlsServer } from 'node:https';
import {
  type AddressInfo,
  connect,
  createServer as createTcpServer,
  type Server as TcpServer,
  type Socket,
} from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCtlInProcess } from '../helpers/in-process-ctl.js';
import { type CtlResult } from '../helpers/run-ctl.js';
import { listenTls } from '../helpers/tls-server.js';

interface Seen {
  target: string;
  authorization: string | undefined;
}

/** A JWT (unsigned: nothing here verifies it) that expires in 2099, as an OIDC id-token. */
function idToken(): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ sub: 'someone', exp: 4_070_908_800 })}.signature`;
}

describe('kubeconfig auth providers and proxies, loaded when used', { timeout: 120_000 }, () => {
  let dir: string;
  let api: TlsServer;
  let apiUrl: string;
  let apiPort: number;
  /** An http proxy (CONNECT) to `api`; a plain-http API server too. */
  let proxy: Server;
  let proxyPort: number;
  let socks: TcpServer;
  let socksPort: number;
  const seen: Seen[] = [];
  const socksTargets: string[] = [];
  const connectTargets: string[] = [];
  const sockets = new Set<Socket>();
  /** A tunnel's socket, closed at the end; ctl closing its end first is no error. */
  const keep = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
  };

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-kubeconfig-plugins-'));
    const forbid = (req: IncomingMessage, res: ServerResponse): void => {
      seen.push({ target: req.url ?? '', authorization: req.headers.authorization });
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 403,
          message: 'forbidden by the test',
        }),
      );
    };
    ({ server: api, url: apiUrl } = await listenTls(forbid));
    apiPort = Number(new URL(apiUrl).port);
    // The same API over plain http, and an http proxy (hpagent tunnels with CONNECT: to `api` for
    // port 443, to this plain-http one for port 80).
    proxy = createServer(forbid);
    proxy.on('connect', (req: IncomingMessage, client: Socket) => {
      connectTargets.push(req.url ?? '');
      const port = req.url?.endsWith(':80') ? proxyPort : apiPort;
      const upstream = connect(port, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(client).pipe(upstream);
      });
      keep(client);
      keep(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyPort = (proxy.address() as AddressInfo).port;
    // SOCKS5 without authentication (RFC 1928): every CONNECT goes to the test's API server.
    socks = createTcpServer((client) => {
      keep(client);
      client.once('data', () => {
        client.write(Buffer.from([5, 0]));
        client.once('data', (request: Buffer) => {
          // VER CMD RSV ATYP=3 (a domain name) LEN NAME PORT
          const length = request[4] ?? 0;
          socksTargets.push(
            `${request.subarray(5, 5 + length).toString()}:${request.readUInt16BE(5 + length)}`,
          );
          const upstream = connect(apiPort, '127.0.0.1', () => {
            client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
            upstream.pipe(client).pipe(upstream);
          });
          keep(upstream);
        });
      });
    });
    await new Promise<void>((resolve) => socks.listen(0, '127.0.0.1', resolve));
    socksPort = (socks.address() as AddressInfo).port;
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => api.close(() => resolve()));
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
    await new Promise<void>((resolve) => socks.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * `ctl upgrade plan` with a kubeconfig of one cluster and one user, as JSON (which is YAML); the
   * requests that reached the server for it. Its server URL ends in `/<name>`, and only requests
   * under that path are its own: on a busy machine the server may read the previous test's last
   * request only after that test's ctl has exited.
   */
  async function planWith(
    name: string,
    cluster: { server: string; 'proxy-url'?: string },
    user: object,
    /** Where the kubeconfig is written (default: the test's folder) and where ctl runs. */
    where: { folder?: string; cwd?: string } = {},
  ): Promise<Seen[]> {
    const { result, own } = await runPlan(name, cluster, user, where);
    assert.notEqual(result.code, 0, 'the stand-in API server refuses everything');
    assert.doesNotMatch(result.stderr, /internal|Cannot find|is not a constructor|TypeError/, result.stderr);
    assert.ok(own.length > 0, `no request reached the server: ${result.stderr}`);
    return own;
  }

  /** planWith's run, without its assertions: the result and the requests of its own that arrived. */
  async function runPlan(
    name: string,
    cluster: { server: string; 'proxy-url'?: string },
    user: object,
    where: { folder?: string; cwd?: string } = {},
  ): Promise<{ result: CtlResult; own: Seen[] }> {
    const kubeconfig = path.join(where.folder ?? dir, `${name}.kubeconfig`);
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'c',
            cluster: { 'insecure-skip-tls-verify': true, ...cluster, server: `${cluster.server}/${name}` },
          },
        ],
        users: [{ name: 'u', user }],
        contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u', namespace: 'redis' } }],
        'current-context': 'ctx',
      }),
    );
    const result = await runCtlInProcess(['upgrade', 'plan', '--to', '7.8.2-6', '--kubeconfig', kubeconfig], {
      env: { HOME: dir, XDG_STATE_HOME: dir, XDG_CACHE_HOME: dir },
      ...(where.cwd ? { cwd: where.cwd } : {}),
      // A hang guard: a plugin or provider command that held ctl would end here, not in a pass.
      timeoutMs: 60_000,
    });
    return { result, own: seen.filter((request) => request.target.startsWith(`/${name}/`)) };
  }

  // kubectl no longer has the gcp and azure auth providers (client-go 1.26's stubs,
  // src/kube/refused-auth-providers.ts): ctl refuses such a user with kubectl's own message and
  // never runs the provider's command (client-node ran it through a shell, unbounded; the bundle
  // no longer carries either provider, scripts/bundle.mjs).
  for (const [name, kubectl, hint] of [
    ['gcp', 'The gcp auth plugin has been removed.', /gcloud components install gke-gcloud-auth-plugin/],
    ['azure', 'The azure auth plugin has been removed.', /kubelogin convert-kubeconfig/],
  ] as const) {
    it(`${name}: refused with kubectl's message, its cmd-path never run, no request sent`, async () => {
      const marker = path.join(dir, `${name}-helper-ran`);
      const helper = path.join(dir, `${name}-helper.mjs`);
      writeFileSync(
        helper,
        `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\n` +
          `process.stdout.write(JSON.stringify({ credential: { access_token: '${name}-token-from-helper', token_expiry: '2099-01-01T00:00:00Z' } }));\n`,
      );
      const { result, own } = await runPlan(
        name,
        { server: apiUrl },
        {
          'auth-provider': {
            name,
            config: {
              'cmd-path': process.execPath,
              'cmd-args': helper,
              'access-token': `${name}-token`,
              expiry: '2099-01-01T00:00:00Z',
              'token-key': '{.credential.access_token}',
              'expiry-key': '{.credential.token_expiry}',
            },
          },
        },
      );
      assert.equal(result.code, 2, result.stderr);
      assert.match(
        result.stderr,
        new RegExp(
          `error: the kubeconfig's user u uses the ${name} auth provider, which kubectl no longer has`,
        ),
      );
      assert.ok(result.stderr.includes(`kubectl says: ${kubectl}`), result.stderr);
      assert.match(result.stderr, hint);
      assert.deepEqual(own, []);
      assert.equal(existsSync(marker), false, `the ${name} helper ran`);
    });
  }

  // The other auth-provider forms kubectl refuses, or client-node served otherwise than kubectl
  // (src/kube/refused-auth-providers.ts), each refused before any request: before, client-node ran
  // the config's `exec` command (1), sent an unknown provider's requests without credentials (2),
  // ran the exec plugin that kubectl refuses beside an auth-provider (3), and sent an oidc user's
  // tokenFile token instead of its id-token (4); it sent an oidc user whose config has an empty
  // `exec` (5); and it sent the users kubectl's own checks refuse (src/kube/auth-info.ts): a token
  // beside a username and password (6), a v1 exec plugin without its interactiveMode, run (7).
  for (const [form, user, message, hint] of [
    [
      'config-exec',
      (helper: string) => ({
        'auth-provider': {
          name: 'oidc',
          config: {
            'id-token': idToken(),
            'client-id': 'ctl',
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1beta1',
              command: process.execPath,
              args: [helper],
            },
          },
        },
      }),
      "error: the kubeconfig's user u has an exec command in its auth-provider's config (auth-provider.config.exec); kubectl never runs it, and neither does ctl",
      /Give the command as the user's exec credential plugin instead \(users\[\]\.user\.exec/,
    ],
    [
      'config-exec-empty',
      () => ({
        'auth-provider': { name: 'oidc', config: { 'id-token': idToken(), 'client-id': 'ctl', exec: '' } },
      }),
      "error: the kubeconfig's user u has an exec command in its auth-provider's config (auth-provider.config.exec); kubectl never runs it, and neither does ctl",
      /Give the command as the user's exec credential plugin instead \(users\[\]\.user\.exec/,
    ],
    [
      'token-and-basic',
      () => ({ token: 'a-token', username: 'ops', password: 'a-password' }),
      "error: the kubeconfig's user u is not valid; kubectl says: more than one authentication method found for u; found [token basicAuth], only one is allowed",
      /Keep one way to sign in for user u: remove its token, or its username and password\./,
    ],
    [
      'v1-exec-without-interactive-mode',
      (helper: string) => ({
        exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: [helper] },
      }),
      "error: the kubeconfig's user u is not valid; kubectl says: interactiveMode must be specified for u to use exec authentication plugin",
      /Set interactiveMode in users\[\]\.user\.exec of user u: Never/,
    ],
    [
      'unknown-name',
      () => ({ 'auth-provider': { name: 'openstack', config: { ttl: '1h' } } }),
      'error: the kubeconfig\'s user u uses the auth provider "openstack", which kubectl does not have; kubectl says: no Auth Provider found for name "openstack"',
      /exec credential plugin \(users\[\]\.user\.exec\)/,
    ],
    [
      'exec-beside-auth-provider',
      (helper: string) => ({
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1beta1',
          command: process.execPath,
          args: [helper],
          interactiveMode: 'Never',
        },
        'auth-provider': { name: 'oidc', config: { 'id-token': idToken(), 'client-id': 'ctl' } },
      }),
      'kubectl says: authProvider cannot be provided in combination with an exec plugin for u',
      /remove the user's auth-provider/,
    ],
    [
      'oidc-token-file',
      () => {
        const token = path.join(dir, 'oidc-token-file.token');
        writeFileSync(token, 'token-of-the-file');
        return {
          'auth-provider': {
            name: 'oidc',
            config: { 'id-token': idToken(), 'client-id': 'ctl', tokenFile: token },
          },
        };
      },
      "kubectl's oidc provider ignores the tokenFile",
      /Remove tokenFile/,
    ],
  ] as const) {
    it(`${form}: refused (exit 2) with what kubectl says and what to use, no command run, no request sent`, async () => {
      const marker = path.join(dir, `${form}-helper-ran`);
      const helper = path.join(dir, `${form}-helper.mjs`);
      writeFileSync(
        helper,
        `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\n` +
          `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status: { token: '${form}-token' } }));\n`,
      );
      const { result, own } = await runPlan(form, { server: apiUrl }, user(helper));
      assert.equal(result.code, 2, result.stderr);
      assert.ok(result.stderr.includes(message), result.stderr);
      assert.match(result.stderr, hint);
      assert.deepEqual(own, []);
      assert.equal(existsSync(marker), false, `the ${form} helper ran`);
    });
  }

  it("exec: a relative command is the kubeconfig folder's, not the working folder's (as kubectl)", async () => {
    const credential = (token: string) =>
      JSON.stringify({
        apiVersion: 'client.authentication.k8s.io/v1beta1',
        kind: 'ExecCredential',
        status: { token },
      });
    const plugin = (file: string, token: string, marker?: string) => {
      writeFileSync(
        file,
        `#!/bin/sh\n${marker ? `echo ran > '${marker}'\n` : ''}printf '%s' '${credential(token)}'\n`,
      );
      chmodSync(file, 0o755);
    };
    const folder = path.join(dir, 'kubeconfig-folder');
    const work = path.join(dir, 'working-folder');
    mkdirSync(folder);
    mkdirSync(work);
    const planted = path.join(dir, 'planted-plugin-ran');
    plugin(path.join(folder, 'plugin'), 'token-of-the-kubeconfig-folder');
    // What client-node ran before: ./plugin taken from the folder ctl was started in.
    plugin(path.join(work, 'plugin'), 'token-of-the-working-folder', planted);
    const requests = await planWith(
      'exec-relative',
      { server: apiUrl },
      {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1beta1',
          command: './plugin',
          interactiveMode: 'Never',
        },
      },
      { folder, cwd: work },
    );
    assert.equal(requests[0]?.authorization, 'Bearer token-of-the-kubeconfig-folder');
    assert.equal(existsSync(planted), false, "the working folder's ./plugin ran");
  });

  it('oidc: the id-token while it is valid', async () => {
    const token = idToken();
    const requests = await planWith(
      'oidc',
      { server: apiUrl },
      {
        'auth-provider': {
          name: 'oidc',
          config: {
            'id-token': token,
            'client-id': 'ctl',
            'idp-issuer-url': 'https://issuer.example.invalid',
          },
        },
      },
    );
    assert.equal(requests[0]?.authorization, `Bearer ${token}`);
  });

  it('an http proxy-url: the connection is a tunnel through the proxy', async () => {
    connectTargets.length = 0;
    const requests = await planWith(
      'http-proxy',
      { server: 'https://kube.example.invalid', 'proxy-url': `http://127.0.0.1:${proxyPort}` },
      { token: 'token-through-the-proxy' },
    );
    assert.equal(connectTargets[0], 'kube.example.invalid:443');
    assert.equal(requests[0]?.authorization, 'Bearer token-through-the-proxy');
  });

  // kubectl sends a plain-http server none of the user's credentials (client-go
  // tools/clientcmd/client_config.go: `only try to read the auth information if we are secure`),
  // but its proxy-url still applies; ctl says once that nothing of the user is sent.
  it('a plain-http server: through its proxy-url, without the token, with one warning', async () => {
    connectTargets.length = 0;
    const { result, own } = await runPlan(
      'plain-http-proxy',
      { server: 'http://kube.example.invalid', 'proxy-url': `http://127.0.0.1:${proxyPort}` },
      { token: 'token-never-sent-in-clear' },
    );
    assert.notEqual(result.code, 0, 'the stand-in API server refuses everything');
    assert.equal(connectTargets[0], 'kube.example.invalid:80');
    assert.ok(own.length > 0, `no request reached the server: ${result.stderr}`);
    for (const request of own) assert.equal(request.authorization, undefined, request.target);
    const warnings = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('warning: ') && line.includes('plain http'));
    assert.deepEqual(warnings, [
      "warning: the cluster's server http://kube.example.invalid/plain-http-proxy is plain http: ctl sends it no credentials of the kubeconfig's user, as kubectl does",
    ]);
    assert.ok(!result.stderr.includes('token-never-sent-in-clear'), result.stderr);
  });

  // socks5, as kubectl takes it (it refuses socks5h: client-go helpers.go parseProxyURL), with
  // the server's name resolved by the SOCKS server, as Go's SOCKS5 dialer has it resolved.
  it('a socks proxy-url: the connection goes through the SOCKS server', async () => {
    socksTargets.length = 0;
    const requests = await planWith(
      'socks-proxy',
      { server: 'https://kube.example.invalid', 'proxy-url': `socks5://127.0.0.1:${socksPort}` },
      { token: 'token-through-socks' },
    );
    assert.equal(socksTargets[0], 'kube.example.invalid:443');
    assert.equal(requests[0]?.authorization, 'Bearer token-through-socks');
  });

  it('a proxy-url kubectl refuses (socks5h): exit 2 in its words, nothing sent', async () => {
    socksTargets.length = 0;
    const proxyUrl = `socks5h://127.0.0.1:${socksPort}`;
    const { result, own } = await runPlan(
      'socks5h-proxy',
      { server: apiUrl, 'proxy-url': proxyUrl },
      { token: 'never-sent' },
    );
    assert.equal(result.code, 2, result.stderr);
    assert.ok(
      result.stderr.includes(
        `the kubeconfig's cluster c is not valid; kubectl says: invalid 'proxy-url' "${proxyUrl}" for cluster "c": unsupported scheme "socks5h", must be http, https, or socks5`,
      ),
      result.stderr,
    );
    assert.match(
      result.stderr,
      /Fix the proxy-url of cluster c: a URL of scheme http, https or socks5, or remove it\./,
    );
    assert.deepEqual(own, []);
    assert.deepEqual(socksTargets, []);
  });
});
