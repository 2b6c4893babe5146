import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import {
  checkStateBelongsHere,
  finishedRunOfAnotherCluster,
  type RunIdentity,
  withIdentity,
} from '../../../src/run/cluster-identity.js';
import { newState } from '../../../src/run/state.js';

const names = { context: 'kubernetes-admin@kubernetes', namespace: 'redis', cluster: 'rec' };
const fqdn = 'rec.redis.svc.cluster.local';
const steps = ['preflight', 'operator'];

function stateOf(identity: RunIdentity) {
  return newState(identity, { operator: '7.8.2-6' }, steps);
}

function check(recorded: RunIdentity, here: RunIdentity): void {
  checkStateBelongsHere(stateOf(recorded), here, '/state/rec.json', { byContext: true });
}

describe('the management cluster in the state lineage', () => {
  const x = {
    ...names,
    recUid: 'uid-x',
    managementCluster: { name: fqdn, createdTime: '2026-01-02T03:04:05Z' },
  };

  it('records the name and creation time the API gave, and nothing when it gave none', () => {
    assert.deepEqual(stateOf(x).lineage.managementCluster, x.managementCluster);
    assert.equal(stateOf({ ...names, managementCluster: {} }).lineage.managementCluster, undefined);
    assert.deepEqual(stateOf({ ...names, managementCluster: { name: fqdn } }).lineage.managementCluster, {
      name: fqdn,
    });
  });

  it('refuses another creation time behind the same REC uid and names, with exit 2 and a hint', () => {
    const here = { ...x, managementCluster: { name: fqdn, createdTime: '2026-03-04T05:06:07Z' } };
    assert.throws(
      () => check(x, here),
      (error: unknown) =>
        error instanceof UsageError &&
        error.exitCode === 2 &&
        /another Redis Enterprise cluster: its management API reported creation time 2026-01-02T03:04:05Z, the management API reached now reports 2026-03-04T05:06:07Z/.test(
          error.message,
        ) &&
        /--api-url \(or CTL_API_URL\)/.test(error.hint ?? ''),
    );
  });

  it('refuses another cluster name', () => {
    const here = { ...x, managementCluster: { name: 'rec.other.svc.cluster.local' } };
    assert.throws(() => check(x, here), /reported cluster name rec.redis.svc.cluster.local/);
  });

  it('decides nothing on a field one side lacks: an API without created_time, or no answer at all', () => {
    check(x, { ...x, managementCluster: { name: fqdn } });
    check(x, { ...x, managementCluster: undefined });
    check({ ...names, recUid: 'uid-x' }, x);
  });

  it('records the identity once known, keeping what was recorded', () => {
    const old = stateOf({ ...names });
    const adopted = withIdentity(old, x);
    assert.equal(adopted.lineage.recUid, 'uid-x');
    assert.deepEqual(adopted.lineage.managementCluster, x.managementCluster);
    const partial = withIdentity(adopted, { ...x, managementCluster: { name: fqdn } });
    assert.deepEqual(partial.lineage.managementCluster, x.managementCluster, 'the creation time is kept');
    assert.equal(withIdentity(adopted, x), adopted, 'unchanged: the same object');
  });

  it('a finished run of another cluster with the same names is named, to be replaced; anything else is not', () => {
    const options = { byContext: true };
    const finished = { ...stateOf(x), result: 'succeeded' as const };
    const other = { ...x, recUid: 'uid-y' };
    assert.match(
      finishedRunOfAnotherCluster(finished, other, '/state/rec.json', options) ?? '',
      /records an upgrade of another cluster with the same names: .* had uid uid-x, the cluster resource here has uid uid-y/,
    );
    // This cluster's own finished run; another cluster's unfinished one (refused, to be resumed
    // there); a state under other names (a wrong --state): none is replaced.
    assert.equal(finishedRunOfAnotherCluster(finished, x, '/state/rec.json', options), undefined);
    assert.equal(finishedRunOfAnotherCluster(stateOf(x), other, '/state/rec.json', options), undefined);
    assert.equal(
      finishedRunOfAnotherCluster(finished, { ...other, cluster: 'rec2' }, '/state/rec.json', options),
      undefined,
    );
  });
});
