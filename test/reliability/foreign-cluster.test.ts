/**
 * Issue 28, item 2 (docs/reliability.md guarantee 13): the state belongs to one cluster. Two
 * simulated clusters with the same context name, namespace and REC name (two `happy-path`
 * simulators: both contexts are `ctl-sim-happy-path`) share one state folder. A run killed on X
 * is refused on Y (exit 2, nothing changed on Y) because the REC uid differs, and X resumes.
 * A state file of an earlier ctl (no REC uid) is adopted, and a done step whose product is not
 * on the cluster runs again instead of being skipped. The management API's cluster (GET
 * /v1/cluster `name` and `created_time`) is recorded too: a resume whose CTL_API_URL reaches
 * another cluster's management API, with the same REC uid on the Kubernetes side, is refused.
 */

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
  type Bed,
  checkUpgraded,
  figure,
  readState,
  runOnBed,
  spawnOnBed,
  STACK_TRACE,
  startBed,
  UPGRADE,
  untilStepDone,
} from './support.js';

const TIMING = { operatorStart: 0.5, podRestart: 0.5, databaseUpgrade: 0.3 };

/** ctl against `bed`'s cluster, with `stateOf`'s state folder. */
function onClusterWithStateOf(bed: Bed, stateOf: Bed, args: string[]) {
  return runOnBed(bed, args, { env: { XDG_STATE_HOME: stateOf.stateDir } });
}

function operatorImage(bed: Bed): string {
  const store = bed.cluster.kube.store;
  const deployment = store.get(
    store.resolve('apps/v1', 'Deployment'),
    bed.cluster.scenario.namespace,
    'redis-enterprise-operator',
  ) as unknown as { spec: { template: { spec: { containers: { image: string }[] } } } };
  return deployment.spec.template.spec.containers[0]!.image;
}

/** An upgrade on `bed`, SIGKILLed once its state file records the operator step done. */
async function killAfterOperatorStep(bed: Bed): Promise<void> {
  const run = spawnOnBed(bed, UPGRADE);
  await untilStepDone(bed.statePath, 'operator');
  run.child.kill('SIGKILL');
  await run.result;
}

