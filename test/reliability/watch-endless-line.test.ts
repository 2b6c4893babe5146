/**
 * Bounded inputs: a watch stream is split into lines by client-node (readline), which holds a
 * line until it ends. A Kubernetes API, or a proxy before it, that answers a watch with bytes and
 * never a line break grew ctl's memory until it crashed. Here a proxy in front of the simulated
 * cluster passes every request through but answers each watch that way: the run's first wait
 * (the operator Deployment) meets it: ctl crashed (`RangeError: Invalid string length`, a
 * stack trace, 680 MiB). It now stops reading a watch line past MAX_WATCH_LINE_BYTES, and the
 * wait ends at its deadline (exit 6) with its memory bounded.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_WATCH_LINE_BYTES } from '../../src/kube/agent.js';
import { pumpForever } from '../helpers/endless-body.js';
import { startKubeProxy } from './kube-proxy.js';
import { figure, resultAndPeakMemory, spawnOnBed, STACK_TRACE, startBed, UPGRADE } from './support.js';

const MIB = 1024 * 1024;

describe('a watch stream without a line break', () => {
  test(`the wait ends at its deadline; ctl reads at most ${MAX_WATCH_LINE_BYTES / MIB} MiB of a line`, async () => {
    // The new operator starts after the run's deadline, so the wait for it has to watch, not
    // only list, until that deadline: the run ends there (exit 6) having met the endless line on
    // every watch it started. The deadline only bounds how long the watches are met; 10 s leaves
    // a loaded machine several of them (each is cut at 16 MiB within a second).
    const bed = await startBed('happy-path', {
      timing: { operatorStart: 60, podRestart: 0.3, databaseUpgrade: 0.2 },
    });
    let endless = 0;
    const proxy = await startKubeProxy(bed, (req, res) => {
      if (req.method !== 'GET' || !/[?&]watch=(true|1)\b/.test(req.url ?? '')) return false;
      endless += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      pumpForever(res, Buffer.alloc(MIB, 0x61));
      return true;
    });
    try {
      const run = spawnOnBed(bed, [...UPGRADE, '--timeout', '10s'], {
        env: { KUBECONFIG: proxy.kubeconfig },
        timeoutMs: 120_000,
      });
      const { result, peak } = await resultAndPeakMemory(run);
      figure(
        `watch without a line break: ${endless} endless watches, exit ${result.code}, peak memory ${Math.round(peak / MIB)} MiB`,
      );
      assert.ok(endless > 0, 'a watch met the endless line');
      assert.doesNotMatch(result.stderr, STACK_TRACE);
      // Each watch that is stopped starts again (and meets the same answer) until the wait's
      // deadline: the operator is not ready before it, so the run ends there, with exit 6.
      assert.equal(result.code, 6, `exit ${result.code}: ${result.stderr.slice(-1500)}`);
      assert.ok(peak > 0, 'the memory of ctl was read');
      assert.ok(peak < 400 * MIB, `ctl held ${Math.round(peak / MIB)} MiB at its peak`);
    } finally {
      await proxy.close();
      await bed.close();
    }
  });
});
