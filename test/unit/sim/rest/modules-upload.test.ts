import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { strToU8 } from 'fflate';
import { describeModuleFile, handleApiRequest } from '../../../../src/sim/rest/handlers.js';
import { RestModel } from '../../../../src/sim/rest/model.js';
import { parseScenario } from '../../../../src/sim/scenario.js';
import { ScenarioError } from '../../../../src/sim/world/errors.js';
import { modulePackageBytes, zipOf } from '../../../helpers/module-package.js';
import { basicAuth, getAs } from './in-process.js';

/**
 * The cluster setting `allow_modules_upload` exists from RS 8.2 only (redis/docs
 * rs-8-2-0-25.md "Breaking changes"; rest-api/objects/cluster): the simulated API reports it in
 * GET /v1/cluster and refuses uploads by it only there; a scenario that disables uploads on an
 * older RS is refused.
 */

const ADMIN = { username: 'admin@example.com', password: 'CANARY-P@ss-upload-3e7' };

function model(serverVersion: string, modulesUpload: boolean): RestModel {
  return new RestModel({ serverVersion, modulesUpload, users: [{ ...ADMIN, role: 'admin' }] });
}

async function cluster(m: RestModel): Promise<Record<string, unknown>> {
  const answer = await getAs(m, '/v1/cluster', ADMIN);
  assert.equal(answer.status, 200);
  return answer.body as Record<string, unknown>;
}

async function upload(m: RestModel): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new FormData();
  form.append(
    'module',
    new Blob([modulePackageBytes({ module: 'ReJSON', version: '2.6.10' })]),
    'rejson.Linux-rhel9-x86_64.2.6.10.zip',
  );
  const request = new Request('http://sim.invalid/', { method: 'POST', body: form });
  const answer = await handleApiRequest(m, {
    method: 'POST',
    path: '/v2/modules',
    headers: { authorization: basicAuth(ADMIN), 'content-type': request.headers.get('content-type') ?? '' },
    body: Buffer.from(await request.arrayBuffer()),
  });
  return { status: answer.status, body: answer.body as Record<string, unknown> };
}

describe('simulated management API: allow_modules_upload by RS version', () => {
  it('RS 8.2 reports the setting and, while it is off, refuses uploads with 403 modules_upload_disabled', async () => {
    const off = model('8.2.0-46', false);
    assert.equal((await cluster(off)).allow_modules_upload, false);
    const refused = await upload(off);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error_code, 'modules_upload_disabled');

    const on = model('8.2.0-46', true);
    assert.equal((await cluster(on)).allow_modules_upload, true);
    assert.equal((await upload(on)).status, 200);
  });

  it('before RS 8.2 there is no such setting: GET /v1/cluster leaves it out and uploads are taken', async () => {
    for (const version of ['7.4.6-22', '7.22.2-179', '8.0.20-96']) {
      const old = model(version, false);
      assert.equal('allow_modules_upload' in (await cluster(old)), false, version);
      assert.equal((await upload(old)).status, 200, version);
    }
  });

  it('a cluster upgraded into RS 8.2 reports the setting from then on', async () => {
    const upgraded = model('8.0.20-96', false);
    assert.equal('allow_modules_upload' in (await cluster(upgraded)), false);
    upgraded.setServerVersion('8.2.0-46');
    assert.equal((await cluster(upgraded)).allow_modules_upload, false);
    assert.equal((await upload(upgraded)).status, 403);
  });
});

/**
 * The custom module requests (redis/docs rest-api/requests/modules/user-defined.md), from RS
 * 8.0.2 (rs-8-0-2-17.md); RS 8.2's notes name both uploads as refused with 403
 * modules_upload_disabled, "regardless of user role", while allow_modules_upload is off.
 */