// Each test has its own two clusters, and most of its time is their simulated waits: side by side.
describe('the state belongs to one cluster', { concurrency: true }, () => {
  test('a run killed on X is refused on Y with the same names (exit 2), then resumes on X', async () => {
    const x = await startBed('happy-path', { timing: TIMING });
    const y = await startBed('happy-path', { timing: TIMING });
    try {
      assert.equal(x.statePath.replace(x.stateDir, ''), y.statePath.replace(y.stateDir, ''), 'same names');
      await killAfterOperatorStep(x);
      assert.ok(readState(x.statePath).lineage.recUid, 'the REC uid is recorded');

      const yImage = operatorImage(y);
      const onY = await onClusterWithStateOf(y, x, UPGRADE);
      figure(`foreign cluster with the same names: run on Y with X's state exit ${onY.code}`);
      assert.equal(onY.code, 2, onY.stderr);
      assert.match(onY.stderr, /records an upgrade of another cluster with the same names/);
      assert.match(onY.stderr, /hint: .*--state NEW_FILE/);
      assert.doesNotMatch(onY.stderr, STACK_TRACE);
      assert.equal(operatorImage(y), yImage, 'nothing changed on Y');
      assert.equal(y.changes.versionTag, 0);

      const resumed = await runOnBed(x, UPGRADE);
      assert.equal(resumed.code, 0, resumed.stderr.slice(-1500));
      assert.deepEqual(checkUpgraded(x), []);
    } finally {
      await Promise.all([x.close(), y.close()]);
    }
  });

  test('a finished upgrade of X does not stop a run on Y with the same names (a rehearsal started again): Y upgrades, its own record', async () => {
    const x = await startBed('happy-path', { timing: TIMING });
    const y = await startBed('happy-path', { timing: TIMING });
    try {
      const onX = await runOnBed(x, UPGRADE);
      assert.equal(onX.code, 0, onX.stderr.slice(-1500));
      assert.equal(readState(x.statePath).result, 'succeeded');
      const xUid = readState(x.statePath).lineage.recUid;

      // Nothing of X's finished run can be resumed: Y's run starts its own record, and says so.
      const onY = await onClusterWithStateOf(y, x, UPGRADE);
      figure(`finished run of another cluster with the same names: run on Y exit ${onY.code}`);
      assert.equal(onY.code, 0, onY.stderr.slice(-1500));
      assert.match(
        onY.stderr,
        /records an upgrade of another cluster with the same names: .* had uid .*; that upgrade succeeded, so this run starts a new record/,
      );
      assert.doesNotMatch(onY.stderr, STACK_TRACE);
      assert.deepEqual(
        checkUpgraded({ ...y, statePath: path.join(x.stateDir, path.relative(y.stateDir, y.statePath)) }),
        [],
      );
      assert.notEqual(readState(x.statePath).lineage.recUid, xUid, "the record is Y's now");
    } finally {
      await Promise.all([x.close(), y.close()]);
    }
  });

  test("an earlier ctl's state (no REC uid) is adopted, and a done step whose product is gone runs again", async () => {
    const x = await startBed('happy-path', { timing: TIMING });
    const y = await startBed('happy-path', { timing: TIMING });
    try {
      await killAfterOperatorStep(x);
      // As an earlier ctl wrote it: no uid.
      const old = JSON.parse(readFileSync(x.statePath, 'utf8')) as { lineage: Record<string, unknown> };
      delete old.lineage.recUid;
      delete old.lineage.managementCluster;
      writeFileSync(x.statePath, JSON.stringify(old), { mode: 0o600 });
      // Y is on the old operator: the "done" operator step must run there, not be skipped.
      const onY = await onClusterWithStateOf(y, x, UPGRADE);
      assert.equal(onY.code, 0, onY.stderr.slice(-1500));
      assert.match(onY.stderr, /running step operator again: it was recorded done, but the operator runs /);
      assert.deepEqual(
        checkUpgraded({ ...y, statePath: path.join(x.stateDir, path.relative(y.stateDir, y.statePath)) }),
        [],
      );
      assert.ok(readState(x.statePath).lineage.recUid, 'the uid is recorded once adopted');
    } finally {
      await Promise.all([x.close(), y.close()]);
    }
  });

  test("a resume whose management API is another cluster's (same names) is refused (exit 2), then resumes with its own", async () => {
    const x = await startBed('happy-path', { timing: TIMING });
    const y = await startBed('happy-path', { timing: TIMING });
    try {
      await killAfterOperatorStep(x);
      const recorded = readState(x.statePath).lineage.managementCluster;
      assert.equal(recorded?.name, `rec.${x.cluster.scenario.namespace}.svc.cluster.local`, 'the FQDN');
      assert.match(recorded?.createdTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

      // X's Kubernetes (same REC uid), Y's management API: a wrong --api-url, say.
      const yApi = Object.fromEntries(
        ['CTL_API_URL', 'CTL_CA_FILE', 'CTL_USERNAME', 'CTL_PASSWORD'].map((key) => [key, y.env[key] ?? '']),
      );
      const tagBefore = x.changes.versionTag;
      const wrongApi = await runOnBed(x, UPGRADE, { env: yApi });
      figure(`foreign management API with the same names: resume exit ${wrongApi.code}`);
      assert.equal(wrongApi.code, 2, wrongApi.stderr);
      assert.match(
        wrongApi.stderr,
        /records an upgrade of another Redis Enterprise cluster: its management API reported creation time /,
      );
      assert.match(
        wrongApi.stderr,
        /hint: Check that --api-url \(or CTL_API_URL\) points at the management API of /,
      );
      assert.doesNotMatch(wrongApi.stderr, STACK_TRACE);
      assert.equal(x.changes.versionTag, tagBefore, 'nothing changed on X');
      assert.deepEqual(
        readState(x.statePath).lineage.managementCluster,
        recorded,
        'the recorded identity is kept',
      );

      const resumed = await runOnBed(x, UPGRADE);
      assert.equal(resumed.code, 0, resumed.stderr.slice(-1500));
      assert.deepEqual(checkUpgraded(x), []);
    } finally {
      await Promise.all([x.close(), y.close()]);
    }
  });
});
