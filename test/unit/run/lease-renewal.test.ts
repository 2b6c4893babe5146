/**
 * The renewals of the Lease that `--state-store configmap` holds (src/run/state-store-configmap.ts)
 * against a fake API (test/unit/steps/fakes.ts), each renewal started and awaited by the test
 * (the store's `schedule` seam): what a run says when they fail. The pure report has its own
 * test (lease-renewal-report.test.ts); this one drives the store, where a failed read of the Lease
 * comes wrapped (#kubeFailure) and a failed update does not, and the same outage must still read
 * as one cause. The built ctl meets the same outage in
 * test/reliability/lease-renewal-plugin.test.ts, where which request fails first is timing.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LockedError, OperationError } from '../../../src/errors.js';
import { resourcePath } from '../../../src/kube/rest.js';
import { describeOwner, type LockOwner } from '../../../src/run/lock.js';
import { ConfigMapStateStore, lockLeaseName } from '../../../src/run/state-store-configmap.js';
import type { UpgradeState } from '../../../src/run/state.js';
import { FakeCluster } from '../steps/fakes.js';

const CLUSTER = 'rec';
const NAMESPACE = 'redis';
const LEASE = lockLeaseName(CLUSTER);
const LEASE_PATH = resourcePath('coordination.k8s.io', 'v1', 'leases', NAMESPACE, LEASE);
const T0 = Date.parse('2026-11-30T12:00:00Z');
const PLUGIN =
  "the kubeconfig's credential plugin /usr/local/bin/sign-in failed (exit 1): sign-in service unavailable";
const SERVER = 'the server is currently unable to handle the request';

/** What the request layer throws when the exec credential plugin fails (src/kube/exec-plugin.ts). */
function pluginFailure(): OperationError {
  return new OperationError(PLUGIN, {
    hint: 'Run the same command as the kubeconfig and fix what it reports.',
  });
}

/** An API Status answer, as src/kube/request.ts throws it (`code`, the Status as `body`). */
function unavailable(): Error {
  return Object.assign(new Error('HTTP 503'), {
    code: 503,
    body: JSON.stringify({ kind: 'Status', reason: 'ServiceUnavailable', message: SERVER }),
  });
}

interface Held {
  cluster: FakeCluster;
  store: ConfigMapStateStore;
  warnings: string[];
  release(): Promise<void>;
  /** One renewal, a period after the last, awaited to its end. */
  renew(): Promise<void>;
  /** Whether the store stopped its renewals. */
  stopped(): boolean;
  lease(): { holderIdentity?: string; renewTime?: string } | undefined;
}

async function hold(): Promise<Held> {
  const cluster = new FakeCluster();
  const warnings: string[] = [];
  let now = T0;
  let tick: (() => Promise<void>) | undefined;
  let period = 0;
  let stopped = false;
  const store = new ConfigMapStateStore({
    kube: cluster.clients(),
    namespace: NAMESPACE,
    cluster: CLUSTER,
    warn: (message) => warnings.push(message),
    now: () => now,
    schedule: (periodMs, renew) => {
      period = periodMs;
      tick = renew;
      return () => {
        stopped = true;
      };
    },
  });
  const lock = await store.lock('upgrade run');
  // The default lease (30 s) is renewed every 10 s.
  assert.equal(period, 10_000);
  return {
    cluster,
    store,
    warnings,
    release: () => lock.release(),
    renew: async () => {
      assert.ok(tick, 'the store started no renewals');
      now += period;
      await tick();
    },
    stopped: () => stopped,
    lease: () =>
      (
        cluster.findByPath(resourcePath('coordination.k8s.io', 'v1', 'leases', NAMESPACE), LEASE) as
          { spec?: { holderIdentity?: string; renewTime?: string } } | undefined
      )?.spec,
  };
}

