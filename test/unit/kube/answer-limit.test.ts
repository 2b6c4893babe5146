/**
 * One Kubernetes answer is bounded (src/kube/request.ts, issue 35): an API server (or something
 * posing as one) that streams a PackageManifest for ever is refused at 128 MiB, not held, and
 * the refusal names the request and the limit.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadKubeConfig } from '../../../src/kube/client.js';
import { kubeconfigForLocalServer } from '../../helpers/local-kube.js';
import { kubeRequest, MAX_ANSWER_BYTES } from '../../../src/kube/request.js';

describe('a Kubernetes answer past its limit', () => {
  let server: Server;
  let dir: string;
  let kubeconfig: string;
  const open = new Set<ServerResponse>();
  let sent = 0;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-kube-limit-'));
    server = createServer((_req, res) => {
      open.add(res);
      res.on('close', () => open.delete(res));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"kind":"PackageManifest","status":{"channels":[');
      const chunk = Buffer.from('{"name":"c","currentCSV":"x"},'.repeat(2048));
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk)) sent += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    kubeconfig = await kubeconfigForLocalServer(server, dir);
  });
  after(async () => {
    for (const res of open) res.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('is refused at the limit, naming the request', async () => {
    const loaded = await loadKubeConfig({ kubeconfig, env: {} });
    await assert.rejects(
      kubeRequest(loaded.config, {
        method: 'GET',
        path: '/apis/packages.operators.coreos.com/v1/namespaces/x/packagemanifests/redis',
      }),
      /packagemanifests\/redis: the answer is larger than 128 MiB, the limit for one Kubernetes answer/,
    );
    // It stopped reading near the limit, not at the end of an endless answer.
    assert.ok(sent < MAX_ANSWER_BYTES * 2, `the server sent ${sent} bytes`);
  });
});
