/**
 * Bounded reads: the operator's log. The monitor step reads it at every look for a frozen upgrade
 * (the operator says why only there). It was read whole since the step began, from every pod the
 * operator Deployment's selector matches (any pod with those labels), up to 128 MiB a pod (the
 * limit of one Kubernetes answer), held and parsed at each look. Here a proxy in front of the
 * simulated cluster passes every request through but answers each pods/log read with operator
 * lines that never end (a log that grows faster than ctl reads it, or a server or proxy that
 * ignores the query): ctl asks for the last lines and at most 8 MiB of them (tailLines,
 * limitBytes), stops reading past that, and still finds the freeze through the management API.
 *
 * Every read gets the endless body, so the log never says why the upgrade froze: ctl finds the
 * freeze only once the rollout has stood still for the grace (src/steps/monitor-timing.ts, a
 * third of --stall-timeout) and it asks the management API. Under the default 10m that is 60 s
 * of waiting at a look every 5 s (13 reads); --stall-timeout 45s makes it 15 s at a look every
 * 4.5 s: the same path (several bounded reads, the warning, the grace, the API), four or so reads,
 * and 27 s to spare before the stall limit would end the run with exit 6 on a busy machine.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OPERATOR_LOG_LIMITS } from '../../src/kube/operator-log.js';
import { pumpForever } from '../helpers/endless-body.js';
import { startKubeProxy } from './kube-proxy.js';
import { figure, resultAndPeakMemory, spawnOnBed, STACK_TRACE, startBed, TARGET } from './support.js';

const MIB = 1024 * 1024;

/** 1 MiB of the operator's own kind of line: zap JSON, an error about another cluster. */
function logChunk(): Buffer {
  const line = `${JSON.stringify({
    level: 'error',
    ts: 1573829086.31,
    logger: 'controller_redisenterprisecluster',
    msg: 'Reconciler error',
    'Request.Namespace': 'redis',
    'Request.Name': 'another-cluster',
    error: 'x'.repeat(200),
  })}\n`;
  return Buffer.from(line.repeat(Math.ceil(MIB / line.length)));
}

describe("the operator's log", () => {
  test('one look reads at most its limit of each pod, whatever the server sends', async () => {
    const bed = await startBed('module-without-rhel9');
    const chunk = logChunk();
    const reads: { query: URLSearchParams; bytes: number }[] = [];
    const proxy = await startKubeProxy(bed, (req, res) => {
      const url = new URL(req.url ?? '/', 'http://proxy');
      if (req.method !== 'GET' || !/\/pods\/[^/]+\/log$/.test(url.pathname)) return false;
      const read = { query: url.searchParams, bytes: 0 };
      reads.push(read);
      res.writeHead(200, { 'content-type': 'text/plain' });
      pumpForever(res, chunk, (bytes) => {
        read.bytes += bytes;
      });
      return true;
    });
    try {
      const run = spawnOnBed(
        bed,
        [
          'upgrade',
          'run',
          '--to',
          TARGET,
          '--yes',
          '--ignore-check',
          'modules-compatible',
          '--stall-timeout',
          '45s',
        ],
        { env: { KUBECONFIG: proxy.kubeconfig }, timeoutMs: 180_000 },
      );
      const { result, peak } = await resultAndPeakMemory(run);
      const most = Math.max(0, ...reads.map((read) => read.bytes));
      figure(
        `endless operator log: ${reads.length} reads, at most ${Math.round(most / MIB)} MiB sent to one, exit ${result.code}, peak memory ${Math.round(peak / MIB)} MiB`,
      );
      assert.doesNotMatch(result.stderr, STACK_TRACE);
      // The freeze is still found, through the management API.
      assert.equal(result.code, 1, `exit ${result.code}: ${result.stderr.slice(-1500)}`);
      assert.match(result.stderr, /the cluster upgrade is frozen/);
      assert.match(
        result.stderr,
        /cannot read the operator's log \(.*larger than 8 MiB, the limit for one look at a pod's log\)/,
      );
      // More than one look, each bounded: the bound holds look after look, not only at the first.
      assert.ok(reads.length > 1, `the run read the operator log ${reads.length} times`);
      for (const { query } of reads) {
        assert.equal(query.get('tailLines'), String(OPERATOR_LOG_LIMITS.tailLines));
        assert.equal(query.get('limitBytes'), String(OPERATOR_LOG_LIMITS.bytes));
      }
      // What one read took: its limit, and what the sockets held when ctl stopped reading.
      // It was 128 MiB (the limit of any Kubernetes answer) before.
      assert.ok(most < 40 * MIB, `${Math.round(most / MIB)} MiB were sent to one read before ctl stopped it`);
      // 710 MiB before, 145 MiB after on the machine this was written on.
      assert.ok(peak > 0, 'the memory of ctl was read');
      assert.ok(peak < 400 * MIB, `ctl held ${Math.round(peak / MIB)} MiB at its peak`);
    } finally {
      await proxy.close();
      await bed.close();
    }
  });
});