describe('simulated management API: the user-defined module requests', () => {
  const VIEWER = { username: 'viewer@example.com', password: 'CANARY-P@ss-viewer-91c' };
  const CONFIG = {
    module_name: 'ledgerx',
    version: 10203,
    semantic_version: '1.2.3',
    display_name: 'Ledger X',
    commands: [
      { command_name: 'lx.add', command_arity: -1, first_key: 1, last_key: 1, step: 1, flags: ['write'] },
    ],
    command_line_args: '',
    capabilities: ['types', 'replica_of'],
    min_redis_version: '7.2',
  };
  const withViewer = (serverVersion: string, modulesUpload: boolean) =>
    new RestModel({
      serverVersion,
      modulesUpload,
      users: [
        { ...ADMIN, role: 'admin' },
        { ...VIEWER, role: 'db_viewer' },
      ],
    });
  async function post(
    m: RestModel,
    path: string,
    body: unknown,
    as = ADMIN,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    let payload: Buffer;
    let contentType: string;
    if (body instanceof FormData) {
      const request = new Request('http://sim.invalid/', { method: 'POST', body });
      contentType = request.headers.get('content-type') ?? '';
      payload = Buffer.from(await request.arrayBuffer());
    } else {
      contentType = 'application/json';
      payload = Buffer.from(JSON.stringify(body));
    }
    const answer = await handleApiRequest(m, {
      method: 'POST',
      path,
      headers: { authorization: basicAuth(as), 'content-type': contentType },
      body: payload,
    });
    return { status: answer.status, body: answer.body as Record<string, unknown> };
  }
  const artifact = (meta: Record<string, unknown>) => {
    const form = new FormData();
    form.append('module', new Blob([JSON.stringify(meta)]), 'module.json');
    return form;
  };
  const CONFIG_PATH = '/v2/modules/user-defined';
  const ARTIFACT_PATH = '/v2/local/modules/user-defined/artifacts';

  it('RS 8.2 with the setting off refuses both uploads and the v2 upload with 403 modules_upload_disabled, whatever the role', async () => {
    const off = withViewer('8.2.0-46', false);
    for (const as of [ADMIN, VIEWER]) {
      for (const [path, body] of [
        [CONFIG_PATH, CONFIG],
        [ARTIFACT_PATH, artifact(CONFIG)],
      ] as const) {
        const refused = await post(off, path, body, as);
        assert.equal(refused.status, 403, `${as.username} ${path}`);
        assert.equal(refused.body.error_code, 'modules_upload_disabled', `${as.username} ${path}`);
      }
    }
    assert.equal((await upload(off)).body.error_code, 'modules_upload_disabled');
    assert.equal(off.findModule('ledgerx', '1.2.3'), undefined, 'nothing was created');
  });

  it('with uploads allowed, the configuration makes a custom module, and its artifact a build for the nodes', async () => {
    const on = withViewer('8.2.0-46', true);
    // A reader may not: manage_cluster_modules is admin's.
    const reader = await post(on, CONFIG_PATH, CONFIG, VIEWER);
    assert.equal(reader.status, 403);
    assert.equal(reader.body.error_code, 'insufficient_permissions');
    // 406 for a configuration without its required fields, naming them.
    const partial = await post(on, CONFIG_PATH, { module_name: 'ledgerx', semantic_version: '1.2.3' });
    assert.equal(partial.status, 406);
    assert.match(
      String(partial.body.message),
      /version, display_name, commands, command_line_args, capabilities, min_redis_version/,
    );
    // An artifact before its configuration: bad metadata.
    assert.equal((await post(on, ARTIFACT_PATH, artifact(CONFIG))).status, 406);

    const created = await post(on, CONFIG_PATH, CONFIG);
    assert.equal(created.status, 200);
    assert.equal(created.body.module_name, 'ledgerx');
    assert.equal(created.body.semantic_version, '1.2.3');
    assert.equal(created.body.is_bundled, false);
    assert.deepEqual(created.body.platforms, {}, 'no build before the artifact');
    assert.equal((await post(on, CONFIG_PATH, CONFIG)).status, 406, 'the same module twice');

    const uploaded = await post(on, ARTIFACT_PATH, artifact(CONFIG));
    assert.equal(uploaded.status, 200);
    const listed = await getAs(on, '/v1/modules', ADMIN);
    const module = (listed.body as Record<string, unknown>[]).find((m) => m.module_name === 'ledgerx');
    assert.deepEqual(Object.keys((module?.platforms ?? {}) as object), ['rhel9/x86_64']);
    assert.equal(module?.uid, created.body.uid);
  });

  it('RS 8.0.2 and later serve them without the setting; an older RS has no such paths (404)', async () => {
    const rs80 = withViewer('8.0.20-96', false);
    assert.equal((await post(rs80, CONFIG_PATH, CONFIG)).status, 200);
    assert.equal((await post(rs80, ARTIFACT_PATH, artifact(CONFIG))).status, 200);
    for (const version of ['7.22.2-179', '8.0.0-1']) {
      const old = withViewer(version, true);
      assert.equal((await post(old, CONFIG_PATH, CONFIG)).status, 404, version);
      assert.equal((await post(old, ARTIFACT_PATH, artifact(CONFIG))).status, 404, version);
    }
  });
});

