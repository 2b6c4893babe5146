/**
 * A request's wait for its credential (src/kube/request.ts builtWithin) ends on the request's
 * signal at once, as its HTTP part does: Ctrl-C or SIGTERM while the kubeconfig's exec plugin or
 * auth provider hangs no longer waits out the 70 s credential deadline. The error is the one an
 * aborted request in flight has (Node's AbortError, the signal's reason as its cause), never a
 * request not built: ctl stopped it, the credential did not fail.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type * as k8s from '@kubernetes/client-node';
import { loadKubeConfig } from '../../../src/kube/client.js';
import { kubeRequest, requestNotBuilt } from '../../../src/kube/request.js';
import { kubeconfigForLocalServer } from '../../helpers/local-kube.js';

/** A kubeconfig whose credential never comes (a plugin waiting for a sign-in nobody gives). */
function hangingCredential(): { config: k8s.KubeConfig; asked: () => number } {
  let asked = 0;
  const config = {
    getCurrentCluster: () => ({ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: false }),
    applyToFetchOptions: () => {
      asked += 1;
      return new Promise<never>(() => undefined);
    },
  };
  return { config: config as unknown as k8s.KubeConfig, asked: () => asked };
}

interface AbortShape {
  name: string;
  code: unknown;
  message: string;
  cause: unknown;
}

function shape(error: unknown): AbortShape {
  const e = error as Error & { code?: unknown };
  return { name: e.name, code: e.code, message: e.message, cause: e.cause };
}

describe('a request aborted while its credential hangs', () => {
  let server: Server;
  let dir: string;
  let kubeconfig: string;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-kube-cred-abort-'));
    // An API server that never answers: the request in flight ends only by its signal.
    server = createServer(() => undefined);
    kubeconfig = await kubeconfigForLocalServer(server, dir);
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('rejects as aborted within moments of the signal, with the error of an aborted request in flight', async () => {
    // The error today's path gives: the same request, sent, its signal aborted with SIGINT.
    const { config: real } = await loadKubeConfig({ kubeconfig, env: {} });
    const inFlight = new AbortController();
    const sent = kubeRequest(real, { method: 'GET', path: '/api/v1/namespaces', signal: inFlight.signal });
    setTimeout(() => inFlight.abort('SIGINT'), 20);
    const expected = await sent.then(
      () => assert.fail('the request in flight was not aborted'),
      (error: unknown) => error,
    );
    assert.deepEqual(shape(expected), {
      name: 'AbortError',
      code: 'ABORT_ERR',
      message: 'The operation was aborted',
      cause: 'SIGINT',
    });

    const { config, asked } = hangingCredential();
    const controller = new AbortController();
    const started = performance.now();
    const waiting = kubeRequest(config, {
      method: 'GET',
      path: '/api/v1/namespaces',
      signal: controller.signal,
    });
    setTimeout(() => controller.abort('SIGINT'), 20);
    const error = await waiting.then(
      () => assert.fail('a credential that never came gave a request'),
      (e: unknown) => e,
    );
    const elapsed = performance.now() - started;
    assert.equal(asked(), 1, 'the credential was asked for');
    assert.deepEqual(shape(error), shape(expected));
    assert.equal(requestNotBuilt(error), false, 'counted as the credential failing');
    // Before: the 70 s credential deadline. A slow shared machine still answers well within 5 s.
    assert.ok(elapsed < 5_000, `rejected ${Math.round(elapsed)} ms after it started`);
  });

  it("carries SIGTERM as the signal's reason, as a request in flight does", async () => {
    const { config } = hangingCredential();
    const controller = new AbortController();
    const waiting = kubeRequest(config, {
      method: 'GET',
      path: '/api/v1/namespaces',
      signal: controller.signal,
    });
    setTimeout(() => controller.abort('SIGTERM'), 5);
    await assert.rejects(waiting, (error: unknown) => {
      assert.equal(shape(error).code, 'ABORT_ERR');
      assert.equal(shape(error).cause, 'SIGTERM');
      return true;
    });
  });

  it('asks for no credential when the signal has aborted already', async () => {
    const { config, asked } = hangingCredential();
    await assert.rejects(
      kubeRequest(config, { method: 'GET', path: '/api/v1/namespaces', signal: AbortSignal.abort('SIGINT') }),
      (error: unknown) => {
        assert.deepEqual(shape(error), {
          name: 'AbortError',
          code: 'ABORT_ERR',
          message: 'The operation was aborted',
          cause: 'SIGINT',
        });
        return true;
      },
    );
    assert.equal(asked(), 0, 'a credential plugin was started for an aborted request');
  });
});
