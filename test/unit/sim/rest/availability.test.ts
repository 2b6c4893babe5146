import assert from 'node:assert/strict';
import { test } from 'node:test';
import { peakRequests } from '../../../../src/sim/audit.js';
import { handleApiRequest } from '../../../../src/sim/rest/handlers.js';
import { RestModel, type RestModelOptions } from '../../../../src/sim/rest/model.js';
import { parseScenario } from '../../../../src/sim/scenario.js';

const ADMIN = { username: 'admin@example.com', password: 'CANARY-P@ss-avail-5d1' };
const basic = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;

/** A model on a hand-driven clock, three nodes. */
function model(options: Partial<RestModelOptions> = {}): { model: RestModel; clock: { now: number } } {
  const clock = { now: 1_700_000_000_000 };
  const built = new RestModel({
    serverVersion: '7.8.2-34',
    users: [{ ...ADMIN, role: 'admin' }],
    failoverSeconds: 1.5,
    now: () => clock.now,
    bdbs: [
      { name: 'orders', namespace: 'shop', version: '7.2', shards: 2 },
      { name: 'cache', namespace: 'shop', version: '7.2', replication: false },
    ],
    ...options,
  });
  return { model: built, clock };
}

async function get(m: RestModel, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await handleApiRequest(m, {
    method: 'GET',
    path,
    headers: { authorization: basic },
    body: Buffer.alloc(0),
  });
  return { status: answer.status, body: answer.body as Record<string, unknown> };
}

interface Shard {
  uid: string;
  bdb_uid: number;
  node_uid: string;
  role: string;
  status: string;
  detailed_status: string;
  assigned_slots: string;
}

test('shards are spread over the nodes, a replica never on its master node', async () => {
  const { model: m } = model();
  const shards = (await get(m, '/v1/shards')).body as unknown as Shard[];
  const orders = shards.filter((shard) => shard.bdb_uid === 1);
  assert.equal(orders.length, 4, 'two masters, two replicas');
  for (const slots of ['0-8191', '8192-16383']) {
    const pair = orders.filter((shard) => shard.assigned_slots === slots);
    assert.deepEqual(pair.map((shard) => shard.role).sort(), ['master', 'slave']);
    assert.notEqual(pair[0]?.node_uid, pair[1]?.node_uid);
  }
  // Sparse: as many nodes as possible.
  assert.equal(new Set(orders.map((shard) => shard.node_uid)).size, 3);
  const cache = shards.filter((shard) => shard.bdb_uid === 2);
  assert.deepEqual(
    cache.map((shard) => shard.role),
    ['master'],
  );
  const bdb = (await get(m, '/v1/bdbs/1')).body;
  assert.equal(bdb.replication, true);
  assert.equal(bdb.shards_count, 2);
  assert.deepEqual(
    bdb.shard_list,
    orders.map((shard) => Number(shard.uid)),
  );
  assert.equal((await get(m, '/v1/bdbs/2')).body.replication, false);
  assert.equal(((await get(m, '/v1/bdbs/2/shards')).body as unknown as Shard[]).length, 1);
  assert.equal((await get(m, `/v1/shards/${cache[0]?.uid}`)).body.role, 'master');
  assert.equal((await get(m, '/v1/shards/999')).status, 404);
});

test('a replicated database is unavailable for the failover window, then its replica serves', async () => {
  const { model: m, clock } = model();
  assert.equal((await get(m, '/v1/bdbs/1/availability')).status, 200);
  const before = (await get(m, '/v1/bdbs/1/shards')).body as unknown as Shard[];
  const masterNode = Number(before.find((shard) => shard.role === 'master')?.node_uid);
  m.nodeStopped(masterNode);
  const down = await get(m, '/v1/bdbs/1/availability');
  assert.equal(down.status, 503);
  assert.equal(down.body.error_code, 'bdb_unavailable_shard_unreachable');
  assert.equal(typeof down.body.description, 'string');
  const local = await get(m, '/v1/local/bdbs/1/endpoint/availability');
  assert.equal(local.status, 503);
  assert.equal(local.body.error_code, 'bdb_endpoint_unavailable');
  const during = (await get(m, '/v1/bdbs/1/shards')).body as unknown as Shard[];
  assert.ok(during.some((shard) => shard.detailed_status === 'down' && shard.status === 'inactive'));
  clock.now += 1400;
  assert.equal((await get(m, '/v1/bdbs/1/availability')).status, 503, 'still inside the window');
  clock.now += 200;
  assert.equal((await get(m, '/v1/bdbs/1/availability')).status, 200, 'the replica was promoted');
  const after = (await get(m, '/v1/bdbs/1/shards')).body as unknown as Shard[];
  assert.ok(
    after.filter((shard) => shard.role === 'master').every((shard) => Number(shard.node_uid) !== masterNode),
  );
  m.nodeStarted(masterNode);
  // No failback: the old master comes back as the replica.
  const back = (await get(m, '/v1/bdbs/1/shards')).body as unknown as Shard[];
  assert.ok(back.filter((shard) => Number(shard.node_uid) === masterNode).every((s) => s.role === 'slave'));
  assert.equal((await get(m, '/v1/bdbs/1/availability')).status, 200);
});

