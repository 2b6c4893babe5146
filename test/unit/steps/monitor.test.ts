import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ApiStatusError, MalformedAnswerError } from '../../../src/api/api-errors.js';
import { checkNodesShape } from '../../../src/api/node-shape.js';
import { ExitCode, OperationError, TimeoutError } from '../../../src/errors.js';
import { monitorStep } from '../../../src/steps/monitor.js';
import { countUpgradedPods } from '../../../src/steps/monitor-view.js';
import { resolveUpgrade } from '../../../src/planning/resolve.js';
import type { KubeObject } from '../../../src/kube/reads.js';
import {
  DB_API,
  operatorLogLine,
  REC_API,
  recEvent,
  recObject,
  rolloutStatus,
  type StepBed,
  startStepBed,
  statefulSetObject,
  until,
} from './emulator-bed.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';
import { writeModulePackage } from '../../helpers/module-package.js';

const FROM = '7.4.6-22';
const TARGET = '7.8.2-60';

describe('monitor step', () => {
  const beds: StepBed[] = [];
  after(async () => {
    await Promise.all(beds.map((b) => b.close()));
  });

  async function track(starting: Promise<StepBed>): Promise<StepBed> {
    const started = await starting;
    beds.push(started);
    return started;
  }

  /** A cluster whose upgrade to TARGET has started: REC Upgrade, the StatefulSet at 0/3. */
  async function upgrading(options: Parameters<typeof startStepBed>[0] = {}): Promise<StepBed> {
    const bed = await track(startStepBed(options));
    const e = bed.emulator;
    e.create(REC_API, 'RedisEnterpriseCluster', recObject(TARGET));
    e.patch(
      REC_API,
      'RedisEnterpriseCluster',
      'rec',
      { status: { state: 'Upgrade', specStatus: 'Valid' } },
      true,
    );
    e.create('apps/v1', 'StatefulSet', statefulSetObject(TARGET));
    e.patch('apps/v1', 'StatefulSet', 'rec', { status: rolloutStatus(0, 3, false) }, true);
    bed.api.nodes = [1, 2, 3].map((uid) => ({ uid, software_version: '7.8.2-60', status: 'active' }));
    return bed;
  }

  /** A pod of the StatefulSet at a revision, ready or not (the emulator runs no kubelet). */
  function putPod(b: StepBed, ordinal: number, revision: string, ready: boolean): void {
    const name = `rec-${ordinal}`;
    if (!b.emulator.get('v1', 'Pod', name)) {
      b.emulator.create('v1', 'Pod', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name,
          labels: {
            app: 'redis-enterprise',
            'redis.io/cluster': 'rec',
            'controller-revision-hash': revision,
          },
        },
        spec: { containers: [{ name: 'redis-enterprise-node', image: imageOf(revision) }] },
      });
    }
    // A pod of the new revision runs the new template's image (the emulator runs no controller).
    b.emulator.patch('v1', 'Pod', name, {
      metadata: { labels: { 'controller-revision-hash': revision } },
      spec: { containers: [{ name: 'redis-enterprise-node', image: imageOf(revision) }] },
    });
    b.emulator.patch(
      'v1',
      'Pod',
      name,
      { status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } },
      true,
    );
  }

  function imageOf(revision: string): string {
    return `redislabs/redis:${revision === 'rec-new' ? TARGET : FROM}`;
  }

  /** Every pod upgraded and ready: the end of a roll. */
  function rolledPods(b: StepBed): void {
    for (const ordinal of [0, 1, 2]) putPod(b, ordinal, 'rec-new', true);
  }

  function deletePod(b: StepBed, ordinal: number): void {
    const store = b.emulator.server.store;
    store.delete(store.resolve('v1', 'Pod'), 'redis', `rec-${ordinal}`);
  }

  /** The `n` of every "pods n/3 upgraded" progress line, in order. */
  function counts(b: StepBed): number[] {
    return b
      .progress()
      .map((m) => /pods (\d+)\/3 upgraded/.exec(m)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number);
  }

  // Each test has its own emulator bed, and most of their time is the step's real waits (its
  // look at the log and the API, the freeze grace): they run side by side, the beds closed at
  // the end. The 400 ms stall below runs alone after them: it needs the first pod count within
  // its 400 ms, which a busy event loop could delay.
  describe('side by side', { concurrency: true }, () => {
    it('follows a rolling upgrade to the end, counting the pods of the new revision that are ready', async () => {
      const b = await upgrading();
      for (const ordinal of [0, 1, 2]) putPod(b, ordinal, 'rec-old', true);
      // A status that claims more than the pods show must not be believed.
      b.emulator.patch('apps/v1', 'StatefulSet', 'rec', { status: rolloutStatus(1, 3, false) }, true);
      const running = monitorStep.run(b.ctx());
      await until(() => counts(b).length > 0, 'the first count');
      // Highest ordinal first: deleted, recreated at the new revision, then ready.
      for (const [n, ordinal] of [2, 1, 0].entries()) {
        deletePod(b, ordinal);
        await until(
          () => b.progress().some((m) => m.includes(`rec-${ordinal} missing`)),
          `rec-${ordinal} gone`,
        );
        putPod(b, ordinal, 'rec-new', false);
        await until(
          () => b.progress().some((m) => m.includes(`rec-${ordinal} starting`)),
          `rec-${ordinal} starting`,
        );
        putPod(b, ordinal, 'rec-new', true);
        // Readiness flickers once on the first upgraded pod: it stays upgraded.
        if (ordinal === 2) {
          await until(() => counts(b).includes(1), 'pods 1/3');
          putPod(b, ordinal, 'rec-new', false);
          await until(() => b.progress().some((m) => m.includes('rec-2 not ready')), 'rec-2 not ready');
          putPod(b, ordinal, 'rec-new', true);
        }
        await until(() => counts(b).includes(n + 1), `pods ${n + 1}/3`);
      }
      b.emulator.patch('apps/v1', 'StatefulSet', 'rec', { status: rolloutStatus(3, 3, true) }, true);
      // Rollout complete but the cluster is not Running yet: not done.
      assert.equal(
        await Promise.race([
          running.then(() => 'done'),
          new Promise((r) => setTimeout(() => r('waiting'), 100)),
        ]),
        'waiting',
      );
      b.emulator.patch(REC_API, 'RedisEnterpriseCluster', 'rec', { status: { state: 'Running' } }, true);
      const result = await running;
      assert.equal(result.outcome?.versionTag, TARGET);
      assert.equal(result.outcome?.state, 'Running');
      assert.deepEqual(result.outcome?.nodeVersions, ['7.8.2-60', '7.8.2-60', '7.8.2-60']);
      assert.deepEqual(
        b.kubeWrites().filter((w) => !w.includes('/pods')),
        [],
        'following writes nothing',
      );
      // Honest from the first line (0, not the status' 1), and never going back.
      const seen = counts(b);
      assert.equal(seen[0], 0, b.progress().join('\n'));
      assert.deepEqual(
        seen,
        [...seen].sort((x, y) => x - y),
        b.progress().join('\n'),
      );
      assert.deepEqual([...new Set(seen)], [0, 1, 2, 3]);
    });

    it('is not fooled by a Running cluster whose StatefulSet still runs the old image', async () => {
      const bed = await track(startStepBed());
      const e = bed.emulator;
      e.create(REC_API, 'RedisEnterpriseCluster', recObject(TARGET));
      e.patch(REC_API, 'RedisEnterpriseCluster', 'rec', { status: { state: 'Running' } }, true);
      e.create('apps/v1', 'StatefulSet', statefulSetObject(FROM));
      e.patch('apps/v1', 'StatefulSet', 'rec', { status: rolloutStatus(3, 3, true) }, true);
      rolledPods(bed);
      const running = monitorStep.run(bed.ctx());
      await until(
        () => bed.progress().some((m) => m.includes('not yet at the target')),
        'the old template to be noticed',
      );
      const template = (statefulSetObject(TARGET).spec as { template: object }).template;
      e.patch('apps/v1', 'StatefulSet', 'rec', { spec: { template } });
      e.patch(
        'apps/v1',
        'StatefulSet',
        'rec',
        { status: { ...rolloutStatus(3, 3, true), observedGeneration: 2 } },
        true,
      );
      const result = await running;
      assert.equal(result.outcome?.state, 'Running');
    });

    it('fails on InvalidUpgrade with the warnings and the fix (exit 1)', async () => {
      const bed = await track(startStepBed());
      const e = bed.emulator;
      e.create(
        REC_API,
        'RedisEnterpriseCluster',
        recObject(TARGET, {
          upgradeSpec: { autoUpgradeRedisEnterprise: true },
          redisEnterpriseImageSpec: {
            repository: 'redislabs/redis',
            versionTag: TARGET,
            digestHash: 'sha256:abc',
          },
        }),
      );
      e.create('apps/v1', 'StatefulSet', statefulSetObject(FROM));
      e.patch('apps/v1', 'StatefulSet', 'rec', { status: rolloutStatus(3, 3, true) }, true);
      e.create(
        'v1',
        'Event',
        recEvent(
          'Warning',
          'InvalidUpgrade',
          'Invalid upgrade spec: upgradeSpec.autoUpgradeRedisEnterprise is true and digestHash is set',
        ),
      );
      e.patch(
        REC_API,
        'RedisEnterpriseCluster',
        'rec',
        { status: { state: 'InvalidUpgrade', specStatus: 'Invalid' } },
        true,
      );
      const error = await monitorStep.run(bed.ctx()).then(
        () => assert.fail('expected a failure'),
        (err: unknown) => err,
      );
      assert.ok(error instanceof OperationError);
      assert.equal(error.exitCode, ExitCode.failed);
      assert.match(error.message, /InvalidUpgrade/);
      assert.match(error.message, /Invalid upgrade spec: upgradeSpec\.autoUpgradeRedisEnterprise is true/);
      assert.match(error.hint ?? '', /"autoUpgradeRedisEnterprise":false/);
      assert.match(error.hint ?? '', /"digestHash":null/);
    });

    /** db1 uses search 2.8.4 with only a rhel8 build; db2 runs 6.2: both freeze a 7.8.2 upgrade. */
    async function frozen(
      settings: Parameters<typeof startStepBed>[0] = {},
      withLog = true,
    ): Promise<StepBed> {
      const b = await upgrading({
        ...settings,
        snapshot: (s) => {
          s.databases.push({
            ...s.databases[0]!,
            name: 'db2',
            databaseUid: '2',
            statusVersion: '6.2.13',
            versionSpec: '6.2',
            modules: [],
          });
        },
      });
      b.api.bdbs = [
        {
          uid: 1,
          name: 'db1',
          redis_version: '7.2',
          status: 'active',
          module_list: [{ module_name: 'search', semantic_version: '2.8.4' }],
        },
        { uid: 2, name: 'db2', redis_version: '6.2', status: 'active', module_list: [] },
      ];
      b.api.modules = [
        { uid: 'm1', module_name: 'search', semantic_version: '2.8.4', platforms: { 'rhel8/x86_64': {} } },
      ];
      const e = b.emulator;
      e.create(DB_API, 'RedisEnterpriseDatabase', {
        apiVersion: DB_API,
        kind: 'RedisEnterpriseDatabase',
        metadata: { name: 'db2' },
        spec: { redisVersion: '6.2' },
      });
      if (!withLog) return b;
      // The operator says it in its log; no wording is on record, so ctl decides from the API.
      operatorLogLine(e, { level: 'info', msg: 'Upgrading Redis Enterprise cluster' });
      operatorLogLine(e, {
        level: 'error',
        msg: 'Upgrade Error',
        error:
          'database db1 (uid 1) uses module search 2.8.4, which has no rhel9 build (platforms: rhel8/x86_64)',
      });
      operatorLogLine(e, {
        level: 'error',
        msg: 'Upgrade Error',
        error: 'database db2 (uid 2) runs Redis 6.2, below 7.2',
      });
      return b;
    }

    it('stops a frozen upgrade with the exact curl commands (no --remediate)', async () => {
      const b = await frozen();
      const error = await monitorStep.run(b.ctx()).then(
        () => assert.fail('expected a failure'),
        (err: unknown) => err,
      );
      assert.ok(error instanceof OperationError);
      assert.equal(error.exitCode, ExitCode.failed);
      assert.match(error.message, /frozen/);
      assert.match(
        error.message,
        /curl -sfk -u USERNAME:PASSWORD -X POST -F module=@SEARCH-2\.8\.4-RHEL9-PACKAGE\.zip https:\/\/localhost:9443\/v2\/modules/,
      );
      assert.ok(
        error.message.includes(
          `curl -sfk -u USERNAME:PASSWORD -X POST -H 'Content-Type: application/json' -d '{"redis_version":"7.2"}' https://localhost:9443/v1/bdbs/2/upgrade`,
        ),
        error.message,
      );
      assert.ok(
        error.message.includes(
          `kubectl patch redb db2 -n redis --type merge -p '{"spec":{"redisVersion":"7.2"}}'`,
        ),
        error.message,
      );
      assert.match(error.hint ?? '', /--remediate --module-file/);
      // The operator's own account, read from its log through the Kubernetes API.
      assert.match(error.message, /kubectl logs deploy\/redis-enterprise-operator -n redis/);
      assert.match(error.message, /Upgrade Error: database db2 \(uid 2\) runs Redis 6\.2/);
      assert.deepEqual(b.api.writes(), []);
      assert.deepEqual(b.kubeWrites(), []);
    });

    it('finds a freeze the log does not mention: the rollout stands still and the API shows the causes', async () => {
      const b = await frozen({ settings: { stallTimeoutMs: 6000 } }, false);
      const started = Date.now();
      const error = await monitorStep.run(b.ctx()).then(
        () => assert.fail('expected a failure'),
        (err: unknown) => err,
      );
      assert.ok(error instanceof OperationError, String(error));
      assert.match(error.message, /frozen: module search 2\.8\.4 has no rhel9 build installed/);
      assert.match(error.message, /the operator's log says nothing about it/);
      // Not before the grace period (a third of --stall-timeout). That it came before the stall
      // is told by the message (a stall says it "made no progress for" --stall-timeout), not by
      // the clock: a loaded machine (a suite beside four engineers' tests) took 6.5 s to get here.
      const waited = Date.now() - started;
      assert.ok(waited >= 1900, `waited ${waited} ms`);
      assert.doesNotMatch(error.message, /made no progress for/);
      // No operator Deployment in this bed: the log could not be read, said once.
      assert.equal(b.warnings().filter((w) => w.includes("cannot read the operator's log")).length, 1);
    });

    it('a resumed step asks the API at its first look, not after the grace: the log may have said it before', async () => {
      // Grace 20 s, a look every 5 s. The operator wrote its freeze line during the earlier attempt
      // and (as the simulated one does) not again: this attempt's log is silent.
      const b = await frozen({ settings: { stallTimeoutMs: 60_000 } }, false);
      const previous = {
        status: 'failed' as const,
        startedAt: new Date(Date.now() - 120_000).toISOString(),
      };
      let guard: NodeJS.Timeout | undefined;
      const graceOver = new Promise<never>((_, reject) => {
        guard = setTimeout(
          () => reject(new Error('the resumed monitor step waited out the 20 s grace before asking the API')),
          15_000,
        );
      });
      try {
        const error = await Promise.race([
          monitorStep.run(b.ctx({ previous })).then(
            () => assert.fail('expected a failure'),
            (err: unknown) => err,
          ),
          graceOver,
        ]);
        assert.ok(error instanceof OperationError, String(error));
        assert.match(error.message, /frozen: module search 2\.8\.4 has no rhel9 build installed/);
      } finally {
        clearTimeout(guard);
      }
    });

    it('remediates a frozen upgrade with --remediate, once, and a second run does nothing', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ctl-module-'));
      const file = join(dir, 'redisearch.Linux-rhel9-x86_64.2.8.4.zip');
      writeFileSync(
        file,
        JSON.stringify({ module_name: 'search', semantic_version: '2.8.4', platforms: ['rhel9/x86_64'] }),
      );
      try {
        const b = await frozen({ settings: { remediate: true, moduleFiles: [file] } });
        // The simulated operator: once nothing blocks, it resumes and finishes the rollout.
        b.api.onActionCompleted = () => {
          const fixed =
            b.api.bdbs.every((db) => db.redis_version === '7.2') &&
            b.api.modules.some((m) => 'rhel9/x86_64' in (m.platforms ?? {}));
          if (!fixed) return;
          operatorLogLine(b.emulator, { level: 'info', msg: 'Upgrade prerequisites met' });
          setTimeout(() => {
            rolledPods(b);
            b.emulator.patch('apps/v1', 'StatefulSet', 'rec', { status: rolloutStatus(3, 3, true) }, true);
            b.emulator.patch(
              REC_API,
              'RedisEnterpriseCluster',
              'rec',
              { status: { state: 'Running' } },
              true,
            );
          }, 50);
        };
        const result = await monitorStep.run(b.ctx());
        assert.equal(result.outcome?.state, 'Running');
        assert.deepEqual(b.api.writes(), [
          'POST /v2/modules redisearch.Linux-rhel9-x86_64.2.8.4.zip',
          'POST /v1/bdbs/2/upgrade {"redis_version":"7.2"}',
        ]);
        assert.equal(
          (b.emulator.get(DB_API, 'RedisEnterpriseDatabase', 'db2')?.spec as { redisVersion?: string })
            .redisVersion,
          '7.2',
        );
        // Every change was recorded as an intent before it was made.
        const intents = b.log
          .filter((e) => e.type === 'intent')
          .map((e) => (e.data as { remediation: { action: string }[] }).remediation.at(-1)?.action);
        assert.deepEqual(intents, ['upload-module', 'upgrade-bdb', 'patch-redb']);
        assert.deepEqual((result.outcome?.remediation as unknown[]).length, 3);

        // A second run (resume) on the finished cluster completes at once and changes nothing.
        const apiWrites = b.api.writes().length;
        const kubeWrites = b.kubeWrites().length;
        const again = await monitorStep.run(b.ctx({ previous: b.previous() }));
        assert.equal(again.outcome?.state, 'Running');
        assert.equal(b.api.writes().length, apiWrites);
        assert.equal(b.kubeWrites().length, kubeWrites);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('does not repeat remediation that a crashed run already did', async () => {
      const b = await frozen({ settings: { remediate: true, moduleFiles: ['/nonexistent/not-needed.zip'] } });
      // The earlier run crashed after its API calls: the module is in, db2 runs 7.2, its REDB still says 6.2.
      b.api.modules[0]!.platforms = { 'rhel8/x86_64': {}, 'rhel9/x86_64': {} };
      b.api.bdbs[1]!.redis_version = '7.2';
      const previous = {
        status: 'in-progress' as const,
        intent: {
          remediation: [
            { action: 'upload-module', file: 'search.zip' },
            { action: 'upgrade-bdb', uid: 2, name: 'db2', from: '6.2', to: '7.2' },
          ],
        },
      };
      const running = monitorStep.run(b.ctx({ previous }));
      // Nothing blocks any more: the operator resumes by itself.
      await until(
        () =>
          b.emulator.get(DB_API, 'RedisEnterpriseDatabase', 'db2')?.spec !== undefined &&
          b.progress().length > 0,
        'the first progress',
      );
      rolledPods(b);
      b.emulator.patch('apps/v1', 'StatefulSet', 'rec', { status: rolloutStatus(3, 3, true) }, true);
      b.emulator.patch(REC_API, 'RedisEnterpriseCluster', 'rec', { status: { state: 'Running' } }, true);
      const result = await running;
      assert.equal(result.outcome?.state, 'Running');
      // Nothing posted again; only the REDB was brought in line with the API, once.
      assert.deepEqual(b.api.writes(), []);
      const spec = b.emulator.get(DB_API, 'RedisEnterpriseDatabase', 'db2')?.spec as {
        redisVersion?: string;
      };
      assert.equal(spec.redisVersion, '7.2');
      assert.equal(b.kubeWrites().filter((w) => w.startsWith('PATCH')).length, 1);
    });

    it('takes an upload for already installed by its error_code, not by words in the message', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ctl-module-'));
      // Refused as no package (400 invalid_module), though its name says module_exists.
      const file = join(dir, 'module_exists.zip');
      writeFileSync(file, 'not a module package');
      try {
        const b = await frozen({ settings: { remediate: true, moduleFiles: [file] } });
        const error = await monitorStep.run(b.ctx()).then(
          () => assert.fail('expected a failure'),
          (err: unknown) => err,
        );
        assert.ok(error instanceof ApiStatusError, String(error));
        assert.equal(error.errorCode, 'invalid_module');
        assert.match(error.hint ?? '', /^The cluster did not take module_exists\.zip as a module package/);
        assert.equal(error.refused?.value, file);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('fails with the action error when a remediation action fails', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ctl-module-'));
      const file = join(dir, 'search.zip');
      writeFileSync(
        file,
        JSON.stringify({ module_name: 'search', semantic_version: '2.8.4', platforms: ['rhel9/x86_64'] }),
      );
      try {
        const b = await frozen({ settings: { remediate: true, moduleFiles: [file] } });
        b.api.failNextAction = 'os_not_supported: the package is not for this OS';
        const error = await monitorStep.run(b.ctx()).then(
          () => assert.fail('expected a failure'),
          (err: unknown) => err,
        );
        assert.ok(error instanceof OperationError);
        assert.match(
          error.message,
          /upload of search\.zip failed \(action action-1, failed\): os_not_supported/,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('completes at once on a cluster already Running at the target', async () => {
      const bed = await track(startStepBed());
      const e = bed.emulator;
      e.create(REC_API, 'RedisEnterpriseCluster', recObject(TARGET));
      e.patch(REC_API, 'RedisEnterpriseCluster', 'rec', { status: { state: 'Running' } }, true);
      e.create('apps/v1', 'StatefulSet', statefulSetObject(TARGET));
      e.patch('apps/v1', 'StatefulSet', 'rec', { status: rolloutStatus(3, 3, true) }, true);
      rolledPods(bed);
      bed.api.nodes = [{ uid: 1, software_version: '7.4.6-22', status: 'active' }];
      const result = await monitorStep.run(bed.ctx());
      assert.equal(result.outcome?.state, 'Running');
      assert.ok(
        bed.warnings().some((w) => w.includes('not report 7.8.2-60')),
        'a node behind is a warning',
      );
      assert.deepEqual(bed.kubeWrites(), []);
    });

    it('finishes under OnDelete, where currentRevision is never promoted, on the pods alone', async () => {
      const b = await upgrading();
      b.emulator.patch('apps/v1', 'StatefulSet', 'rec', { spec: { updateStrategy: { type: 'OnDelete' } } });
      const generation = b.emulator.get('apps/v1', 'StatefulSet', 'rec')?.metadata?.generation ?? 1;
      // Every pod upgraded and ready; the status keeps the old currentRevision (kubernetes #73492).
      const status = { ...rolloutStatus(3, 3, false), observedGeneration: generation };
      b.emulator.patch('apps/v1', 'StatefulSet', 'rec', { status }, true);
      for (const ordinal of [0, 1]) putPod(b, ordinal, 'rec-new', true);
      putPod(b, 2, 'rec-old', true);
      const running = monitorStep.run(b.ctx());
      await until(() => b.progress().some((m) => m.includes('rec-2 old')), 'rec-2 still old');
      b.emulator.patch(REC_API, 'RedisEnterpriseCluster', 'rec', { status: { state: 'Running' } }, true);
      assert.equal(
        await Promise.race([
          running.then(() => 'done'),
          new Promise((r) => setTimeout(() => r('waiting'), 100)),
        ]),
        'waiting',
        'one pod is still on the old revision',
      );
      putPod(b, 2, 'rec-new', true);
      const result = await running;
      assert.equal(result.outcome?.state, 'Running');
      const sts = b.emulator.get('apps/v1', 'StatefulSet', 'rec');
      assert.equal((sts?.status as { currentRevision?: string }).currentRevision, 'rec-old');
    });

    it('under RollingUpdate still waits for the StatefulSet to promote currentRevision', async () => {
      const b = await upgrading();
      rolledPods(b);
      b.emulator.patch(REC_API, 'RedisEnterpriseCluster', 'rec', { status: { state: 'Running' } }, true);
      const running = monitorStep.run(b.ctx());
      await until(() => counts(b).includes(3), 'pods 3/3');
      assert.equal(
        await Promise.race([
          running.then(() => 'done'),
          new Promise((r) => setTimeout(() => r('waiting'), 100)),
        ]),
        'waiting',
      );
      b.emulator.patch('apps/v1', 'StatefulSet', 'rec', { status: rolloutStatus(3, 3, true) }, true);
      assert.equal((await running).outcome?.state, 'Running');
    });

    it('does not count a pod on the new revision label whose image is not the target', async () => {
      const b = await upgrading();
      b.emulator.patch('apps/v1', 'StatefulSet', 'rec', { status: rolloutStatus(3, 3, true) }, true);
      b.emulator.patch(REC_API, 'RedisEnterpriseCluster', 'rec', { status: { state: 'Running' } }, true);
      rolledPods(b);
      b.emulator.patch('v1', 'Pod', 'rec-0', {
        spec: { containers: [{ name: 'redis-enterprise-node', image: `redislabs/redis:${FROM}` }] },
      });
      const running = monitorStep.run(b.ctx());
      await until(
        () => b.progress().some((m) => m.includes('rec-0 not on the target image')),
        'rec-0 named as not on the target image',
      );
      putPod(b, 0, 'rec-new', true);
      assert.equal((await running).outcome?.state, 'Running');
    });

    it("auto-upgrade without a spec write: done when the pods and every node's version are at the target", async () => {
      const bed = await track(startStepBed());
      const e = bed.emulator;
      e.create(
        REC_API,
        'RedisEnterpriseCluster',
        recObject(FROM, { upgradeSpec: { autoUpgradeRedisEnterprise: true } }),
      );
      e.patch(REC_API, 'RedisEnterpriseCluster', 'rec', { status: { state: 'Running' } }, true);
      e.create('apps/v1', 'StatefulSet', statefulSetObject(TARGET));
      e.patch('apps/v1', 'StatefulSet', 'rec', { status: rolloutStatus(3, 3, true) }, true);
      rolledPods(bed);
      bed.api.nodes = [1, 2, 3].map((uid) => ({
        uid,
        software_version: uid === 3 ? FROM : TARGET,
        status: 'active',
      }));
      const running = monitorStep.run(bed.ctx());
      await until(
        () => bed.progress().some((m) => m.includes('nodes not yet at') && m.includes(`3 (${FROM})`)),
        'node 3 named as behind',
      );
      bed.api.nodes[2]!.software_version = TARGET;
      const result = await running;
      assert.equal(result.outcome?.state, 'Running');
      assert.deepEqual(result.outcome?.nodeVersions, [TARGET, TARGET, TARGET]);
      assert.deepEqual(bed.kubeWrites(), [], 'the spec is left as it is');
    });

    it('auto-upgrade: a node list not in the documented form fails the step (exit 1) naming the field, not a stall', async () => {
      const bed = await track(startStepBed());
      const e = bed.emulator;
      e.create(
        REC_API,
        'RedisEnterpriseCluster',
        recObject(FROM, { upgradeSpec: { autoUpgradeRedisEnterprise: true } }),
      );
      e.patch(REC_API, 'RedisEnterpriseCluster', 'rec', { status: { state: 'Running' } }, true);
      e.create('apps/v1', 'StatefulSet', statefulSetObject(TARGET));
      e.patch('apps/v1', 'StatefulSet', 'rec', { status: rolloutStatus(3, 3, true) }, true);
      rolledPods(bed);
      // What the client makes of a node whose status is a number (src/api/node-shape.ts).
      const answered = [1, 2, 3].map((uid) => ({
        uid,
        software_version: TARGET,
        status: uid === 2 ? 1 : 'active',
      }));
      bed.api.listNodes = async () => {
        checkNodesShape(answered, 'GET /v1/nodes');
        return [];
      };
      await assert.rejects(monitorStep.run(bed.ctx()), (error: unknown) => {
        assert.ok(error instanceof MalformedAnswerError, String(error));
        assert.equal(error.exitCode, ExitCode.failed);
        assert.match(
          error.message,
          /^GET \/v1\/nodes: the management API answered a node \(item 1\) whose status is not a string \(it is a number\)/,
        );
        assert.match(error.hint ?? '', /--api-url/);
        return true;
      });
    });

    it('leaves the count out while it is not known, never "?/3": then counts from 0', async () => {
      const b = await upgrading();
      for (const ordinal of [0, 1, 2]) putPod(b, ordinal, 'rec-old', true);
      // The StatefulSet controller has not observed the new spec: its updateRevision is the old one.
      const generation = b.emulator.get('apps/v1', 'StatefulSet', 'rec')?.metadata?.generation ?? 1;
      b.emulator.patch(
        'apps/v1',
        'StatefulSet',
        'rec',
        { status: { ...rolloutStatus(0, 3, false), observedGeneration: generation - 1 } },
        true,
      );
      const controller = new AbortController();
      const running = monitorStep.run(b.ctx({ signal: controller.signal }));
      await until(() => b.progress().length > 0, 'the first progress');
      assert.match(
        b.progress()[0] ?? '',
        /^cluster Upgrade, 3 pods \(the StatefulSet controller has not picked up the new spec yet\)$/,
      );
      b.emulator.patch(
        'apps/v1',
        'StatefulSet',
        'rec',
        { status: { ...rolloutStatus(0, 3, false), observedGeneration: generation } },
        true,
      );
      await until(() => counts(b).length > 0, 'the first count');
      assert.equal(counts(b)[0], 0);
      assert.ok(!b.progress().some((m) => m.includes('?/')), b.progress().join('\n'));
      controller.abort(new Error('SIGINT'));
      await assert.rejects(running, /SIGINT/);
    });

    /** A cluster asked for TARGET whose operator has not begun: the pod template still at FROM. */
    async function notBegun(licenseState: string): Promise<StepBed> {
      const bed = await track(startStepBed({ settings: { stallTimeoutMs: 10_000 } }));
      const e = bed.emulator;
      e.create(REC_API, 'RedisEnterpriseCluster', recObject(TARGET));
      e.patch(
        REC_API,
        'RedisEnterpriseCluster',
        'rec',
        {
          status: {
            state: 'Running',
            licenseStatus: { licenseState, expirationDate: '2026-11-01T00:00:00Z' },
          },
        },
        true,
      );
      e.create('apps/v1', 'StatefulSet', statefulSetObject(FROM));
      e.patch('apps/v1', 'StatefulSet', 'rec', { status: rolloutStatus(3, 3, true) }, true);
      for (const ordinal of [0, 1, 2]) putPod(bed, ordinal, 'rec-old', true);
      bed.api.nodes = [1, 2, 3].map((uid) => ({ uid, software_version: '7.8.2-60', status: 'active' }));
      return bed;
    }

    it('a licence that is not Valid and a roll that does not begin: stopped after the licence grace, not the stall limit (exit 1, the fix)', async () => {
      // --stall-timeout 10 s: the licence grace is 2 s (monitor-timing.ts licenceGraceMs). A
      // status the cluster wrote: any text, here with a control character and far too long.
      const b = await notBegun(`Expired\u001b[2J${'x'.repeat(200)}`);
      const started = Date.now();
      const error = await monitorStep.run(b.ctx()).then(
        () => assert.fail('expected the licence to stop the wait'),
        (err: unknown) => err,
      );
      const waited = Date.now() - started;
      assert.ok(error instanceof OperationError && !(error instanceof TimeoutError), String(error));
      assert.equal(error.exitCode, ExitCode.failed);
      assert.match(
        error.message,
        /^the cluster's licence is Expired.{0,80} \(status\.licenseStatus\.licenseState, expires 2026-11-01T00:00:00Z\) and the upgrade of rec to 7\.8\.2-60 has not begun in 2s: the operator does not upgrade a cluster without a valid licence$/,
      );
      assert.doesNotMatch(error.message, /\u001b|x{81}/, 'one line, bounded');
      // The license-valid check's fix (the licence lives in a Secret here), then resume.
      assert.match(
        error.hint ?? '',
        /kubectl create secret generic rec-license -n redis --from-file=license=LICENSE_FILE/,
      );
      assert.match(error.hint ?? '', /then run ctl again: it resumes the upgrade where it stopped\.$/);
      assert.ok(
        waited >= 2000 && waited < 10_000,
        `stopped after the grace, before the stall limit: ${waited} ms`,
      );
      assert.ok(
        b
          .warnings()
          .some((w) => /licence is Expired.* ctl stops if the upgrade does not begin within 2s$/.test(w)),
        b.warnings().join('\n'),
      );
    });

    it('a licence that is not Valid stops nothing once the roll has begun: its pods may take longer than the grace', async () => {
      const b = await notBegun('Invalid');
      const running = monitorStep.run(b.ctx());
      await until(() => b.warnings().some((w) => w.includes('licence is Invalid')), 'the licence warning');
      // Within the 2 s grace the operator writes the new template: the roll has begun.
      b.emulator.patch('apps/v1', 'StatefulSet', 'rec', {
        spec: { template: (statefulSetObject(TARGET).spec as { template: unknown }).template },
      });
      b.emulator.patch(REC_API, 'RedisEnterpriseCluster', 'rec', { status: { state: 'Upgrade' } }, true);
      // The StatefulSet controller has seen the new template (its generation moved with it).
      const observed = { observedGeneration: 2 };
      b.emulator.patch(
        'apps/v1',
        'StatefulSet',
        'rec',
        { status: { ...rolloutStatus(0, 3, false), ...observed } },
        true,
      );
      // Nothing moves for longer than the grace: the stall limit (10 s) alone judges the roll.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      rolledPods(b);
      b.emulator.patch(
        'apps/v1',
        'StatefulSet',
        'rec',
        { status: { ...rolloutStatus(3, 3, true), ...observed } },
        true,
      );
      b.emulator.patch(REC_API, 'RedisEnterpriseCluster', 'rec', { status: { state: 'Running' } }, true);
      const result = await running;
      assert.equal(result.outcome?.state, 'Running');
      assert.equal(b.warnings().filter((w) => w.includes('licence is Invalid')).length, 1, 'said once');
    });

    it('stops promptly when the signal aborts', async () => {
      const b = await upgrading();
      const controller = new AbortController();
      const running = monitorStep.run(b.ctx({ signal: controller.signal }));
      await until(() => b.progress().length > 0, 'the first progress');
      controller.abort(new Error('SIGINT'));
      await assert.rejects(running, /SIGINT/);
      await until(() => b.emulator.server.openWatches() === 0, 'every watch to close');
    });
  });

  it('stalls with exit 6 and says what it saw last', async () => {
    const b = await upgrading({ settings: { stallTimeoutMs: 400 } });
    const error = await monitorStep.run(b.ctx()).then(
      () => assert.fail('expected a stall'),
      (err: unknown) => err,
    );
    assert.ok(error instanceof TimeoutError);
    assert.equal(error.exitCode, ExitCode.timeout);
    assert.match(error.message, /made no progress for 400ms \(last seen: cluster Upgrade, pods 0\/3/);
    assert.match(error.hint ?? '', /kubectl rollout status sts\/rec -n redis/);
  });
});

describe('monitor step on the simulated cluster', () => {
  it('remediates the frozen upgrade of module-without-rhel9 and follows it to Running', async () => {
    const { startSimulatedCluster } = await import('../../../src/sim/cluster.js');
    const { loadScenario } = await import('../../../src/sim/scenario.js');
    const { createKubeClients, loadKubeConfig } = await import('../../../src/kube/client.js');
    const { createClusterReads } = await import('../../../src/kube/reads.js');
    const { connectApi } = await import('../../../src/api/connect.js');
    const { readSnapshot } = await import('../../../src/planning/snapshot.js');
    const { planUpgrade } = await import('../../../src/steps/index.js');
    const { KubeWriter, mergePatch } = await import('../../../src/kube/write.js');
    const { ApiWriter } = await import('../../../src/api/writer.js');
    const { createTestIo } = await import('../../../src/io/test-io.js');
    const { makeTarget } = await import('../planning/snapshot-fixture.js');
    const { SETTINGS } = await import('./emulator-bed.js');
    const { dialectFields } = await import('../../../src/release/dialect.js');
    const { patchAt } = await import('../../../src/planning/equivalent-commands.js');

    const sim = await startSimulatedCluster({ scenario: loadScenario('module-without-rhel9'), fast: true });
    const dir = mkdtempSync(join(tmpdir(), 'ctl-module-'));
    const test = createTestIo();
    const connection = await connectApi(
      { apiUrl: sim.apiUrl, caFile: sim.caPath, insecure: false, passwordStdin: false, authForm: 'auto' },
      { io: test.io, env: sim.env, stdin: process.stdin },
    );
    try {
      // RedisJSON's RHEL9 package, a zip with its module.json, which the simulator unpacks as the
      // cluster's unpacker does.
      const file = writeModulePackage(dir, {
        file: 'rejson.Linux-rhel9-x86_64.2.6.10.zip',
        module: 'ReJSON',
        version: '2.6.10',
      });
      const kube = await createKubeClients(
        await loadKubeConfig({ kubeconfig: sim.kubeconfigPath, env: {} }),
        () => {},
      );
      const api = connection.client();
      const namespace = sim.scenario.namespace;
      const snapshot = await readSnapshot({
        kube: createClusterReads(kube),
        context: 'sim',
        namespace,
        requiredPermissions: REQUIRED_PERMISSIONS,
        management: api,
      });
      const target = makeTarget({ to: '7.8.2-6' });
      const plan = planUpgrade(snapshot, target);
      const tag = plan.target.clusterVersion ?? '';
      // What the cluster step does: set the image tag. The simulated operator starts, then freezes.
      await mergePatch(
        kube,
        {
          apiVersion: snapshot.cluster!.apiVersion,
          kind: 'RedisEnterpriseCluster',
          name: snapshot.cluster!.name,
          namespace,
        },
        patchAt([...dialectFields(snapshot.dialect).imageSpecPath, 'versionTag'], tag),
        { dryRun: false, io: test.io },
      );
      const progress: string[] = [];
      const intents: unknown[] = [];
      const result = await monitorStep.run({
        deps: {
          kube,
          kubeWriter: new KubeWriter(kube, { dryRun: false, io: test.io }),
          api,
          apiWriter: new ApiWriter(api, { dryRun: false, io: test.io }),
          helm: {} as never,
          settings: {
            ...SETTINGS,
            remediate: true,
            moduleFiles: [file],
            timeoutMs: 60_000,
            stallTimeoutMs: 30_000,
          },
          clock: {
            now: () => Date.now(),
            sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 50))),
          },
          snapshot,
          plan,
          target,
          resolved: resolveUpgrade(snapshot, target),
        },
        io: test.io,
        dryRun: false,
        signal: new AbortController().signal,
        previous: undefined,
        recordIntent: async (intent) => {
          intents.push(intent);
        },
        progress: (message) => progress.push(message),
        warn: (message) => progress.push(`warning: ${message}`),
      });
      assert.equal(result.outcome?.state, 'Running', progress.join('\n'));
      assert.equal(sim.audit.filter('POST', '/v2/modules').length, 1);
      assert.equal(sim.audit.filter('POST', '/v1/bdbs/*/upgrade').length, 0, 'no database was too old');
      assert.ok(
        progress.some((m) => m.startsWith('warning: the cluster upgrade is frozen')),
        progress.join('\n'),
      );
      assert.ok(intents.length >= 1);
      const rejson = sim.rest.model.modules.find((m) => m.module_name === 'ReJSON');
      assert.ok(rejson && 'rhel9/x86_64' in rejson.platforms);
      assert.equal(rejson.semantic_version, '2.6.10', 'the build of the version in use');
    } finally {
      await connection.close();
      // Let the step's watches close before the simulator (and its audit file) goes away.
      await until(() => sim.kube.openWatches() === 0, 'every watch to close').catch(() => undefined);
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('countUpgradedPods', () => {
  const sts = (status: Record<string, unknown>, generation = 2): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'rec', generation },
    spec: { replicas: 3 },
    status: { replicas: 3, observedGeneration: 2, updateRevision: 'new', currentRevision: 'old', ...status },
  });
  const pod = (name: string, revision: string, ready: boolean): [string, KubeObject] => [
    name,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: { 'controller-revision-hash': revision } },
      status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
    },
  ];

  it('counts pods on the update revision that are ready, not the status', () => {
    const pods = new Map([pod('rec-0', 'old', true), pod('rec-1', 'new', false), pod('rec-2', 'new', true)]);
    assert.equal(countUpgradedPods(sts({ updatedReplicas: 3, readyReplicas: 3 }), pods), 1);
  });

  it('does not count before the pods are listed or from a StatefulSet status of an older spec', () => {
    const pods = new Map([pod('rec-2', 'old', true)]);
    assert.equal(countUpgradedPods(sts({ updatedReplicas: 1 }), undefined), undefined);
    // generation 3 not observed yet: updateRevision `old` would be the previous one.
    assert.equal(countUpgradedPods(sts({ updateRevision: 'old' }, 3), pods), undefined);
    assert.equal(countUpgradedPods(sts({ updateRevision: undefined }), pods), undefined);
  });

  it('is monotone within a rollout: a pod once upgraded stays counted while it keeps the revision', () => {
    const memory = new Set<string>();
    const ready = new Map([pod('rec-2', 'new', true), pod('rec-1', 'old', true)]);
    assert.equal(countUpgradedPods(sts({}), ready, memory), 1);
    const flicker = new Map([pod('rec-2', 'new', false), pod('rec-1', 'old', true)]);
    assert.equal(countUpgradedPods(sts({}), flicker, memory), 1);
    // Another rollout (a new update revision) starts from zero again.
    assert.equal(countUpgradedPods(sts({ updateRevision: 'newer' }), flicker, memory), 0);
  });
});
