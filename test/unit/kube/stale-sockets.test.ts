/**
 * Kept connections an API server closed while they were idle (src/kube/request.ts): a server
 * closes its idle connections on its own timer, several at once, and a request sent on one of
 * them just then is reset before it reached the server. ctl sent it once more on the next kept
 * connection, which the server had closed too: a run stopped in the security-context step on
 * "cannot list ClusterRole objects: read ECONNRESET" (seen in e2e/upgrade-openshift-scc under load).
 * The connections kept as long as the reset one are dropped, so the one retry opens a new one.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadKubeConfig } from '../../../src/kube/client.js';
import { kubeRequest } from '../../../src/kube/request.js';
import { kubeconfigForLocalServer } from '../../helpers/local-kube.js';

describe('kept connections the server closed while idle', () => {
  let server: Server;
  let dir: string;
  let kubeconfig: string;
  /** Connections made before `doom()`: a request on one is reset, as on a closed connection. */
  const doomed = new Set<Socket>();
  const all = new Set<Socket>();
  let resets = 0;
  let answered = 0;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-kube-stale-'));
    server = createServer((req, res) => {
      if (doomed.has(req.socket)) {
        resets += 1;
        req.socket.resetAndDestroy();
        return;
      }
      answered += 1;
      // Held a moment, so that parallel requests each open a connection of their own.
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"items":[]}'), 50);
    });
    server.on('connection', (socket: Socket) => {
      all.add(socket);
      socket.on('close', () => all.delete(socket));
    });
    kubeconfig = await kubeconfigForLocalServer(server, dir);
  });
  after(async () => {
    for (const socket of all) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('the retry goes out on a new connection, not on another closed one', async () => {
    const loaded = await loadKubeConfig({ kubeconfig, env: {} });
    const list = (plural: string) =>
      kubeRequest(loaded.config, { method: 'GET', path: `/apis/rbac.authorization.k8s.io/v1/${plural}` });
    // Four kept connections, idle.
    await Promise.all(['a', 'b', 'c', 'd'].map((name) => list(`clusterroles?x=${name}`)));
    assert.ok(all.size >= 2, `kept connections: ${all.size}`);
    for (const socket of all) doomed.add(socket);
    const before = answered;

    assert.deepEqual(await list('clusterroles'), { items: [] });
    assert.equal(resets, 1, 'one kept connection was reset, then the request went out anew');
    assert.equal(answered, before + 1);
  });
});
