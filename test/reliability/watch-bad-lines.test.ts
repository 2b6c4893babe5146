/**
 * A watch answer's line that is not a watch event (a proxy's error page, a line cut short, JSON of
 * another kind) was skipped without a word, as client-node skips it: the event in it was lost
 * until the next list, and a proxy that answered every watch so left the wait to its deadline.
 * ctl now ends that watch at such a line and watches again from the last event it read, as
 * client-go does (src/kube/watch-line-errors.ts): the first is said once as a warning, and the
 * third watch in a row that ends so ends the wait (exit 1) naming the server and what the lines
 * were, quoting at most a short excerpt. Here a proxy in front of the simulated cluster answers
 * watches with a line that is not JSON: every watch (the wait ends), or the first only (the run
 * goes on and upgrades the cluster, with one warning).
 */

import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, test } from 'node:test';
import { startKubeProxy } from './kube-proxy.js';
import { checkUpgraded, figure, spawnOnBed, STACK_TRACE, startBed, UPGRADE } from './support.js';

const WATCH = /[?&]watch=(true|1)\b/;

/** A proxy's error page, as one line, longer than ctl quotes: its end must not be printed. */
const ERROR_PAGE = `<html><head><title>502 Bad Gateway</title></head><body>upstream reset; request id 4f1c</body></html>\n`;

function answerWithErrorPage(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(ERROR_PAGE);
}

describe('a watch line that is not a watch event', () => {
  test('on every watch: the third in a row ends the wait (exit 1) naming the server and the line, well before the deadline', async () => {
    // The new operator starts after the run's deadline: its wait has to watch.
    const bed = await startBed('happy-path', {
      timing: { operatorStart: 60, podRestart: 0.3, databaseUpgrade: 0.2 },
    });
    let watches = 0;
    const proxy = await startKubeProxy(bed, (req, res) => {
      if (req.method !== 'GET' || !WATCH.test(req.url ?? '')) return false;
      watches += 1;
      answerWithErrorPage(res);
      return true;
    });
    try {
      const started = Date.now();
      const result = await spawnOnBed(bed, [...UPGRADE, '--timeout', '30s'], {
        env: { KUBECONFIG: proxy.kubeconfig },
        timeoutMs: 120_000,
      }).result;
      const seconds = (Date.now() - started) / 1000;
      figure(`watch lines not JSON: ${watches} watches in ${seconds.toFixed(1)} s, exit ${result.code}`);
      assert.doesNotMatch(result.stderr, STACK_TRACE);
      assert.equal(result.code, 1, `exit ${result.code}: ${result.stderr.slice(-1500)}`);
      const line =
        'sent a line that is not JSON \\(100 bytes, starting "<html><head><title>502 Bad Gateway</titl…"\\)';
      assert.match(
        result.stderr,
        new RegExp(
          `error: watch /apis/apps/v1/namespaces/\\S+/deployments: the Kubernetes API server https://127\\.0\\.0\\.1:\\d+ ${line}; 3 watches in a row ended on such a line, so ctl stopped waiting`,
        ),
      );
      assert.match(
        result.stderr,
        /hint: A Kubernetes API server sends one JSON watch event a line: something between ctl and the API server answers oddly \(a proxy\?\)/,
      );
      // Said once as a warning at the first, then the error at the third: no line per watch.
      const warnings = result.stderr.match(/^warning: .*sent a line that is not JSON.*$/gm) ?? [];
      assert.equal(warnings.length, 1, result.stderr);
      assert.match(warnings[0]!, /ctl watches again from the last event it read/);
      // Only a short excerpt of what came from outside.
      assert.doesNotMatch(result.stderr, /upstream reset|request id/);
      assert.doesNotMatch(result.stderr, /took longer than its --timeout/);
      assert.equal(watches, 3, `${watches} watches in ${seconds.toFixed(1)} s`);
    } finally {
      await proxy.close();
      await bed.close();
    }
  });

  for (const output of ['text', 'json'] as const) {
    test(`on the first watch only: the run goes on and upgrades the cluster, with one warning (-o ${output})`, async () => {
      const bed = await startBed('happy-path', {
        timing: { operatorStart: 2, podRestart: 0.3, databaseUpgrade: 0.2 },
      });
      let watches = 0;
      const proxy = await startKubeProxy(bed, (req, res) => {
        if (req.method !== 'GET' || !WATCH.test(req.url ?? '')) return false;
        watches += 1;
        if (watches > 1) return false; // every later watch reaches the simulated cluster
        answerWithErrorPage(res);
        return true;
      });
      try {
        const result = await spawnOnBed(bed, [...UPGRADE, '-o', output], {
          env: { KUBECONFIG: proxy.kubeconfig },
          timeoutMs: 120_000,
        }).result;
        figure(`watch line not JSON once (-o ${output}): ${watches} watches, exit ${result.code}`);
        assert.doesNotMatch(result.stderr, STACK_TRACE);
        assert.equal(result.code, 0, `exit ${result.code}: ${result.stderr.slice(-1500)}`);
        assert.deepEqual(checkUpgraded(bed), []);
        assert.ok(watches > 1, `${watches} watches: the test did not reach a watch after the bad line`);
        const warning =
          /^watch \/apis\/apps\/v1\/namespaces\/\S+\/deployments: the Kubernetes API server https:\/\/127\.0\.0\.1:\d+ sent a line that is not JSON \(100 bytes, starting "<html><head><title>502 Bad Gateway<\/titl…"\); ctl watches again from the last event it read \(3 such watches in a row end the wait; shown once a step\)$/;
        // Shown once on stderr, with -o json too (its progress lines go there as in text).
        const shown = result.stderr.match(/^warning: .*not JSON.*$/gm) ?? [];
        assert.equal(shown.length, 1, result.stderr);
        assert.match(shown[0]!.replace(/^warning: \[operator\] /, ''), warning);
        if (output === 'json') {
          // CLI.md's NDJSON event: ts, type, step, message (data only when there is some).
          const events = result.stdout
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as Record<string, unknown>);
          const warnings = events.filter((e) => e.type === 'warning' && /not JSON/.test(String(e.message)));
          assert.equal(warnings.length, 1, result.stdout);
          assert.deepEqual(Object.keys(warnings[0]!).sort(), ['message', 'step', 'ts', 'type']);
          assert.equal(warnings[0]!.step, 'operator');
          assert.match(String(warnings[0]!.message), warning);
        }
        assert.doesNotMatch(`${result.stdout}${result.stderr}`, /upstream reset|request id/);
      } finally {
        await proxy.close();
        await bed.close();
      }
    });
  }
});
