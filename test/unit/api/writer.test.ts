import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authorize, refreshToken } from '../../../src/api/authorize.js';
import { ApiClient } from '../../../src/api/client.js';
import { HttpClient } from '../../../src/api/http.js';
import { TokenSource } from '../../../src/api/token-source.js';
import { ApiWriter } from '../../../src/api/writer.js';
import { createTestIo } from '../../../src/io/test-io.js';
import { ADMIN, type SimFixture, startSim } from '../sim/rest/fixture.js';

describe('ApiWriter: the management API changes of one run', () => {
  let sim: SimFixture;
  let http: HttpClient;
  let client: ApiClient;
  before(async () => {
    sim = await startSim({ serverVersion: '8.0.22-10', dialect: 'redis' });
    http = new HttpClient({ baseUrl: sim.url, ca: sim.ca.certPem });
    const tokens = new TokenSource({
      obtain: () => authorize(http, ADMIN, { ttl: 300, form: 'auto' }),
      refresh: (current) => refreshToken(http, current, {}),
    });
    client = new ApiClient(http, tokens, ADMIN.username);
  });
  after(async () => {
    await http.close();
    await sim.close();
  });

  it('in dry-run prints the request it would send and sends nothing', async () => {
    const test = createTestIo();
    const writer = new ApiWriter(client, { dryRun: true, io: test.io });
    const sent = sim.audit.entries.length;
    assert.equal(await writer.upgradeBdb(1, '7.4', 'redis_version'), undefined);
    assert.equal(await writer.uploadModule('search-rhel9.zip', new Uint8Array([1, 2, 3])), undefined);
    assert.equal(sim.audit.entries.length, sent, 'no request reached the management API');
    assert.equal(
      test.stderr(),
      'would POST /v1/bdbs/1/upgrade: {"redis_version":"7.4"}\nwould upload module search-rhel9.zip (POST /v2/modules)\n',
    );
  });

  it('otherwise sends the change and returns its action', async () => {
    const writer = new ApiWriter(client, { dryRun: false, io: createTestIo().io });
    const upgraded = await writer.upgradeBdb(1, '7.4', 'redis_version');
    assert.ok(upgraded?.action_uid, 'the upgrade answers with an action to wait for');
    const posted = sim.audit.entries.filter((e) => e.method === 'POST' && e.path === '/v1/bdbs/1/upgrade');
    assert.equal(posted.length, 1);
  });
});
