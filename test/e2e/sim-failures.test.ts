/**
 * The failure scenarios, driven by hand with the real kubectl: each reaches its documented
 * state (redis-facts.md §3), says why in the operator's log (`kubectl logs
 * deploy/redis-enterprise-operator`, where the docs send users), and a frozen upgrade lifts
 * after the documented management API calls, made here with plain HTTPS. The one Event is
 * the documented one: InvalidUpgrade's warning (RED-188354).
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { defaultClusterTag } from '../helpers/simulator.js';
import { modulePackageBytes } from '../helpers/module-package.js';
import {
  applyOperatorBundle,
  eventually,
  FormData,
  operatorLog,
  operatorLogErrors,
  parseTable,
  type SimHarness,
  startHarness,
  versionTagPatch,
  warningEvents,
} from './sim-support.js';

const TARGET_OPERATOR = '7.8.2-6';
const TARGET_TAG = defaultClusterTag(TARGET_OPERATOR, 'kubernetes') ?? '';

async function recRow(sim: SimHarness): Promise<Record<string, string>> {
  return parseTable((await sim.kubectl(['get', 'rec'])).stdout).rows[0] ?? {};
}

async function waitForState(sim: SimHarness, state: string): Promise<void> {
  await sim.kubectl(['wait', `--for=jsonpath={.status.state}=${state}`, 'rec/rec', '--timeout=60s']);
}

async function eventsTable(sim: SimHarness): Promise<string> {
  return (await sim.kubectl(['get', 'events'])).stdout;
}

describe('sim: license-invalid', () => {
  let sim: SimHarness;
  before(async () => {
    sim = await startHarness('license-invalid');
  });
  after(async () => {
    await sim?.close();
  });

  test('LICENSE STATE shows Invalid before anything changes', async () => {
    const row = await recRow(sim);
    assert.equal(row['LICENSE STATE'], 'Invalid');
    assert.equal(row.STATE, 'Running');
  });

  test('the cluster upgrade fails: InvalidUpgrade, the reason in the operator log, no Event', async () => {
    await applyOperatorBundle(sim, TARGET_OPERATOR);
    await sim.kubectl(['patch', 'rec', 'rec', '--type', 'merge', '-p', versionTagPatch(sim, TARGET_TAG)]);
    await waitForState(sim, 'InvalidUpgrade');
    const [license] = await operatorLogErrors(sim, /license is Invalid/);
    assert.ok(license, 'the licence error in the operator log');
    assert.equal(license.logger, 'controller_redisenterprisecluster');
    assert.equal(license['Request.Name'], 'rec');
    assert.deepEqual(await warningEvents(sim), []);
    // Nothing rolled: every pod still runs the old image.
    const images = await sim.kubectl([
      'get',
      'pods',
      '-l',
      'redis.io/cluster=rec',
      '-o',
      'jsonpath={.items[*].spec.containers[0].image}',
    ]);
    assert.ok(
      images.stdout.split(' ').every((image) => image.endsWith(':7.4.6-22')),
      images.stdout,
    );
  });
});

describe('sim: invalid-upgrade (autoUpgrade with a digestHash)', () => {
  let sim: SimHarness;
  before(async () => {
    sim = await startHarness('invalid-upgrade');
  });
  after(async () => {
    await sim?.close();
  });

  test('the new operator answers with InvalidUpgrade, spec Invalid and a Warning event', async () => {
    await applyOperatorBundle(sim, TARGET_OPERATOR);
    await waitForState(sim, 'InvalidUpgrade');
    const row = await recRow(sim);
    assert.equal(row.STATE, 'InvalidUpgrade');
    assert.equal(row['SPEC STATUS'], 'Invalid');
    assert.equal(row.VERSION, '7.4.6-22');
    const warning = (await warningEvents(sim)).find((event) => event.reason === 'InvalidUpgrade');
    assert.ok(warning, 'an InvalidUpgrade warning');
    assert.match(warning.message, /digestHash/);
    assert.match(await eventsTable(sim), /Warning\s+InvalidUpgrade\s+redisenterprisecluster\/rec/);
  });
});

describe('sim: module-without-rhel9 freezes the upgrade until a rhel9 build is installed', () => {
  let sim: SimHarness;
  before(async () => {
    sim = await startHarness('module-without-rhel9');
  });
  after(async () => {
    await sim?.close();
  });

  test('the upgrade starts and freezes: state Upgrade, no pod replaced, the module named in the operator log', async () => {
    await applyOperatorBundle(sim, TARGET_OPERATOR);
    await sim.kubectl(['patch', 'rec', 'rec', '--type', 'merge', '-p', versionTagPatch(sim, TARGET_TAG)]);
    await waitForState(sim, 'Upgrade');
    const line = await eventually(
      'the module in the operator log',
      async () => (await operatorLogErrors(sim, /uses module/))[0],
    );
    assert.match(line.error ?? '', /database profiles \(uid \d+\) uses module ReJSON 2\.6\.10/);
    assert.match(
      line.error ?? '',
      /until the rhel9 build of ReJSON 2\.6\.10 is installed \(POST \/v2\/modules\)/,
    );
    assert.equal(line.logger, 'controller_redisenterprisecluster');
    // No Event of our invention: the real operator says it only in its log.
    assert.deepEqual(await warningEvents(sim), []);
    // The rollout does not move: a short rollout status times out, nothing is updated.
    const stuck = await sim.kubectl(['rollout', 'status', 'sts/rec', '--timeout=2s'], { allowFailure: true });
    assert.notEqual(stuck.code, 0);
    const sts = JSON.parse((await sim.kubectl(['get', 'sts', 'rec', '-o', 'json'])).stdout) as {
      status: { updatedReplicas?: number };
    };
    assert.equal(sts.status.updatedReplicas ?? 0, 0);
    assert.equal((await recRow(sim)).STATE, 'Upgrade');
  });

  test('POST /v2/modules with a rhel9 build (HTTPS, Basic auth) lifts the freeze; the rollout completes', async () => {
    const modules = await sim.api('GET', '/v1/modules');
    assert.equal(modules.status, 200);
    const rejson = (modules.body as { module_name: string; platforms: Record<string, unknown> }[]).find(
      (module) => module.module_name === 'ReJSON',
    );
    assert.deepEqual(Object.keys(rejson?.platforms ?? {}), ['rhel8/x86_64']);

    // RedisJSON's RHEL9 package: the simulator reads module, platform and version from its module.json.
    const form = new FormData();
    form.append(
      'module',
      new Blob([modulePackageBytes({ module: 'ReJSON', version: '2.6.10' })]),
      'rejson.Linux-rhel9-x86_64.2.6.10.zip',
    );
    const upload = await sim.api('POST', '/v2/modules', form);
    assert.equal(upload.status, 200, JSON.stringify(upload.body));

    await sim.kubectl(['rollout', 'status', 'sts/rec', '--timeout=60s']);
    await waitForState(sim, 'Running');
    const row = await recRow(sim);
    assert.equal(row.VERSION, TARGET_TAG);
    const messages = (await operatorLog(sim)).map((line) => line.msg);
    assert.ok(messages.includes('Upgrade completed'), messages.join(', '));
  });
});

describe('sim: old-database freezes the upgrade until the database is upgraded', () => {
  let sim: SimHarness;
  before(async () => {
    sim = await startHarness('old-database');
  });
  after(async () => {
    await sim?.close();
  });

  test('frozen, the database named in the operator log; POST /v1/bdbs/<uid>/upgrade lifts it', async () => {
    await applyOperatorBundle(sim, TARGET_OPERATOR);
    await sim.kubectl(['patch', 'rec', 'rec', '--type', 'merge', '-p', versionTagPatch(sim, TARGET_TAG)]);
    await waitForState(sim, 'Upgrade');
    const line = await eventually(
      'the database in the operator log',
      async () => (await operatorLogErrors(sim, /runs Redis 6\.2/))[0],
    );
    const uid = /uid (\d+)/.exec(line.error ?? '')?.[1];
    assert.ok(uid, line.error);

    const bdbs = await sim.api('GET', '/v1/bdbs');
    const old = (bdbs.body as { uid: number; engine_version?: string; redis_version?: string }[]).find(
      (bdb) => String(bdb.uid) === uid,
    );
    assert.equal(old?.engine_version ?? old?.redis_version, '6.2');
    const upgrade = await sim.api('POST', `/v1/bdbs/${uid}/upgrade`, { redis_version: '7.2' });
    assert.equal(upgrade.status, 200, JSON.stringify(upgrade.body));

    await sim.kubectl(['rollout', 'status', 'sts/rec', '--timeout=60s']);
    await waitForState(sim, 'Running');
    assert.equal((await recRow(sim)).VERSION, TARGET_TAG);
  });
});
