/**
 * The management API's modules, shards, nodes, database list and actions held to the shapes the
 * REST reference gives them (src/api/module-shape.ts, shard-shape.ts, node-shape.ts,
 * bdb-shape.ts, action-shape.ts): a field of another type, or a uid listed twice, is
 * a `MalformedAnswerError` naming the item and the field, never a wrong reading further in. The
 * client is driven through a scripted server (scripted-http.ts); the plan's checks through the
 * snapshot fixture.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MalformedAnswerError } from '../../../src/api/api-errors.js';
import { authorize, refreshToken } from '../../../src/api/authorize.js';
import { mistypedField } from '../../../src/api/answer-fields.js';
import { checkBdbShape, checkUniqueBdbUids } from '../../../src/api/bdb-shape.js';
import { ApiClient } from '../../../src/api/client.js';
import { checkActionShape, checkModuleUploadAnswer } from '../../../src/api/action-shape.js';
import { checkModuleShape } from '../../../src/api/module-shape.js';
import { checkNodesShape } from '../../../src/api/node-shape.js';
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

describe('a database uid beyond what a JSON number holds exactly', () => {
  // objects/bdb: uid is an "integer ... Can be set during creation", with no maximum. Above
  // 2^53 - 1 JSON.parse rounds it: 9007199254740993 reads as 9007199254740992.
  it('is refused, naming the limit, instead of being acted on with a rounded uid', async () => {
    const rounded = JSON.parse('[{"uid": 9007199254740993, "name": "orders"}]') as { uid: number }[];
    assert.equal(rounded[0]?.uid, 9007199254740992, 'JSON.parse rounds it');
    const client = clientAnswering({ '/v1/bdbs': rounded });
    await assert.rejects(client.listBdbs(), (error: unknown) => {
      assert.ok(error instanceof MalformedAnswerError, String(error));
      assert.match(
        error.message,
        /^GET \/v1\/bdbs: item 0: the management API answered a database uid above 9007199254740991 \(read as 9007199254740992\), which ctl cannot hold exactly/,
      );
      assert.match(error.hint ?? '', /by hand/);
      return true;
    });
    // The largest exact one is read as it is.
    const largest = clientAnswering({ '/v1/bdbs': [{ uid: Number.MAX_SAFE_INTEGER, name: 'orders' }] });
    assert.equal((await largest.listBdbs())[0]?.uid, Number.MAX_SAFE_INTEGER);
  });
});

describe('the module list: a uid listed twice', () => {
  it('names the uid and both items; two builds of one version with two uids are two modules', async () => {
    const rhel9 = { ...search, uid: '2', platforms: { 'rhel9/x86_64': {} } };
    const twice = clientAnswering({ '/v1/modules': [search, { ...rhel9, uid: '1' }] });
    await assert.rejects(
      twice.listModules(),
      malformed(/^GET \/v1\/modules: the management API listed module uid 1 twice \(items 0 and 1\)/),
    );
    const two = clientAnswering({ '/v1/modules': [search, rhel9] });
    assert.equal((await two.listModules()).length, 2);
    assert.throws(
      () => checkModuleShape({ ...search, uid: 1 }, 'm'),
      malformed(/uid is not a string \(it is a number\)/),
    );
  });
});

describe('the shard list: a uid listed twice', () => {
  const shard = { uid: '1', bdb_uid: 1, node_uid: '1', role: 'master', status: 'active' };

  it('names the uid and both items, the text "3" and the integer 3 being one uid', () => {
    assert.throws(
      () =>
        checkShardsShape(
          [shard, { ...shard, uid: '3' }, { ...shard, uid: 3, status: 'inactive' }],
          'GET /v1/shards',
        ),
      malformed(/^GET \/v1\/shards: the management API listed shard uid 3 twice \(items 1 and 2\)/),
    );
    checkShardsShape(
      [shard, { ...shard, uid: '2', role: 'slave' }, { ...shard, uid: undefined }],
      'GET /v1/shards',
    );
  });

  it('the plan does not read it: its prediction says why', async () => {
    const read = await readShards(clientAnswering({ '/v1/shards': [shard, shard] }));
    assert.ok(!read.read);
    assert.match(read.why, /listed shard uid 1 twice/);
  });
});

describe('a node of GET /v1/nodes', () => {
  const node = { uid: 1, software_version: '7.4.6-22', status: 'active', addr: '10.0.0.1' };

  it('status, uid, software_version of other types name the item and the field', () => {
    for (const [wrong, named] of [
      [
        { status: 1 },
        /^GET \/v1\/nodes: the management API answered a node \(item 1\) whose status is not a string \(it is a number\)/,
      ],
      [{ uid: '2' }, /node \(item 1\) whose uid is not an integer \(it is a string\)/],
      [{ uid: 2.5 }, /uid is not an integer/],
      [{ software_version: 7 }, /software_version is not a string/],
      [{ uid: undefined }, /a node \(item 1\) without its uid/],
      [{ software_version: null }, /a node \(item 1\) without its software_version/],
    ] as const) {
      assert.throws(
        () => checkNodesShape([node, { ...node, uid: 2, ...wrong }], 'GET /v1/nodes'),
        malformed(named),
      );
    }
    assert.throws(() => checkNodesShape({}, 'GET /v1/nodes'), malformed(/an object instead of a list/));
    assert.throws(() => checkNodesShape([null], 'GET /v1/nodes'), malformed(/item 0 is null, not a node/));
  });

  it('a uid listed twice names it and both items', () => {
    assert.throws(
      () => checkNodesShape([node, { ...node, uid: 2 }, { ...node }], 'GET /v1/nodes'),
      malformed(/^GET \/v1\/nodes: the management API listed node uid 1 twice \(items 0 and 2\)/),
    );
  });

  it('a status left out or null is absent; a status ctl does not know is text, read where judged', () => {
    const nodes: Record<string, unknown>[] = [
      { ...node, status: null },
      { ...node, uid: 2, status: 'recovering' },
      { uid: 3, software_version: '7.4.6-22' },
    ];
    checkNodesShape(nodes, 'GET /v1/nodes');
    assert.ok(!('status' in nodes[0]!));
  });

  it('the client refuses the list (every reader of nodes goes through it)', async () => {
    const client = clientAnswering({ '/v1/nodes': [node, { ...node, uid: 2, status: 1 }] });
    await assert.rejects(client.listNodes(), malformed(/^GET \/v1\/nodes: .*node \(item 1\) whose status/));
    const text = clientAnswering({ '/v1/nodes': '<html>proxy</html>' });
    await assert.rejects(text.listNodes(), malformed(/answered text, not JSON instead of a list/));
  });
});

describe('the answers a run acts on: an action, an upload', () => {
  const action = { action_uid: 'a-1', name: 'module_upload', status: 'active', progress: 50 };

  it('an action of another shape names the field; never taken for done', () => {
    for (const [wrong, named] of [
      [
        { status: 1 },
        /^GET \/v1\/actions\/a-1: the management API answered an action whose status is not a string \(it is a number\)/,
      ],
      [{ status: undefined }, /an action without its status/],
      [{ progress: true }, /progress is not a number or a string/],
      [{ progress: 'half' }, /progress is not a number \(it is the text "half"\)/],
      [{ error_message: { text: 'x' } }, /error_message is not a string \(it is an object\)/],
      [{ action_uid: 'a-2', status: 'completed' }, /answered the action "a-2", not the one asked for/],
      [{ additional_info: 'x' }, /additional_info is not an object/],
    ] as const) {
      assert.throws(
        () => checkActionShape({ ...action, ...wrong }, 'a-1', 'GET /v1/actions/a-1'),
        malformed(named),
      );
    }
    assert.throws(
      () => checkActionShape([action], 'a-1', 'GET /v1/actions/a-1'),
      malformed(/a list instead of an action/),
    );
  });

  it("a progress in text, as the reference's own example answers it, is its number; null is absent", () => {
    const answered: Record<string, unknown> = {
      ...action,
      progress: '100',
      status: 'completed',
      error_code: null,
    };
    checkActionShape(answered, 'a-1', 'GET /v1/actions/a-1');
    assert.equal(answered.progress, 100);
    assert.ok(!('error_code' in answered));
  });

  it("a database's running action_uid, which a resumed remediation waits for, is text", () => {
    assert.throws(
      () => checkBdbShape({ uid: 1, name: 'orders', action_uid: 5 }, 'GET /v1/bdbs/1'),
      malformed(
        /^GET \/v1\/bdbs\/1: the management API answered a database whose action_uid is not a string/,
      ),
    );
  });

  it('the client checks the action it reads', async () => {
    const client = clientAnswering({ '/v1/actions/a-1': { ...action, status: 7 } });
    await assert.rejects(
      client.getAction('a-1'),
      malformed(/^GET \/v1\/actions\/a-1: .*status is not a string/),
    );
  });

  it("an upload's answer: the module and a non-empty action_uid, else named", async () => {
    const uploaded = { ...search, action_uid: 'a-9' };
    checkModuleUploadAnswer(uploaded, 'POST /v2/modules (m.zip)');
    for (const [wrong, named] of [
      [
        { action_uid: undefined },
        /^POST \/v2\/modules \(m\.zip\): the management API answered without the action_uid of the action it started/,
      ],
      [{ action_uid: 42 }, /an action_uid that is a number, not the text of an action's uid/],
      [{ action_uid: ' ' }, /an action_uid that is empty/],
      [{ module_name: undefined }, /a module without its module_name and semantic_version/],
      [{ platforms: ['rhel9/x86_64'] }, /platforms is a list/],
    ] as const) {
      assert.throws(
        () => checkModuleUploadAnswer({ ...uploaded, ...wrong }, 'POST /v2/modules (m.zip)'),
        malformed(named),
      );
    }
    assert.throws(
      () => checkModuleUploadAnswer('ok', 'POST /v2/modules (m.zip)'),
      malformed(/a string instead of the module it uploads/),
    );
    const client = clientAnswering({ '/v2/modules': { ...search } });
    await assert.rejects(
      client.uploadModule('m.zip', new Uint8Array([1])),
      malformed(/^POST \/v2\/modules \(m\.zip\): .*without the action_uid/),
    );
  });
});

describe('database-availability with a database going down and others not predicted', () => {
  it('says both: the database down and why the others could not be predicted, with both fixes', () => {
    const snapshot = makeSnapshot((s) => {
      s.databases.push({ ...s.databases[0]!, uid: 'uid-db2', name: 'db2', databaseUid: '2' });
      s.api.bdbs = [
        { ...s.api.bdbs[0]!, replication: false },
        { ...s.api.bdbs[0]!, uid: 2, name: 'db2', replication: true },
      ];
      s.api.shards = {
        read: false,
        why: 'GET /v1/shards: the management API listed shard uid 1 twice (items 0 and 1)',
        fix: 'Check that --api-url points at the management API (port 9443) and not at a proxy or another service.',
      };
    });
    const check = runChecks(snapshot, makeTarget({ to: '7.8.2-6' }), { required: REQUIRED_PERMISSIONS }).find(
      (c) => c.id === 'database-availability',
    );
    assert.equal(check?.status, 'warn');
    assert.match(
      check?.message ?? '',
      /^1 database will be unavailable during the roll: redis\/db1 \(no replication: .*\); cannot predict the availability of redis\/db2: shard placement not read \(GET \/v1\/shards: .*shard uid 1 twice/,
    );
    assert.match(check?.fix ?? '', /^Turn on replication .* --api-url points at the management API/);
  });
});
