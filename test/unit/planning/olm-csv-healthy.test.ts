import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runChecks } from '../../../src/planning/checks/index.js';
import type { OlmFailedCsv, OlmSnapshot } from '../../../src/planning/olm.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

const csv = (bundle: string) => `redis-enterprise-operator.v${bundle}`;

/** An OperatorHub install on 7.4.6-2 whose namespace holds these failed CSVs (undefined: not listed). */
function olmWith(failedCsvs: OlmFailedCsv[] | undefined): (s: Snapshot) => void {
  const olm: OlmSnapshot = {
    csv: csv('7.4.6-2'),
    subscription: {
      name: 'redis-enterprise-operator-cert',
      package: 'redis-enterprise-operator-cert',
      channel: '7.8.6',
      approval: 'Manual',
      installedCSV: csv('7.8.6-20'),
      currentCSV: csv('7.8.6-20'),
      state: 'AtLatestKnown',
    },
    installPlans: [{ name: 'install-abc12', csvs: [csv('7.8.6-20')], approved: true, phase: 'Complete' }],
    channels: [{ name: '7.8.6', currentCSV: csv('7.8.6-20'), entries: [csv('7.8.6-20')] }],
    failedCsvs,
  };
  return (s) => {
    s.platform = 'openshift';
    s.olm = olm;
  };
}

function check(snapshot: Snapshot) {
  const found = runChecks(snapshot, makeTarget({ to: '7.8.6-20' }), { required: REQUIRED_PERMISSIONS }).find(
    (c) => c.id === 'olm-csv-healthy',
  );
  assert.ok(found);
  return found;
}

describe('olm-csv-healthy', () => {
  it('a CSV Failed with InvalidInstallStrategy fails the plan, naming it, the reason and the way out', () => {
    const result = check(
      makeSnapshot(
        olmWith([
          { name: csv('7.8.6-20'), reason: 'InvalidInstallStrategy', message: 'install strategy invalid: x' },
        ]),
      ),
    );
    assert.equal(result.status, 'fail');
    assert.match(
      result.message,
      /redis-enterprise-operator\.v7\.8\.6-20 \(InvalidInstallStrategy: install strategy invalid: x\)/,
    );
    // OLM re-checks a Failed CSV on each sync: what stays is the cause, until a person fixes it.
    assert.match(result.message, /the install does not get past InvalidInstallStrategy by itself: /);
    assert.match(result.message, /fails it the same way until its cause is fixed/);
    assert.doesNotMatch(result.message, /does not retry/);
    assert.match(result.fix, /Fix that cause, and OLM retries the install/);
    assert.match(result.fix, /oc describe csv redis-enterprise-operator\.v7\.8\.6-20 -n redis/);
    assert.match(result.fix, /oc delete csv redis-enterprise-operator\.v7\.8\.6-20 -n redis/);
    assert.match(result.fix, /keeps running from redis-enterprise-operator\.v7\.4\.6-2/);
  });

  it('a CSV Failed on a reason OLM retries only warns', () => {
    const result = check(
      makeSnapshot(
        olmWith([{ name: csv('7.8.6-20'), reason: 'InstallCheckFailed', message: 'install timeout' }]),
      ),
    );
    assert.equal(result.status, 'warn');
    assert.match(result.message, /a reason OLM retries/);
  });

  it('no failed CSV passes; CSVs that could not be listed warn', () => {
    assert.equal(check(makeSnapshot(olmWith([]))).status, 'pass');
    const unread = check(makeSnapshot(olmWith(undefined)));
    assert.equal(unread.status, 'warn');
    assert.match(unread.fix, /oc get csv -n redis/);
  });

  it('passes when OLM does not own the operator', () => {
    assert.equal(check(makeSnapshot()).status, 'pass');
  });
});
