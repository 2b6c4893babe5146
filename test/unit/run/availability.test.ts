import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HttpRequest, HttpResponse } from '../../../src/api/http.js';
import { ExitCode } from '../../../src/errors.js';
import { AvailabilityLedger } from '../../../src/run/availability/ledger.js';
import { AvailabilityMeasurement } from '../../../src/run/availability/measurement.js';
import { AvailabilityPoller, Pacer, type PollerOptions } from '../../../src/run/availability/poller.js';
import { renderAvailabilityMarkdown, renderAvailabilityText } from '../../../src/run/availability/render.js';

const T0 = Date.parse('2026-11-29T01:00:00.000Z');

/** A clock that only moves when told to (sleep moves it). */
function fakeClock() {
  const clock = {
    now: T0,
    sleeps: [] as number[],
    api: {
      now: () => clock.now,
      sleep: async (ms: number, signal: AbortSignal) => {
        if (signal.aborted) throw new Error('aborted');
        clock.sleeps.push(ms);
        clock.now += ms;
        // A turn of the event loop, as a real sleep gives: a polling loop cannot spin forever.
        await new Promise((resolve) => setImmediate(resolve));
      },
    },
  };
  return clock;
}

const ok = (body: unknown = {}): HttpResponse => ({ status: 200, headers: {}, body });
const answer = (status: number, body: unknown): HttpResponse => ({ status, headers: {}, body });

/** A poller on the fake clock, at `perSecond` requests a second, each request given up after 1 s. */
function pollerOf(
  api: PollerOptions['api'],
  clock: ReturnType<typeof fakeClock>,
  { perSecond, budget, concurrency }: { perSecond: number; budget: number; concurrency: number },
): AvailabilityPoller {
  return new AvailabilityPoller({
    api,
    clock: clock.api,
    pacer: new Pacer(perSecond, clock.api),
    budget,
    concurrency,
    requestTimeoutMs: 1000,
  });
}

test('the ledger: an outage from the first sample down to the first up, gaps not counted', () => {
  const ledger = new AvailabilityLedger();
  ledger.track({ uid: 1, namespace: 'pay', name: 'orders' });
  ledger.sample(1, T0, 'up', null);
  ledger.sample(1, T0 + 1000, 'down', 'rec-2');
  ledger.sample(1, T0 + 1500, 'down', 'rec-2');
  ledger.sample(1, T0 + 2500, 'up', null);
  ledger.sample(1, T0 + 3000, 'unseen', 'rec-0');
  ledger.sample(1, T0 + 5000, 'up', null);
  ledger.sample(1, T0 + 10_000, 'up', null);
  const [entry] = ledger.entries(T0 + 10_000);
  assert.equal(entry?.measured, true);
  assert.deepEqual(entry?.outages, [
    { start: new Date(T0 + 1000).toISOString(), end: new Date(T0 + 2500).toISOString(), pod: 'rec-2' },
  ]);
  assert.equal(entry?.longestOutageMs, 1500);
  // Seen 8 s (10 s less the 2 s without an answer), down 1.5 s of them.
  assert.equal(entry?.notSeenMs, 2000);
  assert.equal(entry?.seenMs, 8000);
  assert.equal(entry?.availability, 1 - 1500 / 8000);
  assert.match(entry?.why ?? '', /could not see it for 2000 ms/);
});

test('the ledger: an outage going on at the end, and a database never answered for', () => {
  const ledger = new AvailabilityLedger();
  ledger.track({ uid: 1, namespace: 'pay', name: 'orders' });
  ledger.track({ uid: 2, namespace: 'pay', name: 'ghost' });
  ledger.sample(1, T0, 'up', null);
  ledger.sample(1, T0 + 1000, 'down', null);
  ledger.sample(1, T0 + 1200, 'down', 'rec-1');
  ledger.sample(2, T0, 'unseen', null);
  ledger.sample(2, T0 + 4000, 'unseen', null);
  const [orders, ghost] = ledger.entries(T0 + 4000);
  assert.equal(orders?.outages[0]?.ongoing, true);
  assert.equal(orders?.outages[0]?.pod, 'rec-1', 'the pod seen restarting during the outage');
  assert.equal(orders?.longestOutageMs, 3000);
  assert.equal(ghost?.measured, false);
  assert.equal(ghost?.availability, null);
  assert.match(ghost?.why ?? '', /could not see it/);
  // Paused and restored (a resumed run): the open outage ends when it is seen up again.
  ledger.pause(T0 + 4000);
  const resumed = new AvailabilityLedger(ledger.tracked());
  resumed.sample(1, T0 + 60_000, 'up', null);
  const [after] = resumed.entries(T0 + 60_000);
  assert.equal(after?.outages.length, 1);
  assert.equal(after?.outages[0]?.ongoing, undefined);
  assert.equal(after?.longestOutageMs, 59_000);
});

