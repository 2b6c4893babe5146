/**
 * What a run says of its failed Lease renewals (src/run/lease-renewal-report.ts): the first of an
 * outage, a changed cause, the Lease gone unrenewed for its duration, and the renewal that works
 * again with the count; the same cause again is not said.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LeaseRenewalReport } from '../../../src/run/lease-renewal-report.js';

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
