/**
 * A watch whose request cannot be built: the kubeconfig's exec credential plugin works for the
 * snapshot's reads and the run's first requests, then fails (a sign-in that expired mid-run).
 * The wait retried it without a word until its deadline: exit 6 after --stall-timeout (10
 * minutes by default), naming the object awaited, not the cause. Now the first failure is a
 * warning, and the third in a row ends the wait (exit 1) naming the plugin and what it said,
 * its secret redacted (src/kube/watch-setup-errors.ts); a plugin that fails once and then works
 * again leaves the run to finish.
 *
 * The plugin counts its runs in the bed's folder; a proxy in front of the simulated cluster
 * writes, at the first watch, how many worked (N), and ends that watch at once, so that the next
 * run of the plugin is the one that opens the watch again. The Lease is set to last an hour:
 * renewed every 20 minutes, it takes none of the plugin's runs during the test.
 */

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { kubeconfigWithPlugin, type KubeProxy, startKubeProxy } from './kube-proxy.js';
import { type Bed, checkUpgraded, figure, spawnOnBed, STACK_TRACE, startBed, UPGRADE } from './support.js';

const WATCH = /[?&]watch=(true|1)\b/;
const CLIENT_SECRET = 'PluginClientS3cret-7d41';
const FAILURE = 'sign-in refused: the refresh token expired';

interface PluginBed {
  bed: Bed;
  proxy: KubeProxy;
  kubeconfig: string;
  /** The token the plugin hands over (the bed's). */
  token: string;
  /** How many runs of the plugin there were, and how many worked before the first watch. */
  runs(): { all: number; beforeWatch: number | undefined };
}

/**
 * A bed behind a proxy, and a kubeconfig whose user runs a plugin that works for its first N
 * runs (N: the runs before the first watch) and fails after: every run (`always`) or the next one
 * only (`once`).
 */
async function startPluginBed(
  timing: { operatorStart: number; podRestart: number; databaseUpgrade: number },
  fails: 'always' | 'once',
): Promise<PluginBed> {
  const bed = await startBed('happy-path', { timing });
  const calls = path.join(bed.dir, 'plugin-calls');
  const limit = path.join(bed.dir, 'plugin-limit');
  writeFileSync(calls, '');
  const count = (): number => readFileSync(calls, 'utf8').split('\n').filter(Boolean).length;
  let beforeWatch: number | undefined;
  const proxy = await startKubeProxy(bed, (req, res) => {
    if (beforeWatch !== undefined || req.method !== 'GET' || !WATCH.test(req.url ?? '')) return false;
    // This watch's credential came from the plugin's last run: every run after it fails.
    beforeWatch = count();
    writeFileSync(limit, String(beforeWatch));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end();
    return true;
  });
  const fail = fails === 'always' ? '[ "$n" -gt "$limit" ]' : '[ "$n" -eq $((limit + 1)) ]';
  const kubeconfig = kubeconfigWithPlugin(
    bed.dir,
    proxy,
    [
      `echo run >> '${calls}'`,
      `n=$(wc -l < '${calls}')`,
      `limit=$(cat '${limit}' 2>/dev/null || echo 1000000)`,
      // What a sign-in helper that is refused often prints: the settings it was given.
      `if ${fail}; then echo "${FAILURE} (client secret $CLIENT_SECRET)" >&2; exit 1; fi`,
    ],
    [{ name: 'CLIENT_SECRET', value: CLIENT_SECRET }],
  );
  return { bed, proxy, kubeconfig, token: proxy.token, runs: () => ({ all: count(), beforeWatch }) };
}

/** Nothing secret in what ctl printed: not the plugin's setting, not the token it handed over. */
function assertNoSecret(printed: string, token: string): void {
  assert.ok(!printed.includes(CLIENT_SECRET), 'the client secret was printed');
  assert.ok(token.length > 8 && !printed.includes(token), 'the token was printed');
}

