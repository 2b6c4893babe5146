/**
 * The renewals of the Lease that `--state-store configmap` holds (src/run/state-store-configmap.ts)
 * against a fake API (test/unit/steps/fakes.ts), each renewal started and awaited by the test
 * (the store's `schedule` seam): what a run says when they fail. The pure report has its own
 * test (lease-renewal-report.test.ts); this one drives the store, where a failed read of the Lease
 * comes wrapped (#kubeFailure) and a failed update does not, and the same outage must still read
 * as one cause; and while a renewal's request hangs (the kubeconfig's credential plugin, up to
 * its 60 s), where one queued renewal per tick used to wait for the same plugin, then all ran back
 * to back, and the Lease outliving its duration was said only when a renewal ended; one past its
 * deadline is now stopped through its request's signal (the fake ends a held request as
 * kubeRequest ends its credential wait). A Lease deleted under the run is the lock lost, not a
 * failed renewal; the release stops the renewal under way and is bounded. The built ctl meets the
 * plugin's outage in test/reliability/lease-renewal-plugin.test.ts, where which request fails
 * first is timing, and the deleted Lease in test/e2e/upgrade-lock.test.ts.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExitCode, LockedError, OperationError } from '../../../src/errors.js';
import { resourcePath } from '../../../src/kube/rest.js';
import { LEASE_DELETED } from '../../../src/run/cluster-lease-lock.js';
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

/** The event loop's pending promise callbacks run (the fake's answers, the store's awaits). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Held {
  cluster: FakeCluster;
  store: ConfigMapStateStore;
  warnings: string[];
  release(): Promise<void>;
  /** One renewal, a period after the last, awaited to its end. */
  renew(): Promise<void>;
  /** A period on the clock and its tick, not awaited (its renewal may hang); the fake's answers run. */
  tick(): Promise<void>;
  /** The clock moves on by `ms`. */
  advance(ms: number): void;
  /** How many requests `METHOD` of the Lease's path the fake has had. */
  requestsOf(method: 'GET' | 'PUT'): number;
  /** Whether the store stopped its renewals. */
  stopped(): boolean;
  lease(): { holderIdentity?: string; renewTime?: string } | undefined;
}

