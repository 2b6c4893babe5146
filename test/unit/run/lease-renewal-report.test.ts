/**
 * What a run says of its failed Lease renewals (src/run/lease-renewal-report.ts): the first of an
 * outage, a changed cause, the Lease gone unrenewed for its duration, and the renewal that works
 * again with the count; the same cause again is not said.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LeaseRenewalReport,
  pastRenewDeadline,
  RENEW_DEADLINE_FLOOR_MS,
} from '../../../src/run/lease-renewal-report.js';

const PLUGIN = "the kubeconfig's credential plugin /bin/login failed (exit 1): token expired";
const SILENT = 'the Kubernetes API server https://k:6443 gave no answer within 30 s (GET /apis/...)';

describe('run/lease-renewal-report', () => {
  it('a plugin that fails for 15 minutes, every 10 s: one line, then one when the Lease outlives its duration, then the recovery', () => {
    const t0 = 1_000_000;
    const report = new LeaseRenewalReport('ctl-upgrade-lock-rec', 30, 10_000, t0);
    const said: string[] = [];
    for (let tick = 1; tick <= 90; tick += 1) {
      const line = report.failed(PLUGIN, t0 + tick * 10_000);
      if (line !== undefined) said.push(line);
    }
    assert.equal(report.failures, 90);
    assert.deepEqual(said, [
      `could not renew the Lease ctl-upgrade-lock-rec: ${PLUGIN}; ctl tries again every 10 s and says so again only if the cause changes, or once it is renewed`,
      // The fourth failure, 40 s after the last renewal: past the 30 s duration.
      `the Lease ctl-upgrade-lock-rec has not been renewed for 40 s, longer than its duration (30 s): another run may take it over now (4 failures in a row: ${PLUGIN})`,
    ]);
    assert.equal(
      report.renewed(t0 + 910_000),
      'renewed the Lease ctl-upgrade-lock-rec again after 90 failed renewals',
    );
    assert.equal(report.failures, 0);
  });

  it('a renewal that works says nothing when none failed before it; one failure is one line and one recovery', () => {
    const report = new LeaseRenewalReport('l', 30, 10_000, 0);
    assert.equal(report.renewed(10_000), undefined);
    assert.match(
      report.failed(SILENT, 20_000) ?? '',
      /^could not renew the Lease l: the Kubernetes API server/,
    );
    assert.equal(report.renewed(30_000), 'renewed the Lease l again after 1 failed renewal');
    assert.equal(report.renewed(40_000), undefined);
  });

  it('a cause that changes is said, with the count; one already said goes unsaid again only while it stays', () => {
    const report = new LeaseRenewalReport('l', 30, 10_000, 0);
    assert.ok(report.failed(PLUGIN, 10_000));
    assert.equal(report.failed(PLUGIN, 11_000), undefined);
    assert.equal(
      report.failed(SILENT, 12_000),
      `could not renew the Lease l (3 failures in a row): ${SILENT}`,
    );
    assert.equal(report.failed(SILENT, 13_000), undefined);
    assert.equal(
      report.failed(PLUGIN, 14_000),
      `could not renew the Lease l (5 failures in a row): ${PLUGIN}`,
    );
  });

  it('a new outage after a recovery is said again from its first failure, the expiry too', () => {
    const report = new LeaseRenewalReport('l', 1, 333, 0);
    assert.match(
      report.failed(PLUGIN, 300) ?? '',
      /^could not renew the Lease l: .*; ctl tries again every 0\.3 s/,
    );
    assert.match(
      report.failed(PLUGIN, 1_500) ?? '',
      /has not been renewed for 1\.5 s, longer than its duration \(1 s\)/,
    );
    assert.equal(report.failed(PLUGIN, 2_000), undefined);
    assert.equal(report.renewed(2_300), 'renewed the Lease l again after 3 failed renewals');
    assert.match(report.failed(PLUGIN, 2_600) ?? '', /^could not renew the Lease l: /);
    assert.match(report.failed(PLUGIN, 3_400) ?? '', /has not been renewed for 1\.1 s/);
  });
});

describe('run/lease-renewal-report: a renewal still under way at the next ticks', () => {
  const PENDING =
    /the renewal sent \d+ s ago has no answer yet \(the kubeconfig's credential plugin or the API server is slow\)/;

  it('says nothing one tick on; two ticks on, it counts as failed and is said once; the expiry on time; the cause it ends with is said as a change', () => {
    const report = new LeaseRenewalReport('l', 30, 10_000, 0);
    // Sent at 10 s (the first tick), never answered until 65 s.
    assert.equal(report.pending(10_000, 20_000, 1), undefined);
    assert.equal(report.failures, 0, 'one tick under way is not a failure');
    assert.equal(
      report.pending(10_000, 30_000, 2),
      "could not renew the Lease l: the renewal sent 20 s ago has no answer yet (the kubeconfig's credential plugin or the API server is slow); ctl stopped it and sends another every 10 s, and says so again only if the cause changes, or once it is renewed",
    );
    const expired = report.pending(10_000, 40_000, 3) ?? '';
    assert.match(
      expired,
      /^the Lease l has not been renewed for 40 s, longer than its duration \(30 s\): another run may take it over now \(2 failures in a row: the renewal sent 30 s ago/,
    );
    assert.equal(report.pending(10_000, 50_000, 4), undefined);
    assert.equal(report.pending(10_000, 60_000, 5), undefined);
    assert.equal(
      report.failed(PLUGIN, 65_000),
      `could not renew the Lease l (5 failures in a row): ${PLUGIN}`,
    );
    // The next renewal hangs too: its cause is the one said; nothing new until the recovery.
    assert.equal(report.pending(70_000, 80_000, 1), undefined);
    assert.equal(report.pending(70_000, 90_000, 2), undefined);
    assert.equal(report.failed(PLUGIN, 130_000), undefined);
    assert.equal(report.renewed(140_000), 'renewed the Lease l again after 7 failed renewals');
  });

  it('in an outage already said, a tick with the renewal one tick under way still says the expiry when it is due', () => {
    const report = new LeaseRenewalReport('l', 30, 10_000, 0);
    assert.ok(report.failed(PLUGIN, 10_000));
    assert.equal(report.failed(PLUGIN, 20_000), undefined);
    assert.equal(report.failed(PLUGIN, 30_000), undefined);
    assert.match(
      report.pending(30_000, 40_000, 1) ?? '',
      new RegExp(
        `has not been renewed for 40 s, longer than its duration \\(30 s\\): another run may take it over now \\(3 failures in a row: ${PLUGIN.replace(/[()]/g, '\\$&')}\\)$`,
      ),
    );
    assert.equal(report.failures, 3);
  });

  it('a slow renewal that works two ticks on: one line, then the recovery', () => {
    const report = new LeaseRenewalReport('l', 30, 10_000, 0);
    assert.equal(report.pending(10_000, 20_000, 1), undefined);
    assert.match(report.pending(10_000, 30_000, 2) ?? '', PENDING);
    assert.equal(report.renewed(31_000), 'renewed the Lease l again after 1 failed renewal');
    assert.equal(report.pending(40_000, 50_000, 1), undefined);
    assert.equal(report.failures, 0);
  });

  it('a short Lease: two ticks are not enough, a renewal is judged no sooner than 10 s after it was sent', () => {
    assert.equal(RENEW_DEADLINE_FLOOR_MS, 10_000);
    const report = new LeaseRenewalReport('l', 1, 333, 0);
    // Late by the machine's load (a second or two), not stuck: nothing counted, nothing said.
    assert.equal(report.pending(333, 999, 2), undefined);
    assert.equal(report.pending(333, 1_665, 4), undefined);
    assert.equal(report.failures, 0);
    assert.match(
      report.pending(333, 10_333, 30) ?? '',
      /^could not renew the Lease l: the renewal sent 10 s ago has no answer yet/,
    );
    assert.equal(report.failures, 1);
  });

  it('a renewal stopped past its deadline: the tick that sends the next says the expiry when due, once, with the count in the singular', () => {
    const report = new LeaseRenewalReport('l', 30, 10_000, 0);
    assert.equal(pastRenewDeadline(10_000, 20_000, 1), false);
    assert.equal(pastRenewDeadline(10_000, 30_000, 2), true);
    assert.equal(report.overdue(25_000), undefined, 'nothing failed yet');
    assert.match(
      report.pending(10_000, 30_000, 2) ?? '',
      /^could not renew the Lease l: .*; ctl stopped it and sends another every 10 s,/,
    );
    assert.equal(report.overdue(30_000), undefined, 'unrenewed for 30 s: not longer than its duration');
    assert.equal(
      report.overdue(40_000),
      "the Lease l has not been renewed for 40 s, longer than its duration (30 s): another run may take it over now (1 failure in a row: the renewal sent 20 s ago has no answer yet (the kubeconfig's credential plugin or the API server is slow))",
    );
    assert.equal(report.overdue(50_000), undefined, 'said once an outage');
    assert.equal(report.renewed(55_000), 'renewed the Lease l again after 1 failed renewal');
    assert.equal(report.overdue(100_000), undefined, 'no outage: nothing to say');
  });
});
