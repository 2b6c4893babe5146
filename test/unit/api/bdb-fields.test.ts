/**
 * `GET /v1/bdbs?fields=...` (issue 39): the plan asks the management API for the fields it reads;
 * the emulator answers them as the REST reference documents; a cluster that refuses the query is
 * asked again without it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, MockAgent, request } from 'undici';
import { ApiClient } from '../../../src/api/client.js';
import { HttpClient } from '../../../src/api/http.js';
import type { TokenSource } from '../../../src/api/token-source.js';
import { BDB_FIELDS, bdbFieldsFor } from '../../../src/planning/management-snapshot.js';
import { ADMIN, type SimFixture, startSim } from '../sim/rest/fixture.js';

const basic = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;

describe('the emulator answers GET /v1/bdbs with fields= as documented', () => {
  let sim: SimFixture;
  let agent: Agent;
  before(async () => {
    sim = await startSim();
    agent = new Agent({ connect: { ca: sim.ca.certPem } });
  });
  after(async () => {
    await sim.close();
    await agent.close();
  });

  const get = async (path: string): Promise<unknown> => {
    const answer = await request(`${sim.url}${path}`, {
      headers: { authorization: basic },
      dispatcher: agent,
    });
    assert.equal(answer.statusCode, 200, path);
    return answer.body.json();
  };

  it('only the named fields of each database; every field without the query', async () => {
    const some = (await get('/v1/bdbs?fields=uid,name')) as Record<string, unknown>[];
    assert.deepEqual(
      some.map((bdb) => Object.keys(bdb).sort()),
      [
        ['name', 'uid'],
        ['name', 'uid'],
      ],
    );
    const all = (await get('/v1/bdbs')) as Record<string, unknown>[];
    assert.ok(
      all.every((bdb) => Object.keys(bdb).length > 2 && ('redis_version' in bdb || 'engine_version' in bdb)),
    );
    const planned = (await get(`/v1/bdbs?fields=${BDB_FIELDS.join(',')}`)) as Record<string, unknown>[];
    for (const [index, bdb] of planned.entries()) {
      assert.ok(Object.keys(bdb).every((field) => (BDB_FIELDS as readonly string[]).includes(field)));
      // What the plan reads is the same as in the whole object.
      for (const field of Object.keys(bdb)) assert.deepEqual(bdb[field], all[index]?.[field], field);
    }
  });

  it('one database: the named fields, a field it lacks left out', async () => {
    const [first] = (await get('/v1/bdbs')) as { uid: number }[];
    assert.deepEqual(Object.keys((await get(`/v1/bdbs/${first?.uid}?fields=uid,no_such_field`)) as object), [
      'uid',
    ]);
  });
});

describe('the fields the plan asks for', () => {
  it("every field of the snapshot's Bdb; in a known dialect, only its own version field", () => {
    assert.deepEqual([...bdbFieldsFor(undefined)], [...BDB_FIELDS]);
    assert.ok(bdbFieldsFor('redis').includes('redis_version'));
    assert.ok(!bdbFieldsFor('redis').includes('engine_version'));
    assert.ok(bdbFieldsFor('engine').includes('engine_version'));
    assert.ok(!bdbFieldsFor('engine').includes('redis_version'));
    for (const field of ['uid', 'name', 'status', 'crdt', 'module_list'])
      assert.ok(bdbFieldsFor('redis').includes(field) && bdbFieldsFor('engine').includes(field), field);
  });
});

describe('ApiClient.listBdbs with fields', () => {
  const ORIGIN = 'https://api.example.test:9443';
  const tokens = {
    token: () => Promise.resolve({ accessToken: 'a-token' }),
    renewAfterRejection: () => Promise.resolve({ accessToken: 'a-token' }),
  } as unknown as TokenSource;
  const clientOn = (mock: MockAgent) =>
    new ApiClient(new HttpClient({ baseUrl: ORIGIN, dispatcher: mock }), tokens, ADMIN.username);

  it('asks with fields= once when the cluster answers it', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    mock
      .get(ORIGIN)
      .intercept({ path: '/v1/bdbs?fields=uid,name', method: 'GET' })
      .reply(200, [{ uid: 1, name: 'db1' }]);
    try {
      assert.deepEqual(await clientOn(mock).listBdbs(['uid', 'name']), [{ uid: 1, name: 'db1' }]);
      mock.assertNoPendingInterceptors();
    } finally {
      await mock.close();
    }
  });

  it('a cluster that refuses the query (400) is asked again without it', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    const pool = mock.get(ORIGIN);
    pool
      .intercept({ path: '/v1/bdbs?fields=uid,name', method: 'GET' })
      .reply(400, { error_code: 'invalid_query' });
    pool
      .intercept({ path: '/v1/bdbs', method: 'GET' })
      .reply(200, [{ uid: 1, name: 'db1', status: 'active' }]);
    try {
      assert.deepEqual(await clientOn(mock).listBdbs(['uid', 'name']), [
        { uid: 1, name: 'db1', status: 'active' },
      ]);
      mock.assertNoPendingInterceptors();
    } finally {
      await mock.close();
    }
  });

  it('any other failure is not asked again', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    mock
      .get(ORIGIN)
      .intercept({ path: '/v1/bdbs?fields=uid,name', method: 'GET' })
      .reply(403, { error_code: 'forbidden' });
    try {
      await assert.rejects(clientOn(mock).listBdbs(['uid', 'name']), /permission denied/);
    } finally {
      await mock.close();
    }
  });
});
