/**
 * Bounded request rate: a watch that ends in 410 Gone ("too old resource version") is answered
 * by listing again and watching from the new list. An API server, or a proxy before it, that
 * ends EVERY watch so had ctl list and watch in a loop without a pause until the wait's deadline:
 * a few hundred requests a second at the cluster. Here a proxy in front of the simulated cluster
 * passes every request through but answers each watch as the API server answers one from an
 * expired resourceVersion (200, one ERROR event with a 410 Status, end). The run's first wait
 * (the operator Deployment, which starts after the deadline) meets it; ctl now backs off from
 * the second 410 in a row as after a failure (client-go's reflector does the same), and the
 * wait still ends at its deadline (exit 6).
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startKubeProxy } from './kube-proxy.js';
import { figure, spawnOnBed, STACK_TRACE, startBed, UPGRADE } from './support.js';

const GONE = {
  type: 'ERROR',
  object: {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'too old resource version: 1 (2)',
    reason: 'Expired',
    code: 410,
  },
};

describe('every watch ends in 410 Gone', () => {
  test('ctl lists and watches again with a backoff, not in a loop; the wait ends at its deadline', async () => {
    const bed = await startBed('happy-path', {
      timing: { operatorStart: 60, podRestart: 0.3, databaseUpgrade: 0.2 },
    });
    let watches = 0;
    const proxy = await startKubeProxy(bed, (req, res) => {
      if (req.method !== 'GET' || !/[?&]watch=(true|1)\b/.test(req.url ?? '')) return false;
      watches += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`${JSON.stringify(GONE)}\n`);
      return true;
    });
    try {
      const started = Date.now();
      const result = await spawnOnBed(bed, [...UPGRADE, '--timeout', '10s'], {
        env: { KUBECONFIG: proxy.kubeconfig },
        timeoutMs: 120_000,
      }).result;
      const seconds = (Date.now() - started) / 1000;
      figure(
        `every watch 410 Gone: ${watches} watches in ${seconds.toFixed(1)} s (${(watches / seconds).toFixed(1)}/s), exit ${result.code}`,
      );
      assert.doesNotMatch(result.stderr, STACK_TRACE);
      assert.equal(result.code, 6, `exit ${result.code}: ${result.stderr.slice(-1500)}`);
      assert.ok(watches > 1, `the proxy met ${watches} watches: the test did not reach the loop`);
      // With the backoff (0.4-0.8 s, then doubling to 30 s) a wait of 10 s starts about 6; a
      // few waits side by side stay well under 5 a second. Without it: hundreds a second.
      assert.ok(watches / seconds < 5, `${watches} watches in ${seconds.toFixed(1)} s`);
    } finally {
      await proxy.close();
      await bed.close();
    }
  });
});