test('a database without replication is down for its node whole restart', async () => {
  const { model: m, clock } = model();
  const [shard] = (await get(m, '/v1/bdbs/2/shards')).body as unknown as Shard[];
  const node = Number(shard?.node_uid);
  m.nodeStopped(node);
  clock.now += 60_000;
  assert.equal((await get(m, '/v1/bdbs/2/availability')).status, 503);
  m.nodeStarted(node);
  assert.equal((await get(m, '/v1/bdbs/2/availability')).status, 200);
});

test('a node restart shorter than the window ends the outage without a failover', async () => {
  const { model: m, clock } = model();
  const shards = (await get(m, '/v1/bdbs/1/shards')).body as unknown as Shard[];
  const master = shards.find((shard) => shard.role === 'master');
  m.nodeStopped(Number(master?.node_uid));
  clock.now += 500;
  m.nodeStarted(Number(master?.node_uid));
  clock.now += 5000;
  assert.equal((await get(m, '/v1/bdbs/1/availability')).status, 200);
  const again = (await get(m, '/v1/bdbs/1/shards')).body as unknown as Shard[];
  assert.equal(again.find((shard) => shard.uid === master?.uid)?.role, 'master');
});

test('one node: the replica shares its master node, and the restart takes the database down', async () => {
  const { model: m, clock } = model({ nodes: 1 });
  m.nodeStopped(1);
  clock.now += 10_000;
  assert.equal((await get(m, '/v1/bdbs/1/availability')).status, 503);
});

test('the availability requests are 404 before 7.8, and for an unknown database', async () => {
  const { model: old } = model({ serverVersion: '7.4.6-22' });
  for (const path of ['/v1/bdbs/1/availability', '/v1/local/bdbs/1/endpoint/availability']) {
    assert.equal((await get(old, path)).status, 404);
  }
  assert.equal((await get(old, '/v1/shards')).status, 200, 'shards are older than 7.8');
  const { model: current } = model();
  const missing = await get(current, '/v1/bdbs/77/availability');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error_code, 'db_not_found');
});

test('peakRequests counts the busiest window of the audit log', () => {
  const at = (ms: number) => ({ ts: new Date(1_700_000_000_000 + ms).toISOString() });
  const entries = [at(0), at(100), at(900), at(1000), at(1100), at(5000)];
  assert.equal(peakRequests(entries, 1000), 3);
  assert.equal(peakRequests([], 1000), 0);
});

test('the scenario keys: shards and replication reach the bdbs; shards and shardCount must agree', () => {
  const base = [
    'name: availability-keys',
    'description: keys of the fourth round',
    'operator:',
    '  version: 7.8.2-6',
    'timing:',
    '  failover: 2.5',
    'databases:',
    '  - { name: ledger, version: "7.2", shards: 3, replication: false }',
    '',
  ].join('\n');
  const scenario = parseScenario(base, 'keys.yaml');
  assert.equal(scenario.timing.failover, 2.5);
  assert.equal(scenario.databases[0]?.shardCount, 3);
  assert.equal(scenario.databases[0]?.replication, false);
  assert.throws(
    () => parseScenario(base.replace('shards: 3', 'shards: 3, shardCount: 2'), 'bad.yaml'),
    /shards 3 and shardCount 2 disagree/,
  );
  assert.throws(() => parseScenario(base.replace('failover: 2.5', 'failover: -1'), 'bad.yaml'), /failover/);
});