async function hold(options: { releaseDeadlineMs?: number } = {}): Promise<Held> {
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
    ...options,
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
    tick: async () => {
      now += period;
      void tick?.();
      await settle();
    },
    advance: (ms) => {
      now += ms;
    },
    requestsOf: (method) =>
      cluster.requests.filter((request) => request === `${method} ${LEASE_PATH}`).length,
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

describe('run/state-store-configmap: the Lease renewal while its request hangs', () => {
  const HUNG = "the kubeconfig's credential plugin /bin/login gave no credential within 60 s; ctl stopped it";

  it('starts no renewal while one is under way; two ticks on it is said once and stopped, the next tick sends another and says the expiry on time; a later cause when it ends; then one renewal a tick', async () => {
    const held = await hold();
    const before = held.requestsOf('GET');
    held.cluster.hold(`GET ${LEASE_PATH}`);
    await held.tick(); // 10 s: the renewal is sent; its read hangs
    assert.equal(held.requestsOf('GET'), before + 1);
    await held.tick(); // 20 s: under way one tick: nothing started, nothing said
    assert.equal(held.requestsOf('GET'), before + 1, 'a second renewal was started beside the first');
    assert.deepEqual(held.warnings, []);
    assert.deepEqual(held.cluster.aborted, []);
    await held.tick(); // 30 s: two ticks on, counted as failed and said, and its request aborted
    assert.deepEqual(held.warnings, [
      `could not renew the Lease ${LEASE}: the renewal sent 20 s ago has no answer yet (the kubeconfig's credential plugin or the API server is slow); ctl stopped it and sends another every 10 s, and says so again only if the cause changes, or once it is renewed`,
    ]);
    assert.deepEqual(
      held.cluster.aborted,
      [`GET ${LEASE_PATH}`],
      'the renewal judged failed was not aborted',
    );
    // The plugin still hangs: the next renewal's read hangs too.
    const release = held.cluster.hold(`GET ${LEASE_PATH}`);
    await held.tick(); // 40 s: another is sent; unrenewed for longer than the Lease's 30 s, said now
    assert.equal(held.requestsOf('GET'), before + 2);
    assert.equal(held.warnings.length, 2);
    assert.match(
      held.warnings[1]!,
      /^the Lease ctl-upgrade-lock-rec has not been renewed for 40 s, longer than its duration \(30 s\): another run may take it over now \(1 failure in a row: the renewal sent 20 s ago has no answer yet/,
    );
    await held.tick(); // 50 s: under way one tick
    assert.equal(held.requestsOf('GET'), before + 2);
    assert.equal(held.warnings.length, 2);

    // The plugin's limit ends this read before its deadline: its cause is said, as a change, and
    // no queued renewal runs after it.
    held.advance(5_000);
    release(new OperationError(HUNG));
    await settle();
    assert.equal(held.requestsOf('GET'), before + 2, 'renewals queued behind the hanging one ran');
    assert.deepEqual(held.warnings.slice(2), [
      `could not renew the Lease ${LEASE} (2 failures in a row): ${HUNG}`,
    ]);
    assert.equal(held.cluster.aborted.length, 1);
    await held.tick(); // 65 s: the next renewal, which works
    assert.equal(held.requestsOf('GET'), before + 3);
    assert.equal(held.requestsOf('PUT'), 1);
    assert.deepEqual(held.warnings.slice(3), [`renewed the Lease ${LEASE} again after 2 failed renewals`]);
    await held.tick(); // 75 s
    assert.equal(held.requestsOf('GET'), before + 4);
    assert.equal(held.requestsOf('PUT'), 2);
    assert.equal(held.warnings.length, 4);
    await held.release();
    assert.equal(held.lease(), undefined, 'the Lease was released');
  });

  it('a renewal slower than one tick that works says nothing, and the next starts at the tick after it', async () => {
    const held = await hold();
    const before = held.requestsOf('GET');
    const release = held.cluster.hold(`GET ${LEASE_PATH}`);
    await held.tick(); // 10 s: sent
    await held.tick(); // 20 s: under way, one tick
    release();
    await settle();
    assert.equal(held.requestsOf('PUT'), 1);
    assert.equal(held.requestsOf('GET'), before + 1);
    await held.tick(); // 30 s: the next one
    assert.equal(held.requestsOf('GET'), before + 2);
    assert.equal(held.requestsOf('PUT'), 2);
    assert.deepEqual(held.warnings, []);
    await held.release();
  });

  it('the Lease found taken when the hanging read ends: lost as before, and no renewal after', async () => {
    const held = await hold();
    const release = held.cluster.hold(`GET ${LEASE_PATH}`);
    // Sent at 10 s, under way at 20 s: it ends before its deadline (30 s), where it is stopped.
    await held.tick();
    await held.tick();
    held.cluster.update('coordination.k8s.io/v1', 'Lease', LEASE, NAMESPACE, (lease) => {
      (lease as { spec: { holderIdentity?: string } }).spec.holderIdentity = 'other-run/4242/elsewhere';
    });
    release();
    await settle();
    assert.match(held.warnings.at(-1) ?? '', /^this run lost the upgrade lock to /);
    assert.ok(held.store.lostTo());
    const gets = held.requestsOf('GET');
    await held.tick();
    await held.tick();
    assert.equal(held.requestsOf('GET'), gets, 'a renewal after the Lease was lost');
    await held.release();
  });
});

/** `promise`, or a failure naming `what` when it takes longer than `ms` of real time. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('run/state-store-configmap: a Lease deleted while the run holds it', () => {
  const DELETED = `this run lost the upgrade lock: its Lease ${NAMESPACE}/${LEASE} was deleted while it held it (ctl upgrade unlock --state-store configmap, or kubectl delete lease). It renews it no more and stops at its next state write (exit 5); then check that no other run upgrades this cluster, and run the same command again to resume.`;
  const LEASE_KEY = FakeCluster.key('coordination.k8s.io/v1', 'Lease', NAMESPACE, LEASE);

  /** What the run must do once its renewal found the Lease gone, however it found it. */
  async function assertLostToNobody(held: Held): Promise<void> {
    assert.deepEqual(held.warnings, [DELETED]);
    assert.equal(held.store.lostTo(), LEASE_DELETED);
    assert.ok(held.stopped(), 'the renewals stop');
    const requests = held.cluster.requests.length;
    await held.renew();
    assert.equal(held.cluster.requests.length, requests, 'a tick after it sent a request');
    assert.deepEqual(held.warnings, [DELETED], 'a tick after it said something');
    await assert.rejects(held.store.save({ serial: 0 } as UpgradeState), (error: unknown) => {
      assert.ok(error instanceof LockedError, String(error));
      assert.equal(error.exitCode, ExitCode.locked);
      assert.equal(
        error.message,
        `this run lost the cluster's upgrade lock: its Lease ${LEASE} was deleted while it held it (ctl upgrade unlock --state-store configmap, or kubectl delete lease)`,
      );
      assert.match(
        error.hint ?? '',
        /^Nobody holds the lock now\. Check that no other run upgrades this cluster \(ctl upgrade status --state-store configmap -n redis --cluster rec\), then run the same command again to resume from the saved state\.$/,
      );
      return true;
    });
    await held.release();
    assert.equal(held.lease(), undefined, 'the release created the Lease again');
    assert.equal(held.cluster.requests.filter((request) => request.startsWith('POST')).length, 1);
    assert.deepEqual(held.warnings, [DELETED], 'the release said something');
  }

  it("the renewal's read finds it gone: the lock is lost to nobody, said so; renewals stop; the next state write exits 5", async () => {
    const held = await hold();
    await held.renew();
    assert.equal(held.warnings.length, 0);
    held.cluster.objects.delete(LEASE_KEY);
    await held.renew();
    await assertLostToNobody(held);
  });

  it("deleted between the renewal's read and its update: the same, not a failed renewal", async () => {
    const held = await hold();
    const release = held.cluster.hold(`PUT ${LEASE_PATH}`);
    await held.tick(); // the read works; the update waits
    assert.equal(held.requestsOf('PUT'), 1);
    held.cluster.objects.delete(LEASE_KEY);
    release();
    await settle();
    await assertLostToNobody(held);
  });
});