test('the poller: each database asked when they fit; 503 is down, 404 db_not_found unseen, errors unseen', async () => {
  const clock = fakeClock();
  const asked: HttpRequest[] = [];
  const api = {
    call: async (request: HttpRequest) => {
      asked.push(request);
      if (request.path === '/v1/bdbs/1/availability') return ok();
      if (request.path === '/v1/bdbs/2/availability')
        return answer(503, { error_code: 'bdb_unavailable_shard_unreachable', description: 'x' });
      if (request.path === '/v1/bdbs/3/availability') return answer(404, { error_code: 'db_not_found' });
      throw new Error('connection reset');
    },
  };
  const poller = pollerOf(api, clock, { perSecond: 10, budget: 5, concurrency: 2 });
  const round = await poller.round([1, 2, 3, 4], new AbortController().signal);
  assert.equal(round.source, 'availability');
  assert.deepEqual(
    [1, 2, 3, 4].map((uid) => round.samples.get(uid)?.seen),
    ['up', 'down', 'unseen', 'unseen'],
  );
  assert.ok(
    asked.every((request) => request.once === true),
    'never retried: a 503 is an answer',
  );
  assert.equal(poller.hasAvailabilityApi, true);
  // Paced at 10 a second: four requests wait 0, 100, 200, 300 ms.
  assert.deepEqual(clock.sleeps, [100, 100, 100]);
});

test('the poller: before 7.8 (the path unknown) the shard list decides, one request a round', async () => {
  const clock = fakeClock();
  const paths: string[] = [];
  const api = {
    call: async (request: HttpRequest) => {
      paths.push(request.path);
      if (request.path === '/v1/shards')
        return ok([
          { uid: '1', bdb_uid: 1, node_uid: '1', role: 'master', status: 'active', detailed_status: 'ok' },
          { uid: '2', bdb_uid: 1, node_uid: '2', role: 'slave', status: 'inactive', detailed_status: 'down' },
          {
            uid: '3',
            bdb_uid: 2,
            node_uid: '2',
            role: 'master',
            status: 'inactive',
            detailed_status: 'down',
          },
        ]);
      return answer(404, { error_code: 'not_found', message: 'No such endpoint' });
    },
  };
  const poller = pollerOf(api, clock, { perSecond: 1000, budget: 7, concurrency: 4 });
  const first = await poller.round([1, 2, 3], new AbortController().signal);
  assert.equal(poller.hasAvailabilityApi, false);
  assert.deepEqual(
    [1, 2, 3].map((uid) => first.samples.get(uid)?.seen),
    ['up', 'down', 'unseen'],
  );
  paths.length = 0;
  const second = await poller.round([1, 2, 3], new AbortController().signal);
  assert.equal(second.source, 'shards');
  assert.deepEqual(paths, ['/v1/shards']);
});