describe('a watch whose request cannot be built (the exec credential plugin fails)', () => {
  test('from the first watch on: the third in a row ends the wait (exit 1) naming the plugin, well before the deadline', async () => {
    // The new operator starts a minute after it is applied: its wait has to watch.
    const { bed, proxy, kubeconfig, token, runs } = await startPluginBed(
      { operatorStart: 60, podRestart: 0.3, databaseUpgrade: 0.2 },
      'always',
    );
    try {
      const started = Date.now();
      // The defaults: --stall-timeout 10m, --timeout 60m.
      const result = await spawnOnBed(bed, [...UPGRADE, '--lease-duration', '1h'], {
        env: { KUBECONFIG: kubeconfig },
        timeoutMs: 120_000,
      }).result;
      const seconds = (Date.now() - started) / 1000;
      const { all, beforeWatch } = runs();
      figure(
        `watch setup fails (plugin): exit ${result.code} in ${seconds.toFixed(1)} s, plugin runs ${all} (${beforeWatch} before the first watch)`,
      );
      assert.doesNotMatch(result.stderr, STACK_TRACE);
      assert.equal(result.code, 1, `exit ${result.code}: ${result.stderr.slice(-1500)}`);
      assert.ok(beforeWatch !== undefined, `no watch reached the API server: ${result.stderr.slice(-1500)}`);
      const cause = `the kubeconfig's credential plugin \\S+/plugin failed \\(exit 1\\): ${FAILURE} \\(client secret \\[REDACTED\\]\\)`;
      assert.match(
        result.stderr,
        new RegExp(
          `^error: watch /apis/apps/v1/namespaces/\\S+/deployments: ctl could not send it to the Kubernetes API server https://127\\.0\\.0\\.1:\\d+, 3 times in a row, so ctl stopped waiting: ${cause}$`,
          'm',
        ),
      );
      assert.match(
        result.stderr,
        /^hint: Run the same command as the kubeconfig \(kubectl --kubeconfig \S+kubeconfig-plugin get namespaces runs it too\) and fix what it reports/m,
      );
      // Said once as a warning at the first, then the error at the third.
      const warnings = result.stderr.match(/^warning: .*ctl could not send it.*$/gm) ?? [];
      assert.equal(warnings.length, 1, result.stderr);
      assert.match(
        warnings[0]!,
        new RegExp(`^warning: \\[operator\\] watch \\S+: .*: ${cause}; ctl tries again`),
      );
      assert.doesNotMatch(result.stderr, /made no progress|timed out after/);
      // The first watch, then (at least) three runs of the plugin for it that failed.
      assert.ok(all >= beforeWatch + 3, `${all} plugin runs, ${beforeWatch} before the first watch`);
      // The wait's deadline is 10 minutes away; the machine may be slow, not that slow.
      assert.ok(seconds < 90, `ended after ${seconds.toFixed(1)} s`);
      assertNoSecret(`${result.stdout}\n${result.stderr}`, token);
    } finally {
      await proxy.close();
      await bed.close();
    }
  });

  test('once: the watch is opened again after the backoff and the run upgrades the cluster, with one warning (-o json)', async () => {
    const { bed, proxy, kubeconfig, token, runs } = await startPluginBed(
      { operatorStart: 2, podRestart: 0.3, databaseUpgrade: 0.2 },
      'once',
    );
    try {
      const result = await spawnOnBed(bed, [...UPGRADE, '--lease-duration', '1h', '-o', 'json'], {
        env: { KUBECONFIG: kubeconfig },
        timeoutMs: 120_000,
      }).result;
      const { all, beforeWatch } = runs();
      figure(
        `watch setup fails once (plugin): exit ${result.code}, plugin runs ${all} (${beforeWatch} before the first watch)`,
      );
      assert.doesNotMatch(result.stderr, STACK_TRACE);
      assert.equal(result.code, 0, `exit ${result.code}: ${result.stderr.slice(-1500)}`);
      assert.deepEqual(checkUpgraded(bed), []);
      assert.ok(
        beforeWatch !== undefined && all > beforeWatch + 1,
        `${all} plugin runs, ${beforeWatch} before the first watch`,
      );
      // CLI.md's NDJSON warning event (ts, type, step, message), shown on stderr too.
      const events = result.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const warnings = events.filter(
        (e) => e.type === 'warning' && /could not send it/.test(String(e.message)),
      );
      assert.equal(warnings.length, 1, result.stdout);
      assert.deepEqual(Object.keys(warnings[0]!).sort(), ['message', 'step', 'ts', 'type']);
      assert.equal(warnings[0]!.step, 'operator');
      assert.match(
        String(warnings[0]!.message),
        new RegExp(
          `^watch /apis/apps/v1/namespaces/\\S+/deployments: ctl could not send it to the Kubernetes API server https://127\\.0\\.0\\.1:\\d+: the kubeconfig's credential plugin \\S+/plugin failed \\(exit 1\\): ${FAILURE} \\(client secret \\[REDACTED\\]\\); ctl tries again after a pause \\(3 such failures in a row end the wait; shown once a step\\)$`,
        ),
      );
      assert.equal(
        (result.stderr.match(/^warning: .*could not send it.*$/gm) ?? []).length,
        1,
        result.stderr,
      );
      assertNoSecret(`${result.stdout}\n${result.stderr}`, token);
    } finally {
      await proxy.close();
      await bed.close();
    }
  });
});
