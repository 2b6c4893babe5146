/**
 * A kubeconfig user's impersonation (`as`, `as-uid`, `as-groups`, `as-user-extra`) on every
 * request ctl makes itself, as kubectl sends it (kubernetes/client-go at 32ce75a7d,
 * transport/round_trippers.go impersonatingRoundTripper and headerKeyEscape;
 * src/kube/impersonation.ts). client-node sent `Impersonate-User` alone. The API server here
 * records each request's headers line by line (rawHeaders): a list must come as one line per
 * value, never joined.
 */

import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import type { Server } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { createKubeClients, loadKubeConfig } from '../../../src/kube/client.js';
import { headerKeyEscape } from '../../../src/kube/impersonation.js';
import { tempDir } from '../../helpers/temp.js';
import { listenTls } from '../../helpers/tls-server.js';
import { kubeconfigOfUsers } from '../../helpers/kubeconfig-files.js';
import { EVERY_KIND_PATHS, everyKindOfRequest } from '../../helpers/kube-requests.js';

const dir = tempDir('ctl-impersonation-');

const impersonating = {
  token: 't',
  as: 'jane',
  'as-uid': 'uid-7',
  // `a, b` is one group: joined into one line it would read as two.
  'as-groups': ['devs', 'a, b', 'équipe-👥'],
  'as-user-extra': { 'example.com/scopes': ['view', 'edit'], 'a%b c:é': ['x'], empty: [] },
};

/** The impersonation lines of one request, names lowercased, values as the bytes' UTF-8, in order. */
function impersonationLines(request: IncomingMessage): [string, string][] {
  const lines: [string, string][] = [];
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i]!.toLowerCase();
    // Node's server reads a header's bytes as latin1: back to the bytes, then their UTF-8.
    const value = Buffer.from(request.rawHeaders[i + 1]!, 'latin1').toString('utf8');
    if (name.startsWith('impersonate-')) lines.push([name, value]);
  }
  return lines.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** What kubectl sends for `impersonating` (extra keys escaped by headerKeyEscape's rules). */
const KUBECTL_LINES: [string, string][] = [
  ['impersonate-extra-a%25b%20c%3a%c3%a9', 'x'],
  ['impersonate-extra-example.com%2fscopes', 'view'],
  ['impersonate-extra-example.com%2fscopes', 'edit'],
  ['impersonate-group', 'devs'],
  ['impersonate-group', 'a, b'],
  ['impersonate-group', 'équipe-👥'],
  ['impersonate-uid', 'uid-7'],
  ['impersonate-user', 'jane'],
];

describe("a kubeconfig user's impersonation", () => {
  let server: Server;
  let url: string;
  let seen: { path: string; lines: [string, string][] }[] = [];
  before(async () => {
    ({ server, url } = await listenTls((request, response) => {
      seen.push({ path: request.url ?? '', lines: impersonationLines(request) });
      response.setHeader('Content-Type', 'application/json');
      if (request.url?.includes('watch=true')) {
        response.end('{"type":"ADDED","object":{"kind":"Namespace","metadata":{"name":"a"}}}\n');
        return;
      }
      response.end(
        '{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}',
      );
    }));
    // The port-forward's WebSocket upgrade: its headers recorded, then the connection dropped.
    server.on('upgrade', (request: IncomingMessage, socket) => {
      seen.push({ path: request.url ?? '', lines: impersonationLines(request) });
      socket.destroy();
    });
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const clients = async (users: Record<string, object>, folder: string, context?: string) =>
    createKubeClients(
      await loadKubeConfig({
        kubeconfig: kubeconfigOfUsers(dir, folder, users, { server: url, 'insecure-skip-tls-verify': true }),
        context,
        env: {},
      }),
      () => {},
    );

  it('escapes an extra key as client-go headerKeyEscape does', () => {
    // Token bytes as they are; `%`, separators, spaces and each byte of non-ASCII UTF-8 as %XX.
    assert.equal(headerKeyEscape('example.com/scopes'), 'example.com%2Fscopes');
    assert.equal(headerKeyEscape("a-Z_0.9!#$&'*+^`|~"), "a-Z_0.9!#$&'*+^`|~");
    assert.equal(headerKeyEscape('a%b c:é'), 'a%25b%20c%3A%C3%A9');
    assert.equal(
      headerKeyEscape('"(),;<=>?@[\\]{}\t\x7f'),
      '%22%28%29%2C%3B%3C%3D%3E%3F%40%5B%5C%5D%7B%7D%09%7F',
    );
  });

  it('sends every field on a request, a watch and the port-forward upgrade', async () => {
    const kube = await clients({ impersonating }, 'whole');
    seen = [];
    await everyKindOfRequest(kube);
    assert.deepEqual(
      seen.map(({ path }) => path.split('?')[0]),
      EVERY_KIND_PATHS,
    );
    for (const { path, lines } of seen) assert.deepEqual(lines, KUBECTL_LINES, path);
  });

  it('sends nothing for an empty `as`, as kubectl (client-node sent an empty Impersonate-User)', async () => {
    const kube = await clients({ none: { token: 't', as: '' } }, 'empty');
    seen = [];
    await kube.rest.get('/api/v1/namespaces');
    assert.deepEqual(seen, [{ path: '/api/v1/namespaces', lines: [] }]);
  });

  it('refuses a value no header can carry before any request (exit 2), and a field kubectl cannot read', async () => {
    seen = [];
    for (const [context, user, field] of [
      ['group', { token: 't', as: 'jane', 'as-groups': ['devs', 'a\nb'] }, 'as-groups'],
      ['extra', { token: 't', as: 'jane', 'as-user-extra': { k: ['\x1b[31m'] } }, 'as-user-extra "k"'],
      ['user', { token: 't', as: 'ja\rne' }, 'as'],
    ] as const) {
      await assert.rejects(
        clients({ [context]: user }, `refused-${context}`),
        (error: unknown) =>
          error instanceof UsageError &&
          error.exitCode === 2 &&
          error.message ===
            `the kubeconfig's user u-${context} has a control character in ${field}: no HTTP header can carry it (kubectl says: net/http: invalid header field value)`,
      );
    }
    await assert.rejects(
      clients({ number: { token: 't', as: 'jane', 'as-groups': [7] } }, 'number'),
      (error: unknown) =>
        error instanceof UsageError && /has as-groups that is not a string$/.test(error.message),
    );
    assert.deepEqual(seen, []);
  });
});