describe('run/state-store-configmap: the Lease renewals', () => {
  it("the credential plugin fails the renewal's read, then its update: one cause, one warning; the recovery gives the count", async () => {
    const held = await hold();
    const renewedAtLock = held.lease()?.renewTime;
    held.cluster.failingRequests.set(`GET ${LEASE_PATH}`, pluginFailure());
    await held.renew();
    // The read fails: its error comes wrapped as "cannot read leases... : <the plugin's>".
    assert.deepEqual(held.warnings, [
      `could not renew the Lease ${LEASE}: ${PLUGIN}; ctl tries again every 10 s and says so again only if the cause changes, or once it is renewed`,
    ]);
    held.cluster.failingRequests.delete(`GET ${LEASE_PATH}`);
    held.cluster.failingRequests.set(`PUT ${LEASE_PATH}`, pluginFailure());
    await held.renew();
    // The read works, the update meets the same outage unwrapped: the same cause, nothing said.
    assert.equal(held.warnings.length, 1, held.warnings.join('\n'));
    assert.equal(held.lease()?.renewTime, renewedAtLock);
    held.cluster.failingRequests.set(`GET ${LEASE_PATH}`, pluginFailure());
    await held.renew();
    assert.equal(held.warnings.length, 1, held.warnings.join('\n'));

    held.cluster.failingRequests.clear();
    await held.renew();
    assert.deepEqual(held.warnings.slice(1), [`renewed the Lease ${LEASE} again after 3 failed renewals`]);
    // Renewed at the time of that renewal (T0 + 4 periods), in the API's MicroTime form.
    assert.equal(held.lease()?.renewTime, '2026-11-30T12:00:40.000000Z');
    await held.renew();
    assert.equal(held.warnings.length, 2, 'a renewal after a renewal says nothing');
    assert.equal(held.store.lostTo(), undefined);
    await held.release();
    assert.equal(held.lease(), undefined, 'release deletes the Lease');
    assert.ok(held.stopped());
  });

  it('a change of cause is said a second time, with the count; the new cause again, read or update, is not', async () => {
    const held = await hold();
    held.cluster.failingRequests.set(`GET ${LEASE_PATH}`, pluginFailure());
    await held.renew();
    held.cluster.failingRequests.clear();
    held.cluster.failingRequests.set(`PUT ${LEASE_PATH}`, unavailable());
    await held.renew();
    assert.equal(held.warnings.length, 2, held.warnings.join('\n'));
    assert.equal(held.warnings[1], `could not renew the Lease ${LEASE} (2 failures in a row): ${SERVER}`);
    held.cluster.failingRequests.clear();
    held.cluster.failingRequests.set(`GET ${LEASE_PATH}`, unavailable());
    await held.renew();
    assert.equal(held.warnings.length, 2, held.warnings.join('\n'));
    held.cluster.failingRequests.clear();
    await held.renew();
    assert.deepEqual(held.warnings.slice(2), [`renewed the Lease ${LEASE} again after 3 failed renewals`]);
    await held.release();
  });

  it('a Lease another run took over: said once, renewals stop, no state write follows, release leaves its Lease', async () => {
    const held = await hold();
    const other: LockOwner = {
      id: 'other-run',
      pid: 4242,
      host: 'ci-runner-7',
      user: 'ci',
      operation: 'upgrade run',
      createdAt: '2026-11-30T12:00:50.000Z',
    };
    // The other run finds the Lease unrenewed for longer than its 30 s and takes it over.
    const taker = new ConfigMapStateStore({
      kube: held.cluster.clients(),
      namespace: NAMESPACE,
      cluster: CLUSTER,
      now: () => T0 + 50_000,
      schedule: () => () => {},
    });
    await taker.lock('upgrade run', other);
    assert.equal(held.lease()?.holderIdentity, 'other-run/4242/ci-runner-7');
    await held.renew();
    const lost = `this run lost the upgrade lock to ${describeOwner(other)}`;
    assert.deepEqual(held.warnings, [lost]);
    assert.equal(held.store.lostTo(), describeOwner(other));
    assert.ok(held.stopped(), 'the renewals stop');
    const writes = held.cluster.writes().length;
    await held.renew();
    assert.deepEqual(held.warnings, [lost], 'a tick after it says and does nothing');
    assert.equal(held.cluster.writes().length, writes);
    await assert.rejects(held.store.save({ serial: 0 } as UpgradeState), (error: unknown) => {
      assert.ok(error instanceof LockedError, String(error));
      assert.match(error.message, /lost the cluster's upgrade lock .* to pid 4242 on ci-runner-7/);
      return true;
    });
    await held.release();
    assert.equal(held.lease()?.holderIdentity, 'other-run/4242/ci-runner-7', "the other run's Lease stays");
  });
});
