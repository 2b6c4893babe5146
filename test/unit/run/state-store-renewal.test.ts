/**
 * The Lease's renewal of `--state-store configmap` (src/run/state-store-configmap.ts), driven
 * with a fake API whose read can hang, the ticks and the clock given to the store (its `schedule`
 * and `now`; lease-renewal.test.ts drives its failures): a renewal
 * whose request hangs (the kubeconfig's credential plugin, up to its 60 s) was followed by one
 * queued renewal per tick, each waiting for the same plugin, then all run back to back once it
 * ended, and the Lease outliving its duration was said only when a renewal ended. Now a tick that
 * finds one under way starts none; two ticks on it counts as failed, said once, and the expiry is
 * said on time (lease-renewal-report.ts).
 */

import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { OperationError } from '../../../src/errors.js';
import type { KubeClients } from '../../../src/kube/client.js';
import type { KubeRest } from '../../../src/kube/rest.js';
import { ConfigMapStateStore } from '../../../src/run/state-store-configmap.js';

const PLUGIN = "the kubeconfig's credential plugin /bin/login gave no credential within 60 s; ctl stopped it";

interface Lease {
  metadata: { name: string; resourceVersion?: string };
  spec: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
}

/** The Lease's API as far as the store uses it; `hang()` holds the next GET until settled. */
class FakeLeases {
  lease: Lease | undefined;
  gets = 0;
  replaces = 0;
  #version = 0;
  #held: { resolve: () => void; reject: (error: unknown) => void } | undefined;

  hang(): void {
    this.#held = { resolve: () => undefined, reject: () => undefined };
  }
  /** Ends the held GET with the Lease as it is now, or with `error`. */
  release(error?: unknown): void {
    const held = this.#held;
    this.#held = undefined;
    if (error === undefined) held?.resolve();
    else held?.reject(error);
  }

  rest(): KubeRest {
    const notFound = (): Error => Object.assign(new Error('leases "x" not found'), { code: 404 });
    const read = (): Lease => {
      if (!this.lease) throw notFound();
      return structuredClone(this.lease);
    };
    const write = (body: unknown): Lease => {
      this.#version += 1;
      this.lease = structuredClone(body as Lease);
      this.lease.metadata.resourceVersion = String(this.#version);
      return structuredClone(this.lease);
    };
    return {
      get: async <T>(): Promise<T> => {
        this.gets += 1;
        const held = this.#held;
        if (held === undefined) return read() as T;
        return new Promise<T>((resolve, reject) => {
          held.resolve = () => resolve(read() as T);
          held.reject = reject;
        });
      },
      create: async <T>(_path: string, body: unknown): Promise<T> => write(body) as T,
      replace: async <T>(_path: string, body: unknown): Promise<T> => {
        this.replaces += 1;
        return write(body) as T;
      },
      delete: async () => {
        this.lease = undefined;
      },
      list: () => Promise.reject(new Error('not used')),
      text: () => Promise.reject(new Error('not used')),
    };
  }
}

describe('run/state-store-configmap: the Lease renewal while its request hangs', () => {
  let now: number;
  let api: FakeLeases;
  let warnings: string[];
  let store: ConfigMapStateStore;

  /** The event loop's pending promise callbacks run (the fake's answers, the store's awaits). */
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  let renewTick: (() => Promise<void>) | undefined;
  /** One period (10 s for a 30 s Lease) on the clock, and its tick; not awaited: it may hang. */
  const tick = async (): Promise<void> => {
    now += 10_000;
    void renewTick?.();
    await settle();
  };

  beforeEach(() => {
    renewTick = undefined;
    now = 1_000_000;
    api = new FakeLeases();
    warnings = [];
    store = new ConfigMapStateStore({
      kube: { rest: api.rest() } as unknown as KubeClients,
      namespace: 'redis',
      cluster: 'rec',
      leaseDurationSeconds: 30,
      warn: (message) => warnings.push(message),
      now: () => now,
      schedule: (periodMs, renew) => {
        assert.equal(periodMs, 10_000);
        renewTick = renew;
        return () => {
          renewTick = undefined;
        };
      },
    });
  });

  it('starts no renewal while one is under way; two ticks on it is said once, the expiry on time, its cause when it ends; then one renewal a tick', async () => {
    const lock = await store.lock('upgrade run');
    const before = api.gets;
    api.hang();
    await tick(); // 10 s: the renewal is sent; its read hangs
    assert.equal(api.gets, before + 1);
    await tick(); // 20 s: under way one tick: nothing started, nothing said
    assert.equal(api.gets, before + 1, 'a second renewal was started beside the first');
    assert.deepEqual(warnings, []);
    await tick(); // 30 s: two ticks on, counted as failed and said
    assert.deepEqual(warnings, [
      "could not renew the Lease ctl-upgrade-lock-rec: the renewal sent 20 s ago has no answer yet (the kubeconfig's credential plugin or the API server is slow); ctl starts no other until it ends, and says so again only if the cause changes, or once it is renewed",
    ]);
    await tick(); // 40 s: unrenewed for longer than the Lease's 30 s, said now, not when it ends
    assert.equal(warnings.length, 2);
    assert.match(
      warnings[1]!,
      /^the Lease ctl-upgrade-lock-rec has not been renewed for 40 s, longer than its duration \(30 s\): another run may take it over now \(2 failures in a row: /,
    );
    await tick(); // 50 s
    await tick(); // 60 s
    assert.equal(api.gets, before + 1);
    assert.equal(warnings.length, 2);

    // The plugin's limit ends the read: its cause is said, and no queued renewal runs after it.
    now += 5_000;
    api.release(new OperationError(PLUGIN));
    await settle();
    assert.equal(api.gets, before + 1, 'renewals queued behind the hanging one ran');
    assert.deepEqual(warnings.slice(2), [
      `could not renew the Lease ctl-upgrade-lock-rec (5 failures in a row): ${PLUGIN}`,
    ]);
    await tick(); // 75 s: the next renewal, which works
    assert.equal(api.gets, before + 2);
    assert.equal(api.replaces, 1);
    assert.deepEqual(warnings.slice(3), [
      'renewed the Lease ctl-upgrade-lock-rec again after 5 failed renewals',
    ]);
    await tick(); // 85 s
    assert.equal(api.gets, before + 3);
    assert.equal(api.replaces, 2);
    assert.equal(warnings.length, 4);
    await lock.release();
    assert.equal(api.lease, undefined, 'the Lease was released');
  });

  it('a renewal slower than one tick that works says nothing, and the next starts at the tick after it', async () => {
    const lock = await store.lock('upgrade run');
    const before = api.gets;
    api.hang();
    await tick(); // 10 s: sent
    await tick(); // 20 s: under way, one tick
    api.release();
    await settle();
    assert.equal(api.replaces, 1);
    assert.equal(api.gets, before + 1);
    await tick(); // 30 s: the next one
    assert.equal(api.gets, before + 2);
    assert.equal(api.replaces, 2);
    assert.deepEqual(warnings, []);
    await lock.release();
  });

  it('the Lease found taken when the hanging read ends: lost as before, and no renewal after', async () => {
    const lock = await store.lock('upgrade run');
    api.hang();
    await tick();
    await tick();
    await tick();
    api.lease!.spec.holderIdentity = 'other-run/4242/elsewhere';
    api.release();
    await settle();
    assert.match(warnings.at(-1) ?? '', /^this run lost the upgrade lock to /);
    assert.ok(store.lostTo());
    const gets = api.gets;
    await tick();
    await tick();
    assert.equal(api.gets, gets, 'a renewal after the Lease was lost');
    await lock.release();
  });
});
