/**
 * Bounded inputs: a watch stream was split into lines by client-node (readline), which holds a
 * line until it ends. A Kubernetes API, or a proxy before it, that answers a watch with bytes and
 * never a line break grew ctl's memory until it crashed. Here a proxy in front of the simulated
 * cluster passes every request through but answers each watch that way: the run's first wait
 * (the operator Deployment) meets it: ctl crashed (`RangeError: Invalid string length`, a
 * stack trace, 680 MiB). Then the kept agent cut the request past MAX_WATCH_LINE_BYTES, which
 * client-node took for an ordinary end: the watch started again at once and the wait ended at the
 * run's deadline (exit 6) without a word of why. ctl's own watch stream (src/kube/bounded-watch.ts)
 * stops reading a line past the bound and ends that watch as a failure, retried with the backoff;
 * the third in a row ends the wait well before its deadline (exit 1) with a message naming the
 * server and the bound, its memory bounded all along.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_WATCH_LINE_BYTES } from '../../src/kube/watch-line-bound.js';
import { pumpForever } from '../helpers/endless-body.js';
import { startKubeProxy } from './kube-proxy.js';
import { figure, resultAndPeakMemory, spawnOnBed, STACK_TRACE, startBed, UPGRADE } from './support.js';

const MIB = 1024 * 1024;

describe('a watch stream without a line break', () => {
  test(`the wait ends before its deadline naming the bound; ctl reads at most ${MAX_WATCH_LINE_BYTES / MIB} MiB of a line`, async () => {
    // The new operator starts after the run's deadline, so the wait for it has to watch, not
    // only list: every watch it starts meets the endless line. Three in a row (each cut at
    // 16 MiB within a second, then the backoff: 0.4-0.8 s, 0.8-1.6 s) end it well within the
    // run's --timeout of 30 s (which would be exit 6); before, the run ended there.
    const bed = await startBed('happy-path', {
      timing: { operatorStart: 60, podRestart: 0.3, databaseUpgrade: 0.2 },
    });
    const sent: number[] = [];
    const proxy = await startKubeProxy(bed, (req, res) => {
      if (req.method !== 'GET' || !/[?&]watch=(true|1)\b/.test(req.url ?? '')) return false;
      const watch = sent.push(0) - 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      pumpForever(res, Buffer.alloc(MIB, 0x61), (bytes) => {
        sent[watch]! += bytes;
      });
      return true;
    });
    try {
      const run = spawnOnBed(bed, [...UPGRADE, '--timeout', '30s'], {
        env: { KUBECONFIG: proxy.kubeconfig },
        timeoutMs: 120_000,
      });
      const started = Date.now();
      const { result, peak } = await resultAndPeakMemory(run);
      const seconds = (Date.now() - started) / 1000;
      const endless = sent.length;
      const most = Math.max(0, ...sent);
      figure(
        `watch without a line break: ${endless} endless watches in ${seconds.toFixed(1)} s, at most ${Math.round(most / MIB)} MiB sent to one, exit ${result.code}, peak memory ${Math.round(peak / MIB)} MiB`,
      );
      assert.ok(endless > 0, 'a watch met the endless line');
      assert.doesNotMatch(result.stderr, STACK_TRACE);
      // The wait ends before the run's deadline (exit 6), failed (exit 1), naming the server
      // (the proxy) and the bound, with what to look at.
      assert.equal(result.code, 1, `exit ${result.code}: ${result.stderr.slice(-1500)}`);
      assert.match(
        result.stderr,
        /error: watch \/apis\/apps\/v1\/namespaces\/\S+\/deployments: the Kubernetes API server https:\/\/127\.0\.0\.1:\d+ sent an event line longer than 16 MiB, the most ctl reads of one watch event; ctl stopped reading it/,
      );
      assert.match(result.stderr, /hint: .*something between ctl and the API server answers oddly/);
      assert.doesNotMatch(result.stderr, /took longer than its --timeout/);
      // Three watches in a row met it, each after its backoff: not a loop.
      assert.equal(endless, 3, `${endless} endless watches in ${seconds.toFixed(1)} s`);
      // What one watch was sent: the bound, and what the sockets held when ctl stopped reading.
      assert.ok(most < 40 * MIB, `${Math.round(most / MIB)} MiB were sent to one watch`);
      assert.ok(peak > 0, 'the memory of ctl was read');
      assert.ok(peak < 400 * MIB, `ctl held ${Math.round(peak / MIB)} MiB at its peak`);
    } finally {
      await proxy.close();
      await bed.close();
    }
  });
});
