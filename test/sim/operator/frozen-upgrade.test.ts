import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultClusterTag } from '../../../src/sim/world/releases.js';
import {
  logErrors,
  logInfos,
  REDB,
  recState,
  setClusterTag,
  settle,
  startSim,
  statusOf,
  waitFor,
} from './harness.js';

const TARGET_TAG = defaultClusterTag('7.8.2-6', 'kubernetes') ?? '';

test('module-without-rhel9: the upgrade freezes until a rhel9 build is uploaded', async () => {
  const sim = await startSim('module-without-rhel9');
  try {
    const before = statusOf(sim.get('apps/v1', 'StatefulSet', 'rec'));
    setClusterTag(sim, TARGET_TAG);
    const [line] = await waitFor('the freeze in the operator log', () => {
      const found = logErrors(sim, /uses module/);
      return found.length > 0 ? found : undefined;
    });
    assert.equal(line?.logger, 'controller_redisenterprisecluster');
    assert.match(String(line?.error), /module ReJSON 2\.6\.10/);
    assert.match(String(line?.error), /database profiles/);
    // The build of the version in use (upgrade-os.md: "The module version matches the version
    // currently used by databases"), uploaded: a RHEL9 build of RedisJSON 2.6.10 exists.
    assert.match(
      String(line?.error),
      /until the rhel9 build of ReJSON 2\.6\.10 is installed \(POST \/v2\/modules\)/,
    );
    assert.equal(logErrors(sim, /uses module/).length, 1, 'search has a rhel9 build: only ReJSON blocks');
    // No Event of our invention says it.
    assert.deepEqual(sim.events, []);

    // Frozen: state stays Upgrade, the rollout does not move, the databases are not reconciled.
    await settle();
    assert.equal(recState(sim), 'Upgrade');
    const sts = statusOf(sim.get('apps/v1', 'StatefulSet', 'rec'));
    assert.notEqual(sts.updateRevision, before.updateRevision);
    assert.equal(sts.updatedReplicas, 0);
    assert.equal(sts.readyReplicas, 3);
    assert.equal(sts.currentRevision, before.currentRevision);
    sim.mergePatch(...REDB, 'orders', { spec: { redisVersion: '7.4' } });
    await settle();
    assert.equal(statusOf(sim.get(...REDB, 'orders')).status, 'active');
    assert.equal(sim.rest.bdbs.find((bdb) => bdb.name === 'orders')?.databaseVersion, '7.2');

    // The documented fix: POST /v2/modules with a rhel9 build.
    const { action } = sim.rest.uploadModule({
      name: 'ReJSON',
      version: '2.6.10',
      platforms: ['rhel9/x86_64'],
    });
    await waitFor('the cluster to be Running', () => recState(sim) === 'Running');
    assert.equal(sim.rest.actions.get(action.action_uid)?.status, 'completed');
    assert.equal(logInfos(sim, /continuing the rolling upgrade/).length, 1);
    assert.equal(statusOf(sim.get('apps/v1', 'StatefulSet', 'rec')).updatedReplicas, 3);
    // Database reconciliation resumes: the pending database change goes through.
    await waitFor('orders at 7.4', () => statusOf(sim.get(...REDB, 'orders')).version === '7.4');
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});

test('old-database: the upgrade freezes until the database is upgraded through the API', async () => {
  const sim = await startSim('old-database');
  try {
    setClusterTag(sim, TARGET_TAG);
    const [line] = await waitFor('the freeze in the operator log', () => {
      const found = logErrors(sim, /runs Redis/);
      return found.length > 0 ? found : undefined;
    });
    const warning = { message: String(line?.error) };
    const legacy = sim.rest.bdbs.find((bdb) => bdb.name === 'legacy');
    assert.ok(legacy);
    assert.match(warning?.message ?? '', /database legacy/);
    assert.match(warning?.message ?? '', /6\.2/);
    assert.match(warning?.message ?? '', new RegExp(`POST /v1/bdbs/${legacy.uid}/upgrade`));
    await settle();
    assert.equal(recState(sim), 'Upgrade');

    const { action } = sim.rest.requestBdbUpgrade(legacy, '7.2');
    await waitFor('the cluster to be Running', () => recState(sim) === 'Running');
    assert.equal(sim.rest.actions.get(action.action_uid)?.status, 'completed');
    assert.equal(legacy.databaseVersion, '7.2');
    // Once managed again, the database resource's status follows the API.
    await waitFor('legacy status at 7.2', () => statusOf(sim.get(...REDB, 'legacy')).version === '7.2');
    assert.deepEqual(sim.errors, []);
  } finally {
    await sim.close();
  }
});
