/**
 * The management API's modules, shards and database list held to the shapes the REST reference
 * gives them (src/api/module-shape.ts, shard-shape.ts, bdb-shape.ts): a field of another type is
 * a `MalformedAnswerError` naming the item and the field, never a wrong reading further in. The
 * client is driven through a scripted server (scripted-http.ts); the plan's checks through the
 * snapshot fixture.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MalformedAnswerError } from '../../../src/api/api-errors.js';
import { authorize, refreshToken } from '../../../src/api/authorize.js';
import { mistypedField } from '../../../src/api/answer-fields.js';
import { checkUniqueBdbUids } from '../../../src/api/bdb-shape.js';
import { ApiClient } from '../../../src/api/client.js';
import { checkModuleShape } from '../../../src/api/module-shape.js';
import { checkShardsShape } from '../../../src/api/shard-shape.js';
import { TokenSource } from '../../../src/api/token-source.js';
import { runChecks } from '../../../src/planning/checks/index.js';
import { readShards } from '../../../src/planning/shard-reads.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from '../planning/snapshot-fixture.js';
import { ADMIN } from '../sim/rest/fixture.js';
import { fakeJwt, scriptedHttp } from './scripted-http.js';

/** A client whose server answers `answers[path]` (200) to each GET, and signs in. */
function clientAnswering(answers: Record<string, unknown>): ApiClient {
  const { http } = scriptedHttp((request) => {
    const path = request.path.split('?')[0] ?? '';
    if (path in answers) return { status: 200, body: structuredClone(answers[path]) };
    return { status: 200, body: { access_token: fakeJwt(300) } };
  });
  const tokens = new TokenSource({
    obtain: () => authorize(http, ADMIN, { ttl: 300, form: 'auto' }),
    refresh: (current) => refreshToken(http, current, {}),
  });
  return new ApiClient(http, tokens, ADMIN.username);
}

function malformed(pattern: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof MalformedAnswerError, `a MalformedAnswerError, not ${String(error)}`);
    assert.match(error.message, pattern);
    assert.match(error.hint ?? '', /--api-url/);
    return true;
  };
}

const search = {
  uid: '1',
  module_name: 'search',
  semantic_version: '2.8.4',
  is_bundled: false,
  platforms: { 'rhel8/x86_64': { dependencies: {}, sha256: 'ab' } },
};

describe('the fields of one object', () => {
  it('null is absent; another type names the field, what it should be and what it is', () => {
    const item: Record<string, unknown> = { a: null, b: 1, c: 'x' };
    assert.equal(mistypedField(item, { a: 'string', b: 'integer', c: 'string' }), undefined);
    assert.ok(!('a' in item), 'null dropped');
    assert.equal(mistypedField({ b: 1.5 }, { b: 'integer' }), 'b is not an integer (it is a number)');
    assert.equal(
      mistypedField({ u: true }, { u: ['string', 'integer'] }),
      'u is not a string or an integer (it is a boolean)',
    );
    assert.equal(mistypedField({ o: [] }, { o: 'object' }), 'o is not an object (it is a list)');
  });
});

