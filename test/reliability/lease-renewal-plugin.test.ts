/**
 * The run's Lease renewals while the kubeconfig's exec credential plugin fails for a while (a
 * sign-in service that is down for a moment): each renewal printed `could not renew the Lease
 * ...`, every third of --lease-duration (10 s by default), the same line for as long as it
 * lasted. Now the first is said, then the Lease outliving its duration once, then the renewal
 * that works again with how many failed (src/run/lease-renewal-report.ts).
 *
 * --lease-duration 1s renews every 0.33 s. A proxy in front of the simulated cluster starts the
 * plugin's outage at the run's first watch: that watch has its credential and stays open (the
 * operator starts 6 s after it is applied), so the outage falls on the renewals. It lasts
 * OUTAGE_MS, less than the 1.2 s a wait's three requests in a row that cannot be built take at
 * the least (backoff 0.4 s, then 0.8 s), so any other request it meets is retried and the run
 * goes on; and at least until the plugin has failed twice (a busy machine's renewals are slow).
 */

import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { kubeconfigWithPlugin, startKubeProxy } from './kube-proxy.js';
import { checkUpgraded, figure, spawnOnBed, STACK_TRACE, startBed, UPGRADE } from './support.js';

const WATCH = /[?&]watch=(true|1)\b/;
const OUTAGE_MS = 1100;
const FAILURE = 'sign-in service unavailable';

describe("the Lease's renewals while the credential plugin fails for a while", () => {
  test('one warning, then the recovery with the count, not one line every renewal; the run upgrades the cluster', async () => {
    const bed = await startBed('happy-path', {
      timing: { operatorStart: 6, podRestart: 0.3, databaseUpgrade: 0.2 },
    });
    const failing = path.join(bed.dir, 'plugin-failing');
    const failures = path.join(bed.dir, 'plugin-failures');
    writeFileSync(failures, '');
    let outage: NodeJS.Timeout | undefined;
    const proxy = await startKubeProxy(bed, (req) => {
      if (outage === undefined && req.method === 'GET' && WATCH.test(req.url ?? '')) {
        writeFileSync(failing, '');
        // Over after OUTAGE_MS once the plugin has failed twice: a renewal under way is no longer
        // joined by queued ones (one at a time), so on a busy machine a slow renewal could take
        // most of the outage and leave a single failure, nothing for the report to fold.
        const end = (): void => {
          if (readFileSync(failures, 'utf8').split('\n').filter(Boolean).length >= 2)
            rmSync(failing, { force: true });
          else outage = setTimeout(end, 50);
        };
        outage = setTimeout(end, OUTAGE_MS);
      }
      return false;
    });
    try {
      const kubeconfig = kubeconfigWithPlugin(bed.dir, proxy, [
        `if [ -e '${failing}' ]; then echo failed >> '${failures}'; echo "${FAILURE}" >&2; exit 1; fi`,
      ]);

      const result = await spawnOnBed(bed, [...UPGRADE, '--lease-duration', '1s'], {
        env: { KUBECONFIG: kubeconfig },
        timeoutMs: 120_000,
      }).result;
      const failed = readFileSync(failures, 'utf8').split('\n').filter(Boolean).length;
      const notRenewed = result.stderr.match(/^warning: could not renew the Lease .*$/gm) ?? [];
      const recovered = /^warning: renewed the Lease \S+ again after (\d+) failed renewals$/m.exec(
        result.stderr,
      );
      figure(
        `lease renewal, plugin failing ${OUTAGE_MS} ms: exit ${result.code}, plugin failures ${failed}, renewals failed ${recovered?.[1] ?? '?'}, "could not renew" lines ${notRenewed.length}`,
      );
      assert.ok(outage !== undefined, `no watch reached the API server: ${result.stderr.slice(-1500)}`);
      assert.ok(!existsSync(failing), 'the outage did not end');
      assert.doesNotMatch(result.stderr, STACK_TRACE);
      assert.equal(result.code, 0, `exit ${result.code}: ${result.stderr.slice(-1500)}`);
      assert.deepEqual(checkUpgraded(bed), []);
      // Renewals failed again and again (every 0.33 s), and were said once, then on recovery.
      assert.ok(recovered, result.stderr);
      const renewalsFailed = Number(recovered[1]);
      assert.ok(
        renewalsFailed >= 2 && renewalsFailed <= failed,
        `${renewalsFailed} failed renewals, ${failed} plugin failures`,
      );
      assert.equal(notRenewed.length, 1, result.stderr);
      // The plugin's failure itself, whether the renewal's read or its update met it first (the
      // read's error comes wrapped: as a cause, the same; CI once printed both as two causes).
      assert.match(
        notRenewed[0]!,
        new RegExp(
          `^warning: could not renew the Lease ctl-upgrade-lock-\\S+: the kubeconfig's credential plugin \\S+/plugin failed \\(exit 1\\): ${FAILURE}; ctl tries again every 0\\.3 s and says so again only if the cause changes, or once it is renewed$`,
        ),
      );
      // At most one more line of the outage: the Lease outliving its 1 s, if the outage did.
      const outageLines = result.stderr.match(/^warning: .*the Lease ctl-upgrade-lock-.*$/gm) ?? [];
      assert.ok(outageLines.length <= 3, outageLines.join('\n'));
      for (const line of outageLines.filter((l) => /has not been renewed/.test(l)))
        assert.match(
          line,
          /longer than its duration \(1 s\): another run may take it over now \(\d+ failures in a row: /,
        );
    } finally {
      clearTimeout(outage);
      await proxy.close();
      await bed.close();
    }
  });
});
