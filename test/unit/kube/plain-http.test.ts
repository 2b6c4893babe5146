/**
 * A kubeconfig user's credentials go to a server reached over TLS only, as kubectl sends them
 * (kubernetes/client-go tools/clientcmd/client_config.go: `only try to read the auth information
 * if we are secure`; src/kube/plain-http.ts). The same kubeconfig is used toward a plain-http
 * server and an https one: the http one sees no Authorization header, no Impersonate-* header, on
 * a request, a watch and the port-forward's upgrade, and its exec plugin is never started nor
 * its token file read; the https one gets them all.
 */

import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Server as TlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { createKubeClients, loadKubeConfig } from '../../../src/kube/client.js';
import { kubeconfigOfUsers, kubeconfigRefusal } from '../../helpers/kubeconfig-files.js';
import { EVERY_KIND_PATHS, everyKindOfRequest, markingPlugin } from '../../helpers/kube-requests.js';
import { tempDir } from '../../helpers/temp.js';
import { listenTls } from '../../helpers/tls-server.js';

const dir = tempDir('ctl-plain-http-');
const { mark, exec } = markingPlugin(dir);
const tokenFile = join(dir, 'token');
writeFileSync(tokenFile, 'from-token-file\n');
const emptyTokenFile = join(dir, 'empty-token');
writeFileSync(emptyTokenFile, '');

/** Each user, and the credential lines an https server gets for it (name lowercased, sorted). */
const USERS: Record<string, { user: object; https: [string, string][] }> = {
  impersonating: {
    user: { token: 'from-token', as: 'jane', 'as-groups': ['devs'] },
    https: [
      ['authorization', 'Bearer from-token'],
      ['impersonate-group', 'devs'],
      ['impersonate-user', 'jane'],
    ],
  },
  tokenFile: { user: { tokenFile }, https: [['authorization', 'Bearer from-token-file']] },
  basic: {
    user: { username: 'ops', password: 'pw' },
    https: [['authorization', `Basic ${Buffer.from('ops:pw').toString('base64')}`]],
  },
  plugin: {
    user: { exec },
    https: [['authorization', 'Bearer from-plugin']],
  },
};

/** The credential lines of one request: Authorization and Impersonate-*, sorted. */
function credentialLines(request: IncomingMessage): [string, string][] {
  const lines: [string, string][] = [];
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i]!.toLowerCase();
    if (name === 'authorization' || name.startsWith('impersonate-'))
      lines.push([name, request.rawHeaders[i + 1]!]);
  }
  return lines.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

let seen: { path: string; lines: [string, string][] }[] = [];

function handler(request: IncomingMessage, response: ServerResponse): void {
  seen.push({ path: request.url ?? '', lines: credentialLines(request) });
  response.setHeader('Content-Type', 'application/json');
  if (request.url?.includes('watch=true')) {
    response.end('{"type":"ADDED","object":{"kind":"Namespace","metadata":{"name":"a"}}}\n');
    return;
  }
  response.end('{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}');
}

/** The port-forward's WebSocket upgrade: its headers recorded, then the connection dropped. */
function onUpgrade(server: Server | TlsServer): void {
  server.on('upgrade', (request: IncomingMessage, socket: { destroy(): void }) => {
    seen.push({ path: request.url ?? '', lines: credentialLines(request) });
    socket.destroy();
  });
}

/**
 * What the server saw of a request, a watch and a port-forward's upgrade as `context` of
 * `kubeconfig` (their paths checked), and whether the exec plugin ran.
 */
async function requestsAs(kubeconfig: string, context: string): Promise<{ pluginRan: boolean }> {
  rmSync(mark, { force: true });
  seen = [];
  await everyKindOfRequest(
    await createKubeClients(await loadKubeConfig({ kubeconfig, context, env: {} }), () => {}),
  );
  assert.deepEqual(
    seen.map(({ path }) => path.split('?')[0]),
    EVERY_KIND_PATHS,
    context,
  );
  return { pluginRan: existsSync(mark) };
}

