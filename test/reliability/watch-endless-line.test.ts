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
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { MAX_WATCH_LINE_BYTES } from '../../src/kube/agent.js';
import { pumpForever } from '../helpers/endless-body.js';
import { figure, spawnOnBed, STACK_TRACE, startBed, UPGRADE } from './support.js';

const MIB = 1024 * 1024;

interface Kubeconfig {
  clusters: { cluster: Record<string, unknown> }[];
}

/** The highest resident memory of `pid` so far (VmHWM), in bytes; 0 once it is gone. */
function peakMemory(pid: number): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

describe('a watch stream without a line break', () => {
  test(`the wait ends at its deadline; ctl reads at most ${MAX_WATCH_LINE_BYTES / MIB} MiB of a line`, async () => {
    // The operator takes its time to start, so the wait for it has to watch, not only list.
    const bed = await startBed('happy-path', {
      timing: { operatorStart: 8, podRestart: 0.3, databaseUpgrade: 0.2 },
    });
    const kubeconfig = parse(readFileSync(bed.env.KUBECONFIG!, 'utf8')) as Kubeconfig;
    const cluster = kubeconfig.clusters[0]!.cluster;
    const upstream = new URL(String(cluster.server));
    const ca = Buffer.from(String(cluster['certificate-authority-data']), 'base64');
    let endless = 0;
    const proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (req.method === 'GET' && /[?&]watch=(true|1)\b/.test(req.url ?? '')) {
        endless += 1;
        res.writeHead(200, { 'content-type': 'application/json' });
        pumpForever(res, Buffer.alloc(MIB, 0x61));
        return;
      }
      const forward = httpsRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, host: upstream.host },
          ca,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const address = proxy.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      delete cluster['certificate-authority-data'];
      cluster.server = `http://127.0.0.1:${port}`;
      cluster['insecure-skip-tls-verify'] = true;
      const proxied = path.join(bed.dir, 'kubeconfig-proxied');
      writeFileSync(proxied, stringify(kubeconfig), { mode: 0o600 });

      const run = spawnOnBed(bed, [...UPGRADE, '--timeout', '20s'], {
        env: { KUBECONFIG: proxied },
        timeoutMs: 120_000,
      });
      let peak = 0;
      let running = true;
      void run.result.then(() => {
        running = false;
      });
      while (running) {
        peak = Math.max(peak, peakMemory(run.pid));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const result = await run.result;
      figure(
        `watch without a line break: ${endless} endless watches, exit ${result.code}, peak memory ${Math.round(peak / MIB)} MiB`,
      );
      assert.ok(endless > 0, 'a watch met the endless line');
      assert.doesNotMatch(result.stderr, STACK_TRACE);
      // Each watch that is stopped starts again (and meets the same answer) until the wait's
      // deadline; should the change come in the list it starts from, the run finishes instead.
      assert.ok([0, 6].includes(result.code ?? -1), `exit ${result.code}: ${result.stderr.slice(-1500)}`);
      assert.ok(peak > 0, 'the memory of ctl was read');
      assert.ok(peak < 400 * MIB, `ctl held ${Math.round(peak / MIB)} MiB at its peak`);
    } finally {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await bed.close();
    }
  });
});
