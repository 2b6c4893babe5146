/**
 * A credential plugin slower than a watch's establish deadline. The 40 s deadline for the API
 * server's connect and response (src/kube/deadlines.ts) started before the plugin ran, so a
 * plugin that took longer (a sign-in; its own limit is 60 s, src/kube/exec-plugin.ts) was
 * counted as the server's silence: `the Kubernetes API server ... gave no answer within 30 s`,
 * the third such in a row exit 1. Now that deadline starts when the request is sent, and the
 * plugin's own limit bounds the wait for it, with an error that names the plugin.
 *
 * The real limits are used (the built ctl has no shorter ones): the plugin hangs once, at the
 * run's first watch after the proxy ends it at once; ctl stops it at 60 s and says so as a step
 * warning, then watches again and the run upgrades the cluster: about 65 s. The same with
 * shortened deadlines is in test/unit/kube/watch-setup.test.ts.
 */

import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { kubeconfigWithPlugin, startKubeProxy } from './kube-proxy.js';
import { checkUpgraded, figure, spawnOnBed, STACK_TRACE, startBed, UPGRADE } from './support.js';
import { EXEC_PLUGIN_LIMITS } from '../../src/kube/exec-plugin.js';

const WATCH = /[?&]watch=(true|1)\b/;

describe('a watch whose credential plugin is slower than the establish deadline', () => {
  test('the plugin hangs once: stopped at its own 60 s, named in one warning; no word of the API server; the run upgrades the cluster', async () => {
    const bed = await startBed('happy-path', {
      timing: { operatorStart: 2, podRestart: 0.3, databaseUpgrade: 0.2 },
    });
    const hang = path.join(bed.dir, 'plugin-hang');
    const hung = path.join(bed.dir, 'plugin-hung');
    let ended = false;
    // The first watch ends at once, and the plugin's next run (the watch again) hangs.
    const proxy = await startKubeProxy(bed, (req, res) => {
      if (ended || req.method !== 'GET' || !WATCH.test(req.url ?? '')) return false;
      ended = true;
      writeFileSync(hang, '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end();
      return true;
    });
    try {
      const kubeconfig = kubeconfigWithPlugin(bed.dir, proxy, [
        // exec: the SIGKILL at ctl's limit ends the sleep itself, nothing is left behind.
        `if [ -e '${hang}' ]; then rm -f '${hang}'; echo hung > '${hung}'; exec sleep 90; fi`,
      ]);

      const started = Date.now();
      const result = await spawnOnBed(bed, [...UPGRADE, '--lease-duration', '1h'], {
        env: { KUBECONFIG: kubeconfig },
        // A hang guard: the plugin's 60 s, then the rest of the run.
        timeoutMs: 180_000,
      }).result;
      const seconds = (Date.now() - started) / 1000;
      figure(`watch, plugin hanging once: exit ${result.code} in ${seconds.toFixed(1)} s`);
      assert.ok(ended && existsSync(hung), `the plugin never hung: ${result.stderr.slice(-1500)}`);
      assert.doesNotMatch(result.stderr, STACK_TRACE);
      assert.equal(result.code, 0, `exit ${result.code}: ${result.stderr.slice(-1500)}`);
      assert.deepEqual(checkUpgraded(bed), []);
      // The slow part named: the plugin, at its own limit; never the API server's silence.
      assert.doesNotMatch(result.stderr, /gave no answer within|could not be reached within/);
      const warnings = result.stderr.match(/^warning: .*could not send it.*$/gm) ?? [];
      assert.equal(warnings.length, 1, result.stderr);
      assert.match(
        warnings[0]!,
        new RegExp(
          `^warning: \\[operator\\] watch \\S+: ctl could not send it to the Kubernetes API server https://127\\.0\\.0\\.1:\\d+: the kubeconfig's credential plugin \\S+/plugin gave no credential within ${EXEC_PLUGIN_LIMITS.deadlineMs / 1000} s; ctl stopped it; ctl tries again`,
        ),
      );
      assert.ok(seconds >= EXEC_PLUGIN_LIMITS.deadlineMs / 1000, `ended after ${seconds.toFixed(1)} s`);
    } finally {
      await proxy.close();
      await bed.close();
    }
  });
});