describe('run/state-store-configmap: releasing the Lease is bounded', () => {
  it('stops the renewal under way instead of waiting for it, and deletes the Lease', async () => {
    const held = await hold();
    held.cluster.hold(`GET ${LEASE_PATH}`);
    await held.tick(); // the renewal's read hangs (a credential plugin, up to its 60 s)
    // Before, release() waited for that renewal: for ever here, up to the plugin's 60 s in a run.
    await within(5_000, 'the release', held.release());
    assert.deepEqual(held.cluster.aborted, [`GET ${LEASE_PATH}`]);
    assert.equal(held.lease(), undefined, 'the Lease was released');
    assert.deepEqual(held.warnings, []);
  });

  it('a release whose own request hangs ends at its deadline and says the Lease expires by itself', async () => {
    const held = await hold({ releaseDeadlineMs: 50 });
    held.cluster.hold(`GET ${LEASE_PATH}`);
    await held.tick(); // the renewal hangs
    held.cluster.hold(`GET ${LEASE_PATH}`); // and so does the release's read
    await within(5_000, 'the release', held.release());
    assert.deepEqual(held.cluster.aborted, [`GET ${LEASE_PATH}`, `GET ${LEASE_PATH}`]);
    assert.deepEqual(held.warnings, [
      `could not release the Lease ${LEASE}: no answer within 0.05 s (the kubeconfig's credential plugin or the API server is slow); it expires by itself`,
    ]);
    assert.match(
      held.lease()?.holderIdentity ?? '',
      new RegExp(`^[0-9a-f-]{36}/${process.pid}/`),
      'the Lease is left to expire',
    );
  });
});
