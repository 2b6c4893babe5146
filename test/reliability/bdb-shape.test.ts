/**
 * A management API (or something in front of it) that answers a database's fields with other
 * types than the REST reference gives them, or its shards without a node or a role: `module_list` as text, items that are not objects,
 * a number for `replication`. The plan fails its api-reachable check naming the database item
 * and the field (exit 3), instead of "unexpected failure: Cannot read properties of undefined"
 * (src/api/bdb-shape.ts). Fields answered null are read as absent, as a field left out. A shard
 * that cannot be placed makes the availability of its database unknown, never "stays available"
 * (src/planning/availability-prediction.ts).
 *
 * The API here is the simulator's behind a server of this test that rewrites GET /v1/bdbs and
 * GET /v1/shards (./rewriting-api.ts).
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertExit, SharedUpgradeSim, TARGET } from '../e2e/upgrade-support.js';
import { type RewritingApi, startRewritingApi } from './rewriting-api.js';

type Rewrite = (bdb: Record<string, unknown>) => Record<string, unknown>;

describe("a database's fields of other types than documented (e2e)", { timeout: 300_000 }, () => {
  const sim = new SharedUpgradeSim('happy-path');
  let api: RewritingApi;

  before(async () => {
    api = await startRewritingApi('ctl-bdb-shape-');
  });
  after(async () => {
    await api.close();
    await sim.close();
  });

  async function plan(what: string, rewrite: Rewrite, rewriteShard: Rewrite = (shard) => shard) {
    const each = (rewriteItem: Rewrite) => (body: unknown) =>
      (body as Record<string, unknown>[]).map((item) => rewriteItem(item));
    return sim.use(what, async (s) => {
      api.use(s.env, { '/v1/bdbs': each(rewrite), '/v1/shards': each(rewriteShard) });
      return s.ctl(['upgrade', 'plan', '--to', TARGET], { env: api.env });
    });
  }

  const cases: { what: string; rewrite: Rewrite; message: RegExp }[] = [
    {
      what: 'module_list as text',
      rewrite: (bdb) => ({ ...bdb, module_list: 'search' }),
      message: /item 0: the management API answered a database whose module_list is not a list/,
    },
    {
      what: 'a module_list item that is null',
      rewrite: (bdb) => ({ ...bdb, module_list: [null] }),
      message: /item 0: the management API answered a database whose module_list item 0 is not an object/,
    },
    {
      what: 'a module without a name',
      rewrite: (bdb) => ({ ...bdb, module_list: [{ module_name: 7, semantic_version: '2.8.4' }] }),
      message: /module_list item 0 has no string module_name/,
    },
    {
      what: 'replication as a number',
      rewrite: (bdb) => ({ ...bdb, replication: 1 }),
      message: /a database whose replication is not a boolean/,
    },
  ];
  for (const { what, rewrite: next, message } of cases) {
    test(`${what}: api-reachable fails, naming the item and the field`, async () => {
      const result = await plan(what, next);
      assertExit(result, 3, what);
      assert.match(result.stdout, message);
      assert.doesNotMatch(result.stdout + result.stderr, /unexpected failure|TypeError/);
    });
  }

  test('fields answered null are read as absent: the plan is made', async () => {
    const result = await plan('null fields', (bdb) => ({
      ...bdb,
      status: null,
      module_list: Array.isArray(bdb.module_list)
        ? (bdb.module_list as Record<string, unknown>[]).map((m) => ({ ...m, semantic_version: null }))
        : null,
    }));
    assert.doesNotMatch(
      result.stdout + result.stderr,
      /unexpected failure|TypeError|answered a database whose/,
    );
    assert.match(result.stdout, /ok\s+api-reachable/);
  });

  test('shards listed without a node or a role: availability not predicted, never "none goes down"', async () => {
    const result = await plan(
      'shards without node or role',
      (bdb) => bdb,
      (shard) => ({ ...shard, node_uid: null, role: null }),
    );
    assertExit(result, 0, 'plan with unplaced shards');
    assert.match(
      result.stdout,
      /warn\s+database-availability\s+cannot predict the availability of .*listed without a node or a role/,
    );
    assert.doesNotMatch(result.stdout, /none goes down/);
  });
});