describe('a module of GET /v1/modules', () => {
  it('platforms as a list names the module and the field', () => {
    assert.throws(
      () => checkModuleShape({ ...search, platforms: ['rhel9/x86_64'] }, 'GET /v1/modules: item 3'),
      malformed(
        /^GET \/v1\/modules: item 3 \(search 2\.8\.4\): the management API answered a module whose platforms is a list, not an object keyed by platform/,
      ),
    );
  });

  it('platforms as text, is_bundled as text, semantic_version as a number: each named', () => {
    assert.throws(
      () => checkModuleShape({ ...search, platforms: 'rhel9/x86_64' }, 'm'),
      malformed(/platforms is a string/),
    );
    assert.throws(
      () => checkModuleShape({ ...search, is_bundled: 'no' }, 'm'),
      malformed(/is_bundled is not a boolean/),
    );
    assert.throws(
      () => checkModuleShape({ ...search, semantic_version: 20804 }, 'm'),
      malformed(/^m \(search\): .* semantic_version is not a string \(it is a number\)/),
    );
  });

  it("a module's name goes into the message on one line and short", () => {
    assert.throws(
      () => checkModuleShape({ module_name: `evil\x1b[2J${'x'.repeat(200)}`, platforms: [] }, 'm'),
      (error: Error) => {
        assert.doesNotMatch(error.message, /\x1b/);
        assert.match(error.message, /\(evil\\x1b\[2Jx+…\)/);
        return true;
      },
    );
  });

  it('platforms null or left out is absent (cannot tell), an object is read', () => {
    const nulled: Record<string, unknown> = { ...search, platforms: null };
    checkModuleShape(nulled, 'm');
    assert.ok(!('platforms' in nulled));
    checkModuleShape({ ...search }, 'm');
    const { platforms: _left, ...without } = search;
    checkModuleShape(without, 'm');
  });

  it('the client refuses a module list with platforms as a list, naming the item', async () => {
    const client = clientAnswering({
      '/v1/modules': [
        search,
        { ...search, uid: '2', semantic_version: '2.10.8', platforms: ['rhel9/x86_64'] },
      ],
    });
    await assert.rejects(
      client.listModules(),
      malformed(/^GET \/v1\/modules: item 1 \(search 2\.10\.8\): .*platforms is a list/),
    );
  });
});

describe('a shard of GET /v1/shards', () => {
  const shard = {
    uid: '1',
    bdb_uid: 1,
    node_uid: '1',
    role: 'master',
    status: 'active',
    detailed_status: 'ok',
  };

  it('a role answered as a number names the item and the field', () => {
    assert.throws(
      () => checkShardsShape([shard, { ...shard, uid: '2', role: 1 }], 'GET /v1/shards'),
      malformed(
        /^GET \/v1\/shards: item 1: the management API answered a shard whose role is not a string \(it is a number\)/,
      ),
    );
  });

  it('status, detailed_status, assigned_slots of other types; bdb_uid missing or not an integer', () => {
    for (const [wrong, named] of [
      [{ status: 0 }, /status is not a string/],
      [{ detailed_status: ['ok'] }, /detailed_status is not a string \(it is a list\)/],
      [{ assigned_slots: 0 }, /assigned_slots is not a string/],
      [{ bdb_uid: '1' }, /bdb_uid is not an integer \(it is a string\)/],
      [{ bdb_uid: undefined }, /a shard without its bdb_uid/],
      [{ node_uid: {} }, /node_uid is not a string or an integer/],
    ] as const) {
      assert.throws(() => checkShardsShape([{ ...shard, ...wrong }], 'GET /v1/shards'), malformed(named));
    }
    assert.throws(() => checkShardsShape({}, 'GET /v1/shards'), malformed(/an object instead of a list/));
    assert.throws(
      () => checkShardsShape([7], 'GET /v1/shards'),
      malformed(/item 0: .* a number instead of a shard/),
    );
  });

  it('a node uid as an integer is the same uid; null fields are absent', () => {
    const shards = [{ ...shard, node_uid: 2, uid: 5, role: null }];
    checkShardsShape(shards, 'GET /v1/shards');
    assert.ok(!('role' in shards[0]!));
  });

  it('the plan: a malformed shard list is not read, says why and what to do', async () => {
    const client = clientAnswering({ '/v1/shards': [shard, { ...shard, uid: '2', role: 1 }] });
    const read = await readShards(client);
    assert.equal(read.read, false);
    assert.ok(!read.read);
    assert.match(read.why, /^GET \/v1\/shards: item 1: .*role is not a string/);
    assert.match(read.fix ?? '', /--api-url/);
  });

  it('database-availability warns once with the reason and the fix of the answer, not the role advice', () => {
    const snapshot = makeSnapshot((s) => {
      s.api.shards = {
        read: false,
        why: 'GET /v1/shards: item 1: the management API answered a shard whose role is not a string (it is a number)',
        fix: 'Check that --api-url points at the management API (port 9443) and not at a proxy or another service.',
      };
    });
    const check = runChecks(snapshot, makeTarget({ to: '7.8.2-6' }), { required: REQUIRED_PERMISSIONS }).find(
      (c) => c.id === 'database-availability',
    );
    assert.equal(check?.status, 'warn');
    assert.match(
      check?.message ?? '',
      /^cannot predict the availability of redis\/db1: shard placement not read \(GET \/v1\/shards: item 1: .*role is not a string/,
    );
    assert.match(check?.fix ?? '', /--api-url/);
    assert.doesNotMatch(check?.fix ?? '', /view_bdb_info/);
  });
});

describe('the database list of GET /v1/bdbs', () => {
  it('a uid listed twice names the uid and both items', () => {
    assert.throws(
      () => checkUniqueBdbUids([{ uid: 1 }, { uid: 2 }, { uid: 1 }], 'GET /v1/bdbs'),
      malformed(/^GET \/v1\/bdbs: the management API listed database uid 1 twice \(items 0 and 2\)/),
    );
    checkUniqueBdbUids([{ uid: 1 }, { uid: 2 }], 'GET /v1/bdbs');
  });

  it('the client refuses it, with fields= and without', async () => {
    const bdb = { uid: 4, name: 'orders', redis_version: '7.2' };
    const client = clientAnswering({ '/v1/bdbs': [bdb, { ...bdb, name: 'orders-again' }] });
    await assert.rejects(
      client.listBdbs(['uid', 'name']),
      malformed(/^GET \/v1\/bdbs\?fields=uid,name: .*uid 4 twice/),
    );
    await assert.rejects(client.listBdbs(), malformed(/^GET \/v1\/bdbs: .*uid 4 twice \(items 0 and 1\)/));
  });
});