describe('scenario: api.modulesUpload disabled needs RS 8.2', () => {
  const scenario = (operator: string, tag: string) =>
    [
      'name: uploads',
      'description: uploads disabled',
      `operator: { version: ${operator} }`,
      `cluster: { versionTag: ${tag} }`,
      'api: { modulesUpload: disabled }',
      '',
    ].join('\n');

  it('is taken on an RS 8.2 cluster', () => {
    assert.equal(parseScenario(scenario('8.2.0-13', '8.2.0-46.13'), 'ok.yaml').api.modulesUpload, 'disabled');
  });

  it('is a scenario error on an older RS, naming the key and the version', () => {
    assert.throws(
      () => parseScenario(scenario('8.0.20-26', '8.0.20-96.26'), 'old.yaml'),
      (error: Error) => {
        assert.ok(error instanceof ScenarioError, String(error));
        assert.equal(error.exitCode, 2);
        assert.match(
          error.message,
          /^old\.yaml: api\.modulesUpload: disabled needs Redis Software 8\.2 or later, .*allow_modules_upload.*runs 8\.0\.20-96 \(cluster\.apiVersion\)/,
        );
        return true;
      },
    );
  });
});

/**
 * The systems a package is taken for, as the cluster's unpacker reads them (RedisLabsModules/RAMP
 * RAMP/unpacker.py): `operating_systems`, or `os_list` of the packers of early 2023; never `os`.
 */
describe('simulated management API: the systems of a module package', () => {
  const read = (fields: Record<string, unknown>) =>
    describeModuleFile(
      'rejson.zip',
      zipOf({
        'module.json': JSON.stringify({
          module_name: 'ReJSON',
          semantic_version: '2.6.10',
          architecture: 'x86_64',
          ...fields,
        }),
        'rejson.so': 'a stand-in',
      }),
    );

  it('reads operating_systems, else os_list; a package that lists none is taken for the nodes (rhel9)', () => {
    assert.deepEqual(read({ operating_systems: ['rhel9'] })?.platforms, ['rhel9/x86_64']);
    assert.deepEqual(read({ os: 'Linux', os_list: ['rhel8'] })?.platforms, ['rhel8/x86_64']);
    assert.deepEqual(read({ os: 'rhel8' })?.platforms, ['rhel9/x86_64']);
    assert.deepEqual(read({ os_list: ['rhel9'], architecture: 'aarch64' })?.platforms, ['rhel9/aarch64']);
  });

  it('refuses what the unpacker refuses: an entry with no system and version, an architecture not 64-bit', () => {
    assert.equal(read({ operating_systems: ['Linux'] }), undefined);
    assert.equal(read({ os_list: 'rhel9' }), undefined);
    assert.equal(read({ operating_systems: ['rhel9'], architecture: 'arm64' }), undefined);
  });
});

/**
 * POST /v2/modules unpacks as the cluster's unpacker does (RedisLabsModules/RAMP RAMP/unpacker.py;
 * src/sim/rest/module-package.ts): it refuses what the unpacker refuses, with 400 invalid_module.
 */