test('the poller: a shard list with a field of another type says nothing, never "up" or "down"', async () => {
  // Before 7.8 (the path unknown) the shard list alone decides. A master's role answered as 1
  // was skipped as "not a master", and its database seen up while its master was down; a
  // status answered as 0 would have been an outage. Both lists are not the API's: not seen.
  for (const wrong of [{ role: 1 }, { status: 0 }]) {
    const clock = fakeClock();
    const api = {
      call: async (request: HttpRequest) =>
        request.path === '/v1/shards'
          ? ok([
              {
                uid: '1',
                bdb_uid: 1,
                node_uid: '1',
                role: 'master',
                status: 'inactive',
                detailed_status: 'down',
              },
              {
                uid: '2',
                bdb_uid: 2,
                node_uid: '2',
                role: 'master',
                status: 'active',
                detailed_status: 'ok',
                ...wrong,
              },
            ])
          : answer(404, { error_code: 'not_found', message: 'No such endpoint' }),
    };
    const poller = pollerOf(api, clock, { perSecond: 1000, budget: 7, concurrency: 4 });
    const round = await poller.round([1, 2], new AbortController().signal);
    assert.deepEqual(
      [1, 2].map((uid) => round.samples.get(uid)?.seen),
      ['unseen', 'unseen'],
      JSON.stringify(wrong),
    );
  }
});

test('the poller: a shard whose role is neither master nor slave leaves its database unseen, unless a master is down', async () => {
  const clock = fakeClock();
  const shard = { node_uid: '1', status: 'active', detailed_status: 'ok' };
  const api = {
    call: async (request: HttpRequest) =>
      request.path === '/v1/shards'
        ? ok([
            { ...shard, uid: '1', bdb_uid: 1, role: 'primary' },
            { ...shard, uid: '2', bdb_uid: 2, role: 'primary' },
            { ...shard, uid: '3', bdb_uid: 2, role: 'master', status: 'inactive', detailed_status: 'down' },
            { ...shard, uid: '4', bdb_uid: 3, role: 'master' },
            { ...shard, uid: '5', bdb_uid: 3, role: 'slave', status: 'inactive' },
          ])
        : answer(404, { error_code: 'not_found', message: 'No such endpoint' }),
  };
  const poller = pollerOf(api, clock, { perSecond: 1000, budget: 7, concurrency: 4 });
  const round = await poller.round([1, 2, 3], new AbortController().signal);
  assert.deepEqual(
    [1, 2, 3].map((uid) => round.samples.get(uid)?.seen),
    ['unseen', 'down', 'up'],
  );
});

