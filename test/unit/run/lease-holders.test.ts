/**
 * What `--state-store configmap` says of a Lease another holds (src/run/state-store-configmap.ts),
 * against a fake API (test/unit/steps/fakes.ts): the command a hint gives works as given. A holder
 * on another host is judged by its renewals alone, so `ctl upgrade unlock` refuses it without
 * --force until it expires: the hint says --force, where it runs, and names the cluster (a run
 * with the file store takes this Lease too but writes no state ConfigMap, by which unlock would
 * otherwise find the cluster). A holder of this host is alive: the hint keeps its plain unlock,
 * which works once it is gone. A Lease with no holder holds no lock: taken over, said as such,
 * and neither shown as a lock nor described as pid 0 on "unknown". The built ctl pastes these
 * hints in test/e2e/hint-target.test.ts and test/e2e/state-store.test.ts.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExitCode, LockedError } from '../../../src/errors.js';
import { resourcePath } from '../../../src/kube/rest.js';
import type { LockOwner } from '../../../src/run/lock.js';
import { currentProcess } from '../../../src/run/process-identity.js';
import { ConfigMapStateStore, lockLeaseName } from '../../../src/run/state-store-configmap.js';
import { FakeCluster } from '../steps/fakes.js';

const NAMESPACE = 'redis';
const CLUSTER = 'rec';
const LEASE = lockLeaseName(CLUSTER);
const T0 = Date.parse('2026-11-30T12:00:00Z');

/** A Lease renewed at T0, held by `owner` (in ctl's annotation and its holderIdentity), or by nobody. */
function putLease(cluster: FakeCluster, owner: LockOwner | undefined): void {
  cluster.put({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: LEASE,
      namespace: NAMESPACE,
      ...(owner ? { annotations: { 'ctl/lock-owner': JSON.stringify(owner) } } : {}),
    },
    spec: {
      ...(owner ? { holderIdentity: `${owner.id}/${owner.pid}/${owner.host}` } : { holderIdentity: '' }),
      leaseDurationSeconds: 30,
      acquireTime: '2026-11-30T12:00:00.000000Z',
      renewTime: '2026-11-30T12:00:00.000000Z',
    },
  });
}

function store(cluster: FakeCluster, warnings: string[] = []): ConfigMapStateStore {
  return new ConfigMapStateStore({
    kube: cluster.clients(),
    namespace: NAMESPACE,
    cluster: CLUSTER,
    warn: (message) => warnings.push(message),
    // 5 s after the last renewal: the Lease is live.
    now: () => T0 + 5_000,
    schedule: () => () => {},
  });
}

function lease(cluster: FakeCluster): { spec?: { holderIdentity?: string } } | undefined {
  return cluster.findByPath(resourcePath('coordination.k8s.io', 'v1', 'leases', NAMESPACE), LEASE) as
    { spec?: { holderIdentity?: string } } | undefined;
}

const elsewhere: LockOwner = {
  id: 'job-7f3c',
  pid: 1,
  host: 'runner-elsewhere',
  user: 'ci',
  operation: 'upgrade run',
  createdAt: '2026-11-30T11:59:00.000Z',
};

describe('run/state-store-configmap: the hints about a Lease another holds', () => {
  it('a holder on another host: the run and unlock both say --force, where it runs, and the cluster', async () => {
    const cluster = new FakeCluster();
    putLease(cluster, elsewhere);
    await assert.rejects(store(cluster).lock('upgrade run'), (error: unknown) => {
      assert.ok(error instanceof LockedError);
      assert.equal(error.exitCode, ExitCode.locked);
      assert.match(error.message, /^another upgrade of this cluster is running: pid 1 on runner-elsewhere /);
      assert.equal(
        error.hint,
        'Wait for it to finish: if it is gone, its Lease expires 30 s after its last renewal and the next run takes it over. ctl cannot tell from here whether it still runs (it was started on host runner-elsewhere); to remove the lock sooner, once you are sure it is not running there, run: ctl upgrade unlock --state-store configmap -n redis --cluster rec --lock-id job-7f3c --force',
      );
      return true;
    });
    // The refusal that hint spares: unlock without --force, while the Lease is renewed.
    await assert.rejects(store(cluster).forceUnlock({ id: 'job-7f3c' }), (error: unknown) => {
      assert.ok(error instanceof LockedError);
      assert.equal(
        error.hint,
        'ctl cannot tell from here whether it still runs (it was started on host runner-elsewhere): if it does, stop it there first (Ctrl-C saves its state and releases the Lease); if it is gone, its Lease expires 30 s after its last renewal and the next run takes it over. Pass --force only once you are sure it is not running.',
      );
      return true;
    });
    assert.ok(lease(cluster), 'the refused unlock left the Lease');
    assert.equal((await store(cluster).forceUnlock({ id: 'job-7f3c', force: true }))?.id, 'job-7f3c');
    assert.equal(lease(cluster), undefined);
  });

  it('a holder of this host and PID namespace, alive: the plain unlock, which works once it is gone', async () => {
    const cluster = new FakeCluster();
    const here: LockOwner = {
      id: 'here-run',
      ...currentProcess(),
      operation: 'upgrade run',
      createdAt: '2026-11-30T11:59:00.000Z',
    };
    putLease(cluster, here);
    await assert.rejects(store(cluster).lock('upgrade run'), (error: unknown) => {
      assert.ok(error instanceof LockedError);
      assert.equal(
        error.hint,
        'Wait for it to finish; its lease expires 30 s after its last renewal if it is gone. If it is gone for good, run: ctl upgrade unlock --state-store configmap -n redis --cluster rec --lock-id here-run',
      );
      return true;
    });
    await assert.rejects(store(cluster).forceUnlock({ id: 'here-run' }), (error: unknown) => {
      assert.ok(error instanceof LockedError);
      assert.equal(
        error.hint,
        'Stop that run first (Ctrl-C saves its state and releases the Lease). Pass --force only once you are sure it is not running.',
      );
      return true;
    });
  });

  it('a Lease with no holder: no lock to show, taken over and said so, removed by unlock whatever --lock-id', async () => {
    const cluster = new FakeCluster();
    putLease(cluster, undefined);
    assert.equal(await store(cluster).readLock(), undefined, 'status shows no lock');
    assert.equal(await store(cluster).forceUnlock({ id: 'any-id' }), undefined, 'no lock was held');
    assert.equal(lease(cluster), undefined, 'the holderless Lease is removed');

    putLease(cluster, undefined);
    const warnings: string[] = [];
    const held = await store(cluster, warnings).lock('upgrade run');
    assert.deepEqual(warnings, [`took over the Lease redis/${LEASE}: a Lease with no holder`]);
    assert.match(lease(cluster)?.spec?.holderIdentity ?? '', new RegExp(`^${held.owner.id}/`));
    await held.release();
    assert.equal(lease(cluster), undefined);
  });
});