describe('simulated management API: POST /v2/modules refuses what the unpacker refuses', () => {
  const GOOD = {
    module_name: 'ReJSON',
    version: 20610,
    semantic_version: '2.6.10',
    operating_systems: ['rhel9'],
    architecture: 'x86_64',
    module_file: 'rejson.so',
  };
  const packageOf = (
    meta: Record<string, unknown>,
    files: Record<string, string> = { 'rejson.so': 'binary' },
  ) => zipOf({ 'module.json': JSON.stringify(meta), ...files });
  const without = (key: string) => Object.fromEntries(Object.entries(GOOD).filter(([k]) => k !== key));

  async function send(bytes: Uint8Array): Promise<{ status: number; body: Record<string, unknown> }> {
    const m = model('7.22.2-179', true);
    const form = new FormData();
    form.append('module', new Blob([bytes]), 'rejson.Linux-rhel9-x86_64.2.6.10.zip');
    const request = new Request('http://sim.invalid/', { method: 'POST', body: form });
    const answer = await handleApiRequest(m, {
      method: 'POST',
      path: '/v2/modules',
      headers: { authorization: basicAuth(ADMIN), 'content-type': request.headers.get('content-type') ?? '' },
      body: Buffer.from(await request.arrayBuffer()),
    });
    return { status: answer.status, body: answer.body as Record<string, unknown> };
  }

  it('takes a package with module.json, its .so and deps/', async () => {
    const taken = await send(
      packageOf(GOOD, { 'rejson.so': 'binary', 'deps/': '', 'deps/libssl.so.3': 'x' }),
    );
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    assert.deepEqual(Object.keys(taken.body.platforms as object), ['rhel9/x86_64']);
  });

  it('refuses each package the unpacker refuses, with 400 invalid_module and its reason', async () => {
    const cases: [string, Uint8Array, RegExp][] = [
      ['not a zip', strToU8('not really a zip'), /Failed to extract bundle/],
      ['a file besides', packageOf(GOOD, { 'rejson.so': 'x', 'README.md': 'x' }), /zip file content invalid/],
      ['two modules', packageOf(GOOD, { 'rejson.so': 'x', 'other.so': 'x' }), /zip file content invalid/],
      ['no module.json', zipOf({ 'rejson.so': 'x' }), /no item named 'module\.json'/],
      [
        'module.json not JSON',
        zipOf({ 'module.json': '{', 'rejson.so': 'x' }),
        /Failed to read module\.json/,
      ],
      ['no module_file', packageOf(without('module_file')), /no "module_file"/],
      ['module_file not in the zip', packageOf({ ...GOOD, module_file: 'x.so' }), /no item named 'x\.so'/],
      ['empty module_name', packageOf({ ...GOOD, module_name: '' }), /Empty module name/],
      ['no architecture', packageOf(without('architecture')), /no "architecture"/],
      ['arm64', packageOf({ ...GOOD, architecture: 'arm64' }), /Architecture must be 64 bits/],
      ['no version', packageOf(without('version')), /no "version"/],
      ['version 0', packageOf({ ...GOOD, version: 0 }), /Missing version/],
      ['version v2', packageOf({ ...GOOD, version: 'v2' }), /Module version should be an integer/],
      [
        'an os that does not parse',
        packageOf({ ...GOOD, operating_systems: ['Linux'] }),
        /Can't parse OS 'Linux'/,
      ],
      ['os as a string', packageOf({ ...GOOD, operating_systems: 'rhel9' }), /Can't parse OS 'r'/],
    ];
    for (const [what, bytes, reason] of cases) {
      const refused = await send(bytes);
      assert.equal(refused.status, 400, what);
      assert.equal(refused.body.error_code, 'invalid_module', what);
      assert.match(String(refused.body.message), reason, what);
    }
  });

  it('names the systems as Redis Enterprise does: RAMP maps rocky9 and the other rebuilds to rhel9', async () => {
    for (const [os, platform] of [
      ['rocky9', 'rhel9/x86_64'],
      ['almalinux9', 'rhel9/x86_64'],
      ['oracle8', 'rhel8/x86_64'],
      ['rhel9.4', 'rhel9.4/x86_64'],
    ] as const) {
      const taken = await send(packageOf({ ...GOOD, operating_systems: [os] }));
      assert.equal(taken.status, 200, os);
      assert.deepEqual(Object.keys(taken.body.platforms as object), [platform], os);
    }
  });
});