test('the poller at scale: the shard list, then the availability of the suspects within the budget', async () => {
  const clock = fakeClock();
  const paths: string[] = [];
  const uids = Array.from({ length: 1000 }, (_, i) => i + 1);
  const downs = new Set([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
  const api = {
    call: async (request: HttpRequest) => {
      paths.push(request.path);
      if (request.path === '/v1/shards')
        return ok(
          uids.map((uid) => ({
            bdb_uid: uid,
            role: 'master',
            status: downs.has(uid) ? 'inactive' : 'active',
            detailed_status: downs.has(uid) ? 'down' : 'ok',
          })),
        );
      return answer(503, { error_code: 'bdb_unavailable_shard_unreachable' });
    },
  };
  const poller = pollerOf(api, clock, { perSecond: 1000, budget: 7, concurrency: 4 });
  const round = await poller.round(uids, new AbortController().signal);
  assert.equal(round.source, 'shards+availability');
  assert.equal(paths.length, 7, 'one list and six confirmations: the budget');
  assert.equal(round.samples.size, 1000);
  assert.equal([...round.samples.values()].filter((sample) => sample.seen === 'down').length, 10);
  // The next round confirms the other suspects.
  paths.length = 0;
  await poller.round(uids, new AbortController().signal);
  assert.deepEqual(
    paths.slice(1).map((p) => Number(/bdbs\/(\d+)/.exec(p)?.[1])),
    [70, 80, 90, 100, 10, 20],
  );
});

test('the measurement: --max-unavailable names the database, the pod and the outage, once', async () => {
  const clock = fakeClock();
  let down = false;
  const api = {
    call: async () => (down ? answer(503, { error_code: 'bdb_unavailable' }) : ok()),
  };
  const measurement = new AvailabilityMeasurement({
    api,
    clock: clock.api,
    databases: [{ uid: 7, namespace: 'pay', name: 'orders' }],
    maxUnavailableMs: 1000,
    onDelete: true,
  });
  const pod = (name: string, ready: boolean) => ({
    metadata: { name },
    status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  });
  assert.equal(measurement.podsSeen([pod('rec-0', true), pod('rec-1', true)]), undefined);
  /** Lets the polling loop run on the fake clock until it reaches `at` (a hang guard bounds it). */
  const until = async (at: number) => {
    for (let turns = 0; clock.now < at; turns++) {
      assert.ok(turns < 10_000, `the polling loop reached ${new Date(at).toISOString()}`);
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  measurement.start();
  await until(T0 + 1000);
  measurement.podsSeen([pod('rec-0', true), pod('rec-1', false)]);
  down = true;
  await until(T0 + 3500);
  down = false;
  await until(T0 + 4500);
  const stop = measurement.podsSeen([pod('rec-0', true), pod('rec-1', true)]);
  await measurement.stop();
  assert.ok(stop, 'the end of rec-1 restart is a safe point under OnDelete');
  assert.equal(stop.exitCode, ExitCode.unavailable);
  assert.match(
    stop.message,
    /database pay\/orders \(bdb 7\) was unavailable for \d\.\d s .* while rec-1 restarted/,
  );
  assert.match(stop.message, /longer than --max-unavailable 1s/);
  // Acknowledged: the resume goes on past it.
  const state = measurement.toState();
  const resumed = new AvailabilityMeasurement({
    api,
    clock: clock.api,
    databases: [{ uid: 7, namespace: 'pay', name: 'orders' }],
    maxUnavailableMs: 1000,
    onDelete: false,
    restored: JSON.parse(JSON.stringify(state)),
  });
  assert.equal(resumed.overLimit('before the databases step'), undefined);
  const [entry] = resumed.entries();
  assert.equal(entry?.outages[0]?.pod, 'rec-1');
  assert.ok((entry?.longestOutageMs ?? 0) > 1000);
});

test('the tables: outages first, the rest counted; the Markdown escapes what the cluster wrote', () => {
  const ledger = new AvailabilityLedger();
  for (let uid = 1; uid <= 25; uid++) ledger.track({ uid, namespace: 'pay', name: `db-${uid}` });
  for (let uid = 1; uid <= 25; uid++) ledger.sample(uid, T0, 'up', null);
  ledger.sample(3, T0 + 1000, 'down', 'rec-2');
  ledger.sample(3, T0 + 3000, 'up', null);
  for (let uid = 1; uid <= 25; uid++) ledger.sample(uid, T0 + 10_000, 'up', null);
  const entries = ledger.entries(T0 + 10_000);
  const text = renderAvailabilityText(entries, 'how');
  const lines = text.split('\n');
  assert.match(lines[2] ?? '', /^ {2}pay\/db-3\s+80\.00%\s+2\.0 s\s+1\s+rec-2/);
  assert.match(lines.at(-1) ?? '', /5 more databases, each available throughout/);
  const markdown = renderAvailabilityMarkdown([
    { ...entries[0]!, name: 'evil|name](http://x)', outages: [] },
  ]);
  assert.match(markdown, /evil\\\|name\\\]\\\(http:\/\/x\\\)/);
});

test('a run that polled no database (--fast, a roll over before the first answer): one line, not a row each', () => {
  const ledger = new AvailabilityLedger();
  for (const uid of [1, 2, 3]) ledger.track({ uid, namespace: 'redis', name: `db-${uid}` });
  const entries = ledger.entries(T0 + 50);
  assert.deepEqual(
    entries.map((entry) => entry.measured),
    [false, false, false],
  );
  assert.equal(
    renderAvailabilityText(entries, 'measured every 500 ms'),
    'database availability during the upgrade: not measured (3 database(s); no roll, or it ended before the first answer)',
  );
  // One database seen keeps the table, with a row for each of the others as before.
  ledger.sample(2, T0 + 10, 'up', null);
  ledger.sample(2, T0 + 40, 'up', null);
  const lines = renderAvailabilityText(ledger.entries(T0 + 50), 'how').split('\n');
  assert.equal(lines[0], 'database availability during the upgrade (how):');
  assert.match(lines.join('\n'), /redis\/db-1 +not measured +- +0 +- +not measured: the run did not poll it/);
  assert.equal(lines.length, 5);
});
