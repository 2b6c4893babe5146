/**
 * A Kubernetes answer is decoded chunk by chunk as it arrives (src/kube/request.ts): a character
 * whose UTF-8 bytes are split between chunks comes out whole, in a JSON answer, in a list read
 * without managedFields, in a text answer and in an error's body.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadKubeConfig } from '../../../src/kube/client.js';
import { kubeconfigForLocalServer } from '../../helpers/local-kube.js';
import { KubeRequestError, kubeRequest } from '../../../src/kube/request.js';

/** Names whose characters take two, three and four bytes in UTF-8. */
const NAMES = ['café-é', 'euro-€€', 'emoji-😀😀', 'mixed-é€😀'];

const list = {
  kind: 'List',
  items: NAMES.map((name) => ({
    metadata: { name, managedFields: [{ manager: `ctl-${name}`, fieldsV1: { 'f:spec': {} } }] },
    spec: { note: name },
  })),
};

describe('a Kubernetes answer split inside a character', () => {
  let server: Server;
  let dir: string;
  let kubeconfig: string;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-kube-decoding-'));
    server = createServer((req, res) => {
      const failing = req.url?.startsWith('/fail') === true;
      const bytes = Buffer.from(
        failing ? JSON.stringify({ message: `no database ${NAMES.join(' ')}` }) : JSON.stringify(list),
        'utf8',
      );
      res.writeHead(failing ? 404 : 200, { 'content-type': 'application/json' });
      // One byte at a time, each its own chunk: every multi-byte character is split.
      void (async () => {
        for (const byte of bytes) {
          res.write(Buffer.of(byte));
          await sleep(0);
        }
        res.end();
      })();
    });
    kubeconfig = await kubeconfigForLocalServer(server, dir);
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('comes out whole as JSON, as a list without managedFields, and as text', async () => {
    const { config } = await loadKubeConfig({ kubeconfig, env: {} });
    assert.deepEqual(await kubeRequest(config, { method: 'GET', path: '/list' }), list);
    const lean = (await kubeRequest(config, {
      method: 'GET',
      path: '/list',
      withoutManagedFields: true,
    })) as {
      items: { metadata: Record<string, unknown>; spec: { note: string } }[];
    };
    assert.deepEqual(
      lean.items.map((item) => [item.metadata, item.spec.note]),
      NAMES.map((name) => [{ name }, name]),
    );
    assert.equal(
      await kubeRequest(config, { method: 'GET', path: '/list', text: true }),
      JSON.stringify(list),
    );
  });

  it('comes out whole in an error', async () => {
    const { config } = await loadKubeConfig({ kubeconfig, env: {} });
    await assert.rejects(kubeRequest(config, { method: 'GET', path: '/fail' }), (error: unknown) => {
      assert.ok(error instanceof KubeRequestError);
      assert.equal(error.code, 404);
      assert.equal(error.message, `no database ${NAMES.join(' ')}`);
      return true;
    });
  });
});