describe("a kubeconfig user's credentials toward a plain-http server and an https one", () => {
  let plain: Server;
  let plainUrl: string;
  let tls: TlsServer;
  let tlsUrl: string;
  before(async () => {
    plain = createServer(handler);
    onUpgrade(plain);
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
    ({ server: tls, url: tlsUrl } = await listenTls(handler));
    onUpgrade(tls);
  });
  after(async () => {
    await new Promise<void>((resolve) => plain.close(() => resolve()));
    await new Promise<void>((resolve) => tls.close(() => resolve()));
  });

  const users = Object.fromEntries(Object.entries(USERS).map(([name, { user }]) => [name, user]));
  const kubeconfig = (folder: string, server: string, of: Record<string, object> = users) =>
    kubeconfigOfUsers(dir, folder, of, { server, 'insecure-skip-tls-verify': true });

  it('over http: no Authorization, no Impersonate-* header, no plugin started, on a request, a watch and the port-forward', async () => {
    const file = kubeconfig('plain', plainUrl);
    for (const context of Object.keys(USERS)) {
      const { pluginRan } = await requestsAs(file, context);
      for (const { path, lines } of seen) assert.deepEqual(lines, [], `${context}: ${path}`);
      assert.equal(pluginRan, false, `${context}: the exec plugin ran for a plain-http server`);
    }
  });

  it('over https the same users send them all, and the plugin runs', async () => {
    const file = kubeconfig('tls', tlsUrl);
    for (const [context, { https }] of Object.entries(USERS)) {
      const { pluginRan } = await requestsAs(file, context);
      for (const { path, lines } of seen) assert.deepEqual(lines, https, `${context}: ${path}`);
      assert.equal(pluginRan, context === 'plugin', `${context}: the plugin ran: ${pluginRan}`);
    }
  });

  it("client-node's typed clients (applySecurityAuthentication): no header toward http, the token toward https", async () => {
    const headersOf = async (server: string, folder: string): Promise<Record<string, string>> => {
      const { config } = await loadKubeConfig({
        kubeconfig: kubeconfig(folder, server, { one: { token: 'from-token', as: 'jane' } }),
        env: {},
      });
      const headers: Record<string, string> = {};
      let agent: unknown;
      await config.applySecurityAuthentication({
        setHeaderParam: (name: string, value: string) => (headers[name] = value),
        setAgent: (given: unknown) => (agent = given),
      } as unknown as Parameters<typeof config.applySecurityAuthentication>[0]);
      assert.ok(agent, `${folder}: no agent`);
      return headers;
    };
    assert.deepEqual(await headersOf(plainUrl, 'typed-plain'), {});
    assert.deepEqual(await headersOf(tlsUrl, 'typed-tls'), {
      Authorization: 'Bearer from-token',
      'Impersonate-User': 'jane',
    });
  });

  it('a token file is not read for a plain-http server: an empty one is refused over https only', async () => {
    const empty = { empty: { tokenFile: emptyTokenFile } };
    seen = [];
    const kube = await createKubeClients(
      await loadKubeConfig({ kubeconfig: kubeconfig('empty-plain', plainUrl, empty), env: {} }),
      () => {},
    );
    await kube.rest.get('/api/v1/namespaces');
    assert.deepEqual(seen, [{ path: '/api/v1/namespaces', lines: [] }]);
    const refusal = await kubeconfigRefusal(kubeconfig('empty-tls', tlsUrl, empty), 'empty');
    assert.match(refusal.message, /tokenFile of user u-empty .* is empty/);
  });

  it('the kubeconfig is still checked as kubectl checks it (validateAuthInfo runs over http too)', async () => {
    const file = kubeconfig('checked', plainUrl, {
      twoWays: { token: 't', username: 'ops', password: 'pw' },
    });
    const refusal = await kubeconfigRefusal(file, 'twoWays');
    assert.ok(refusal instanceof UsageError);
    assert.match(refusal.message, /more than one authentication method/);
  });

  it('warns once per output and server, naming the server without its password; never for https', async () => {
    const warnings: string[] = [];
    const warner = { warn: (message: string) => warnings.push(message) };
    const withPassword = plainUrl.replace('http://', 'http://ops:s3cret@');
    const plainLoaded = await loadKubeConfig({
      kubeconfig: kubeconfig('warned', withPassword, { one: { token: 't' } }),
      env: {},
    });
    await createKubeClients(plainLoaded, () => {}, warner);
    await createKubeClients(plainLoaded, () => {}, warner);
    const shown = plainUrl.replace('http://', 'http://***@');
    assert.deepEqual(warnings, [
      `the cluster's server ${shown}/ is plain http: ctl sends it no credentials of the kubeconfig's user, as kubectl does`,
    ]);
    assert.ok(!warnings.join('\n').includes('s3cret'));
    // Another output (a fleet member's) is told too.
    const other: string[] = [];
    await createKubeClients(plainLoaded, () => {}, { warn: (message) => other.push(message) });
    assert.equal(other.length, 1);
    const tlsLoaded = await loadKubeConfig({
      kubeconfig: kubeconfig('not-warned', tlsUrl, { one: { token: 't' } }),
      env: {},
    });
    await createKubeClients(tlsLoaded, () => {}, warner);
    assert.equal(warnings.length, 1);
  });
});
