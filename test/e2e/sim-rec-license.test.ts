/**
 * What a client of `ctl sim up` sees of the cluster's licence and of its own user, with the real
 * kubectl and helm:
 * - `kubectl get rec` shows the printer columns of the operator release that runs: the licence's
 *   SHARDS LIMIT before 7.8.6-1, the SHARDS in use from it on (each release's REC CRD,
 *   src/sim/crds.ts clusterPrinterColumns), and they change when the operator is upgraded, by
 *   bundle (its CRDs are applied with it) or by helm (the chart's pre-upgrade hook applies them);
 * - GET /v1/license (redis/docs rest-api/requests/license) answers the licence the REC's
 *   `status.licenseStatus` reports, to every role but none (permission view_license);
 * - `<dir>/env` names the scenario's first user, an RBAC user here, not the admin after it.
 * The scenario is written here, with names used nowhere else.
 */

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Agent, fetch } from 'undici';
import { kubectlFor, makeToolSandbox, runTool, type ToolSandbox } from '../helpers/tools.js';
import { readEnvFile, type SimProcess, startSimUp } from './sim-process.js';
import {
  parseTable,
  REC_COLUMNS,
  REC_COLUMNS_SHARDS_LIMIT,
  type SimHarness,
  startHarness,
} from './sim-support.js';

const SCENARIO = [
  'name: vault-licence',
  'description: "An RBAC night-shift user first, an operator before 7.8.6-1"',
  'namespace: vault-east',
  'kubernetesVersion: "1.31"',
  'operator: { version: 7.8.4-9 }',
  'cluster:',
  '  name: vault',
  '  nodes: 3',
  '  roles: [{ name: Night shift, management: cluster_viewer }]',
  '  users:',
  '    - { username: night@example.org, password: night-pass, role: none, roles: [Night shift] }',
  '    - { username: root@example.org, password: root-pass, role: admin }',
  '    - { username: nobody@example.org, password: nobody-pass, role: none }',
  'databases:',
  // 2 masters and their 2 replicas: 4 shards.
  '  - { name: ledger, version: "7.2", shards: 2 }',
  '',
].join('\n');

const NEXT_OPERATOR = '7.8.6-1';

