import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { ExitCode, TimeoutError } from '../../../src/errors.js';
import { type CollectionEvent, waitForObject, watchCollection } from '../../../src/kube/watch.js';
import { type Emulator, startEmulator } from './emulator-fixture.js';

interface ConfigMap {
  metadata: { name: string; resourceVersion?: string };
  data?: Record<string, string>;
}

const LONG = 60_000;

/** Resolves once `predicate` holds, re-checking on every event pushed by `subscribe`. */
function until(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = (): void => {
      if (predicate()) resolve();
      else if (Date.now() - started > timeoutMs) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(tick, 10);
    };
    tick();
  });
}

describe('kube/watch', () => {
  let emulator: Emulator;
  let path: string;

  before(async () => {
    emulator = await startEmulator();
    path = `/api/v1/namespaces/${emulator.namespace}/configmaps`;
  });
  after(() => emulator.close());
  // Every wait closes its watch when it settles: no test may leave one open for the next.
  afterEach(() => until(() => emulator.server.openWatches() === 0, 'every watch to close'));

  const setValue = (name: string, value: string): void => {
    if (emulator.get('v1', 'ConfigMap', name)) emulator.patch('v1', 'ConfigMap', name, { data: { value } });
    else emulator.create('v1', 'ConfigMap', { metadata: { name }, data: { value } });
  };
  const valueCheck =
    (wanted: string) =>
    (object: ConfigMap | undefined): boolean | string =>
      object?.data?.value === wanted ? true : `value ${object?.data?.value ?? '(absent)'}`;

  it('reacts to a change of the awaited object', async () => {
    setValue('react', 'a');
    const progress: string[] = [];
    const controller = new AbortController();
    const waiting = waitForObject<ConfigMap>({
      kube: emulator.kube,
      path,
      name: 'react',
      signal: controller.signal,
      timeoutMs: LONG,
      stallTimeoutMs: LONG,
      check: valueCheck('b'),
      onProgress: (message) => progress.push(message),
    });
    await until(() => progress.length > 0 && emulator.server.openWatches() > 0, 'the watch to open');
    setValue('react', 'b');
    const object = await waiting;
    assert.equal(object.data?.value, 'b');
    assert.deepEqual(progress, ['value a']);
    await until(() => emulator.server.openWatches() === 0, 'the watch to close');
  });

  it('resolves at once when the object already satisfies the check', async () => {
    setValue('ready', 'done');
    const object = await waitForObject<ConfigMap>({
      kube: emulator.kube,
      path,
      name: 'ready',
      signal: new AbortController().signal,
      timeoutMs: LONG,
      stallTimeoutMs: LONG,
      check: valueCheck('done'),
    });
    assert.equal(object.metadata.name, 'ready');
  });

  it('sees an object that does not exist yet, then is created', async () => {
    const seen: string[] = [];
    const waiting = waitForObject<ConfigMap>({
      kube: emulator.kube,
      path,
      name: 'later',
      signal: new AbortController().signal,
      timeoutMs: LONG,
      stallTimeoutMs: LONG,
      check: (object) => (object ? true : 'absent'),
      onProgress: (message) => seen.push(message),
    });
    await until(() => seen.length > 0, 'the first check');
    setValue('later', 'x');
    assert.equal((await waiting).data?.value, 'x');
  });

  it('survives dropped watches and resumes from the last resourceVersion', async () => {
    setValue('drop', '0');
    const progress: string[] = [];
    const waiting = waitForObject<ConfigMap>({
      kube: emulator.kube,
      path,
      name: 'drop',
      signal: new AbortController().signal,
      timeoutMs: LONG,
      stallTimeoutMs: LONG,
      check: valueCheck('3'),
      onProgress: (message) => progress.push(message),
    });
    const listsBefore = emulator.audit
      .filter('GET', path)
      .filter((e) => !e.path.includes('watch=true')).length;
    await until(() => progress.length > 0 && emulator.server.openWatches() > 0, 'the watch to open');
    for (const value of ['1', '2']) {
      emulator.server.dropWatches();
      setValue('drop', value); // changed while no watch is open: must be replayed
      await until(() => progress.includes(`value ${value}`), `value ${value}`);
      await until(() => emulator.server.openWatches() > 0, 'the watch to reopen');
    }
    setValue('drop', '3');
    await waiting;
    // The audit log records a request when it ends.
    await until(() => emulator.server.openWatches() === 0, 'the watch to close');
    const watchRequests = emulator.audit
      .filter('GET', path)
      .filter((e) => e.path.includes('drop') && e.path.includes('watch=true'));
    assert.ok(watchRequests.length >= 3, `expected reconnects, saw ${watchRequests.length} watch requests`);
    // Reconnects resume from a resourceVersion instead of listing again.
    const lists = emulator.audit.filter('GET', path).filter((e) => !e.path.includes('watch=true')).length;
    assert.ok(lists - listsBefore <= 2, `expected no re-list after a drop, saw ${lists - listsBefore} lists`);
    assert.ok(watchRequests.slice(1).every((e) => /resourceVersion=\d+/.test(e.path)));
  });

  it('re-lists after 410 Gone and still sees the change', async () => {
    setValue('gone', 'old');
    const progress: string[] = [];
    const waiting = waitForObject<ConfigMap>({
      kube: emulator.kube,
      path,
      name: 'gone',
      signal: new AbortController().signal,
      timeoutMs: LONG,
      stallTimeoutMs: LONG,
      check: valueCheck('new'),
      onProgress: (message) => progress.push(message),
    });
    await until(() => progress.length > 0 && emulator.server.openWatches() > 0, 'the watch to open');
    const listCount = (): number =>
      emulator.audit
        .filter('GET', path)
        .filter((e) => e.path.includes('gone') && !e.path.includes('watch=true')).length;
    const before = listCount();
    setValue('unrelated', String(Date.now())); // moves the resourceVersion past what the watch saw
    setValue('gone', 'new');
    emulator.server.store.compact(); // the watch's resourceVersion is now too old: 410
    emulator.server.dropWatches();
    const object = await waiting;
    assert.equal(object.data?.value, 'new');
    assert.ok(listCount() > before, 'expected a re-list after 410 Gone');
  });

  it('delivers SYNC then each change to watchCollection and stops on abort', async () => {
    const events: CollectionEvent<ConfigMap>[] = [];
    const controller = new AbortController();
    const done = watchCollection<ConfigMap>({
      kube: emulator.kube,
      path,
      labelSelector: 'app=watched',
      signal: controller.signal,
      onEvent: (event) => events.push(event),
    });
    await until(() => events.length === 1 && emulator.server.openWatches() > 0, 'the SYNC');
    assert.equal(events[0]?.type, 'SYNC');
    emulator.create('v1', 'ConfigMap', { metadata: { name: 'labelled', labels: { app: 'watched' } } });
    await until(() => events.length === 2, 'the ADDED event');
    assert.equal(events[1]?.type, 'ADDED');
    controller.abort();
    await done;
    await until(() => emulator.server.openWatches() === 0, 'the watch to close');
  });

  it('times out with exit 6 naming what it waited for', async () => {
    setValue('slow', 'a');
    const error = await waitForObject<ConfigMap>({
      kube: emulator.kube,
      path,
      name: 'slow',
      signal: new AbortController().signal,
      timeoutMs: 300,
      stallTimeoutMs: LONG,
      check: valueCheck('never'),
    }).then(
      () => assert.fail('expected a timeout'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof TimeoutError);
    assert.equal(error.exitCode, ExitCode.timeout);
    assert.match(error.message, /timed out after 300ms waiting for configmaps\/slow \(last seen: value a\)/);
  });

  it('stalls with exit 6 when the message stops changing', async () => {
    setValue('stall', 'a');
    const waiting = waitForObject<ConfigMap>({
      kube: emulator.kube,
      path,
      name: 'stall',
      signal: new AbortController().signal,
      timeoutMs: LONG,
      stallTimeoutMs: 400,
      check: valueCheck('never'),
    });
    const error = await waiting.then(
      () => assert.fail('expected a stall'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof TimeoutError);
    assert.equal(error.exitCode, ExitCode.timeout);
    assert.match(error.message, /configmaps\/stall made no progress for 400ms \(last seen: value a/);
  });

  it('fails with what the check throws', async () => {
    setValue('bad', 'broken');
    await assert.rejects(
      waitForObject<ConfigMap>({
        kube: emulator.kube,
        path,
        name: 'bad',
        signal: new AbortController().signal,
        timeoutMs: LONG,
        stallTimeoutMs: LONG,
        check: (object) => {
          if (object?.data?.value === 'broken') throw new Error('it broke');
          return false;
        },
      }),
      /it broke/,
    );
  });

  it('aborts promptly on the signal', async () => {
    setValue('abort', 'a');
    const controller = new AbortController();
    const progress: string[] = [];
    const waiting = waitForObject<ConfigMap>({
      kube: emulator.kube,
      path,
      name: 'abort',
      signal: controller.signal,
      timeoutMs: LONG,
      stallTimeoutMs: LONG,
      check: valueCheck('never'),
      onProgress: (message) => progress.push(message),
    });
    await until(() => progress.length > 0, 'the first check');
    controller.abort(new Error('stop now'));
    await assert.rejects(waiting, /stop now/);
    await until(() => emulator.server.openWatches() === 0, 'the watch to close');
  });

  it('fails on a collection that does not exist (404 is not retried)', async () => {
    await assert.rejects(
      waitForObject<ConfigMap>({
        kube: emulator.kube,
        path: `/apis/example.com/v1/namespaces/${emulator.namespace}/nothings`,
        name: 'x',
        signal: new AbortController().signal,
        timeoutMs: LONG,
        stallTimeoutMs: LONG,
        check: () => false,
      }),
      (error: unknown) => (error as { code?: number }).code === 404,
    );
  });
});
