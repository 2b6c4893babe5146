/**
 * A management API (or something in front of it) whose modules, shards, nodes or database list
 * are not of the shapes the REST reference gives them: a module's `platforms` as a list instead of
 * an object keyed by platform, a shard's `role` as a number, a node's `status` as a number, a
 * database, node, module or shard uid listed twice. The plan
 * names the item and the field, and says what to do: api-reachable fails (exit 3) for the
 * modules and the list (src/api/module-shape.ts, bdb-shape.ts), database-availability warns for
 * the shards (src/api/shard-shape.ts). Never "platforms: 0", never a database counted twice,
 * never "listed without a role" for a role that was there.
 *
 * The API is the simulator's behind a server of this test that rewrites the answers
 * (./rewriting-api.ts).
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertExit, SharedUpgradeSim, TARGET } from '../e2e/upgrade-support.js';
import { type RewritingApi, type Rewrites, startRewritingApi } from './rewriting-api.js';

type Item = Record<string, unknown>;

describe(
  'modules, shards and database lists of other shapes than documented (e2e)',
  { timeout: 300_000 },
  () => {
    const sim = new SharedUpgradeSim('happy-path');
    let api: RewritingApi;

    before(async () => {
      api = await startRewritingApi('ctl-answer-shapes-');
    });
    after(async () => {
      await api.close();
      await sim.close();
    });

    function plan(what: string, rewrites: Rewrites) {
      return sim.use(what, async (s) => {
        api.use(s.env, rewrites);
        return s.ctl(['upgrade', 'plan', '--to', TARGET], { env: api.env });
      });
    }

    const noCrash = (result: { stdout: string; stderr: string }) =>
      assert.doesNotMatch(result.stdout + result.stderr, /unexpected failure|TypeError/);

    test("a module's platforms as a list: api-reachable fails naming the module and the field, no 'platforms: 0'", async () => {
      const result = await plan('platforms as a list', {
        '/v1/modules': (body) =>
          (body as Item[]).map((module) => ({ ...module, platforms: Object.keys(module.platforms as Item) })),
      });
      assertExit(result, 3, 'plan with platforms as a list');
      assert.match(
        result.stdout,
        /FAIL\s+api-reachable\s+the management API.s answer is not in the documented form: GET \/v1\/modules: item \d+ \((search 2\.8\.13|ReJSON 2\.6\.10)\): the management API answered a module whose platforms is a list, not an object keyed by platform/,
      );
      assert.match(result.stdout, /--api-url points at the management API/);
      assert.match(
        result.stdout,
        /warn\s+modules-compatible\s+cannot list the modules in use: .*api-reachable says why/,
      );
      assert.doesNotMatch(result.stdout, /platforms: 0|without a RHEL9 build/);
      noCrash(result);
    });

    test("a shard's role as a number: database-availability warns naming the shard and the field, and what to do", async () => {
      const result = await plan('role as a number', {
        '/v1/shards': (body) =>
          (body as Item[]).map((shard) => ({ ...shard, role: shard.role === 'master' ? 1 : 2 })),
      });
      assertExit(result, 0, 'plan with shard roles as numbers');
      assert.match(
        result.stdout,
        /warn\s+database-availability\s+cannot predict the availability of .*: shard placement not read \(GET \/v1\/shards: item 0: the management API answered a shard whose role is not a string \(it is a number\)\)/,
      );
      assert.match(result.stdout, /--api-url points at the management API/);
      assert.doesNotMatch(result.stdout, /listed without a node or a role|none goes down/);
      noCrash(result);
    });

    test('a database uid listed twice: api-reachable fails naming the uid, nothing counted twice', async () => {
      const result = await plan('a uid listed twice', {
        '/v1/bdbs': (body) => {
          const bdbs = body as Item[];
          return [...bdbs, { ...bdbs[0], name: 'orders-again' }];
        },
      });
      assertExit(result, 3, 'plan with a uid listed twice');
      assert.match(
        result.stdout,
        /FAIL\s+api-reachable\s+the management API.s answer is not in the documented form: GET \/v1\/bdbs\?fields=[a-z_,]+: the management API listed database uid \d+ twice \(items 0 and 3\)/,
      );
      assert.doesNotMatch(result.stdout, /4 database\(s\)/);
      noCrash(result);
    });

    test("a node's status as a number: api-reachable fails naming the node and the field", async () => {
      const result = await plan('node status as a number', {
        '/v1/nodes': (body) =>
          (body as Item[]).map((node, index) => (index === 1 ? { ...node, status: 1 } : node)),
      });
      assertExit(result, 3, 'plan with a node status as a number');
      assert.match(
        result.stdout,
        /FAIL\s+api-reachable\s+the management API.s answer is not in the documented form: GET \/v1\/nodes: the management API answered a node \(item 1\) whose status is not a string \(it is a number\)/,
      );
      assert.match(result.stdout, /--api-url points at the management API/);
      noCrash(result);
    });

    test('a node uid listed twice: api-reachable fails naming the uid, no node counted twice', async () => {
      const result = await plan('a node uid listed twice', {
        '/v1/nodes': (body) => {
          const nodes = body as Item[];
          return [...nodes, { ...nodes[0] }];
        },
      });
      assertExit(result, 3, 'plan with a node uid listed twice');
      assert.match(
        result.stdout,
        /FAIL\s+api-reachable\s+.*GET \/v1\/nodes: the management API listed node uid 1 twice \(items 0 and 3\); a node.s uid is unique in its cluster/,
      );
      assert.doesNotMatch(result.stdout, /4 node\(s\)/);
      noCrash(result);
    });

    test('a module uid listed twice: api-reachable fails naming the uid', async () => {
      const result = await plan('a module uid listed twice', {
        '/v1/modules': (body) => {
          const modules = body as Item[];
          // The same uid, another platform list: which one is true would be the answer's order.
          return [...modules, { ...modules[0], platforms: { 'rhel9/x86_64': {} } }];
        },
      });
      assertExit(result, 3, 'plan with a module uid listed twice');
      assert.match(
        result.stdout,
        /FAIL\s+api-reachable\s+.*GET \/v1\/modules: the management API listed module uid \S+ twice \(items 0 and \d+\)/,
      );
      noCrash(result);
    });

    test('a shard uid listed twice: database-availability warns naming the uid, nothing counted twice', async () => {
      const result = await plan('a shard uid listed twice', {
        '/v1/shards': (body) => {
          const shards = body as Item[];
          return [...shards, { ...shards[0], status: 'inactive' }];
        },
      });
      assertExit(result, 0, 'plan with a shard uid listed twice');
      assert.match(
        result.stdout,
        /warn\s+database-availability\s+cannot predict the availability of .*: shard placement not read \(GET \/v1\/shards: the management API listed shard uid \S+ twice \(items 0 and \d+\)/,
      );
      assert.doesNotMatch(result.stdout, /none goes down/);
      noCrash(result);
    });

    test('a database without replication and shards not read: database-availability says both', async () => {
      const result = await plan('one database down, the others not predicted', {
        '/v1/bdbs': (body) =>
          (body as Item[]).map((bdb, index) => (index === 0 ? { ...bdb, replication: false } : bdb)),
        '/v1/shards': (body) =>
          (body as Item[]).map((shard) => ({ ...shard, role: shard.role === 'master' ? 1 : 2 })),
      });
      assertExit(result, 0, 'plan with a database without replication and shards of another shape');
      assert.match(
        result.stdout,
        /warn\s+database-availability\s+1 database will be unavailable during the roll: \S+ \(no replication: [^)]*\); cannot predict the availability of .*: shard placement not read \(GET \/v1\/shards: item 0: .*role is not a string/,
      );
      assert.match(result.stdout, /Turn on replication/);
      assert.match(result.stdout, /--api-url points at the management API/);
      noCrash(result);
    });
  },
);
