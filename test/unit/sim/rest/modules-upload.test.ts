import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { handleApiRequest } from '../../../../src/sim/rest/handlers.js';
import { RestModel } from '../../../../src/sim/rest/model.js';
import { parseScenario } from '../../../../src/sim/scenario.js';
import { ScenarioError } from '../../../../src/sim/world/errors.js';
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
  form.append('module', new Blob([Buffer.from('zip')]), 'rejson.Linux-rhel9-x86_64.2.6.10.zip');
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