describe('ctl sim up: the licence and the user a rehearsal signs in as', () => {
  let sandbox: ToolSandbox;
  let sim: SimProcess;
  let env: Record<string, string>;
  let dispatcher: Agent;

  const kubectl = async (args: string[]) => {
    const result = await runTool(kubectlFor('1.31'), args, {
      env: { ...sandbox.env, KUBECONFIG: env.KUBECONFIG },
    });
    assert.equal(result.code, 0, `kubectl ${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };
  const api = async (urlPath: string, username: string, password: string) => {
    const response = await fetch(`${env.CTL_API_URL}${urlPath}`, {
      headers: { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` },
      dispatcher,
    });
    const text = await response.text();
    return {
      status: response.status,
      body: (text ? JSON.parse(text) : undefined) as Record<string, unknown>,
    };
  };
  const licenseStatus = async () =>
    JSON.parse(await kubectl(['get', 'rec', 'vault', '-o', 'jsonpath={.status.licenseStatus}'])) as Record<
      string,
      unknown
    >;

  before(async () => {
    sandbox = makeToolSandbox('ctl-sim-licence-');
    const file = path.join(sandbox.dir, 'vault-licence.yaml');
    writeFileSync(file, SCENARIO);
    sim = await startSimUp(['--scenario', file, '--fast', '--dir', 'state'], sandbox.dir);
    env = readEnvFile(path.join(sim.ready.dir, 'env'));
    dispatcher = new Agent({ connect: { ca: readFileSync(env.CTL_CA_FILE ?? '', 'utf8') } });
  });
  after(async () => {
    await dispatcher?.close();
    if (sim && sim.child.exitCode === null) {
      sim.child.kill('SIGKILL');
      await sim.exited;
    }
    sandbox?.cleanup();
  });

  test('the env file names the first user (an RBAC user), not the admin listed after it', () => {
    assert.equal(env.CTL_USERNAME, 'night@example.org');
    assert.equal(env.CTL_PASSWORD, 'night-pass');
  });

  test('operator 7.8.4-9: kubectl get rec shows SHARDS LIMIT, and the status has no shardsUsage', async () => {
    const table = parseTable(await kubectl(['get', 'rec']));
    assert.deepEqual(table.header, REC_COLUMNS_SHARDS_LIMIT);
    assert.equal(table.rows[0]?.NAME, 'vault');
    assert.equal(table.rows[0]?.['SHARDS LIMIT'], '12');
    const status = await licenseStatus();
    assert.equal(status.licenseState, 'Valid');
    assert.equal(status.shardsLimit, 12);
    // Fields 7.8.6-1 added (its notes' "API changes"): an older operator writes none of them.
    for (const added of ['shardsUsage', 'ramShards', 'ramShardsLimit', 'flashShards'])
      assert.equal(status[added], undefined, added);
  });

  test('GET /v1/license, as the env file’s user, answers the licence the REC reports', async () => {
    const { status, body } = await api('/v1/license', env.CTL_USERNAME ?? '', env.CTL_PASSWORD ?? '');
    assert.equal(status, 200, JSON.stringify(body));
    const rec = await licenseStatus();
    assert.equal(body.expired, false);
    assert.equal(body.activation_date, rec.activationDate);
    assert.equal(body.expiration_date, rec.expirationDate);
    assert.equal(body.shards_limit, rec.shardsLimit);
    assert.equal(body.ram_shards_limit, rec.shardsLimit);
    assert.equal(body.flash_shards_limit, 0);
    const shards = await api('/v1/shards', 'root@example.org', 'root-pass');
    assert.equal((shards.body as unknown as unknown[]).length, 4);
    assert.equal(body.ram_shards_in_use, 4);
    assert.equal(body.flash_shards_in_use, 0);
    assert.equal(body.cluster_name, 'vault.vault-east.svc.cluster.local');
    assert.ok(Array.isArray(body.features), JSON.stringify(body));
    assert.equal(typeof body.license, 'string');
    assert.equal(typeof body.owner, 'string');
  });

  test('GET /v1/license: a user of role none may not (view_license), a wrong password is 401', async () => {
    const refused = await api('/v1/license', 'nobody@example.org', 'nobody-pass');
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(typeof refused.body.error_code, 'string');
    const unknown = await api('/v1/license', 'nobody@example.org', 'not-the-password');
    assert.equal(unknown.status, 401);
  });

  test(`the ${NEXT_OPERATOR} bundle applied: SHARDS in use replaces SHARDS LIMIT`, async () => {
    const response = await fetch(env.CTL_BUNDLE?.replace('{version}', NEXT_OPERATOR) ?? '');
    assert.equal(response.status, 200);
    const bundle = path.join(sandbox.dir, 'bundle.yaml');
    writeFileSync(bundle, await response.text());
    await kubectl(['apply', '--server-side', '-f', bundle]);
    await kubectl(['rollout', 'status', 'deployment/redis-enterprise-operator', '--timeout=60s']);
    const table = parseTable(await kubectl(['get', 'rec']));
    assert.deepEqual(table.header, REC_COLUMNS);
    assert.equal(table.rows[0]?.SHARDS, '4');
    const status = await licenseStatus();
    assert.equal(status.shardsUsage, '4');
    assert.equal(status.ramShards, 4);
    assert.equal(status.shardsLimit, 12);
  });
});

describe('sim: helm upgrade to 7.8.6-1 brings the REC CRD of that release', () => {
  let sim: SimHarness;
  before(async () => {
    sim = await startHarness('helm-installed');
  });
  after(async () => {
    await sim?.close();
  });

  test('kubectl get rec: SHARDS LIMIT under 7.4.6-2, SHARDS once the 7.8.6-1 operator runs', async () => {
    assert.deepEqual(parseTable((await sim.kubectl(['get', 'rec'])).stdout).header, REC_COLUMNS_SHARDS_LIMIT);
    await sim.helm(3, [
      'upgrade',
      'redis-enterprise',
      'redis-enterprise-operator',
      '--repo',
      sim.cluster.artifactsUrl,
      '--version',
      NEXT_OPERATOR,
    ]);
    await sim.kubectl(['rollout', 'status', 'deployment/redis-enterprise-operator', '--timeout=60s']);
    const table = parseTable((await sim.kubectl(['get', 'rec'])).stdout);
    assert.deepEqual(table.header, REC_COLUMNS);
    // orders and cache, one master and one replica each.
    assert.equal(table.rows[0]?.SHARDS, '4');
  });
});
