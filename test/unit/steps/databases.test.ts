import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { ExitCode, OperationError } from '../../../src/errors.js';
import { contains } from '../../../src/steps/admission.js';
import { databasesStep } from '../../../src/steps/databases.js';
import { parseAction, shellWords, workOf } from '../../../src/steps/databases-work.js';
import { runPool } from '../../../src/steps/task-pool.js';
import type { DatabasesOutcome } from '../../../src/steps/databases.js';
import { dialectFields } from '../../../src/release/dialect.js';
import type { KubeObject } from '../../../src/sim/kube/types.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import { DB_API, REC_API, recObject, type StepBed, startStepBed } from './emulator-bed.js';

const AA_KIND = 'RedisEnterpriseActiveActiveDatabase';
const DB_KIND = 'RedisEnterpriseDatabase';

/** Three databases on 7.2 (db1, db2, db3), all selected; optionally an Active-Active one. */
function withDatabases(activeActive = false) {
  return (s: Snapshot): void => {
    const base = s.databases[0]!;
    s.databases = ['db1', 'db2', 'db3'].map((name, i) => ({
      ...base,
      name,
      databaseUid: String(i + 1),
      modules: [],
    }));
    s.api.bdbs = s.databases.map((db, i) => ({
      uid: i + 1,
      name: db.name,
      redis_version: '7.2',
      module_list: [],
    }));
    if (activeActive) {
      s.activeActiveDatabases = [
        { name: 'aa1', namespace: 'redis', versionSpec: '7.2', participatingClusters: [{ name: 'rec' }] },
      ];
      s.api.bdbs.push({ uid: 9, name: 'aa1', redis_version: '7.2', crdt: true });
    }
  };
}

interface Simulated {
  maxInFlight: number;
  order: string[];
}

/**
 * The simulated operator: a new version in a REDB (or REAADB) makes it active-change-pending,
 * then active at that version a little later.
 */
function simulateOperator(bed: StepBed): Simulated {
  const store = bed.emulator.server.store;
  const seen: Simulated = { maxInFlight: 0, order: [] };
  const inFlight = new Set<string>();
  store.on('change', (event: { type: string; object: KubeObject }) => {
    const object = event.object;
    if (event.type !== 'MODIFIED' || (object.kind !== DB_KIND && object.kind !== AA_KIND)) return;
    const aa = object.kind === AA_KIND;
    const spec = object.spec as
      { redisVersion?: string; globalConfigurations?: { redisVersion?: string } } | undefined;
    const wanted = aa ? spec?.globalConfigurations?.redisVersion : spec?.redisVersion;
    const status = (object.status ?? {}) as { version?: string; observedGeneration?: number };
    const name = object.metadata.name ?? '';
    const generation = object.metadata.generation ?? 1;
    if (!wanted || inFlight.has(name) || (status.observedGeneration ?? 0) >= generation) return;
    inFlight.add(name);
    seen.maxInFlight = Math.max(seen.maxInFlight, inFlight.size);
    seen.order.push(name);
    const kind = aa ? AA_KIND : DB_KIND;
    setTimeout(() => {
      bed.emulator.patch(
        DB_API,
        kind,
        name,
        { status: { status: 'active-change-pending', observedGeneration: generation } },
        true,
      );
      setTimeout(() => {
        const bdb = bed.api.bdbs.find((b) => b.name === name);
        if (bdb) bdb.redis_version = wanted;
        bed.emulator.patch(
          DB_API,
          kind,
          name,
          { status: { status: 'active', version: aa ? undefined : `${wanted}.0` } },
          true,
        );
        inFlight.delete(name);
      }, 40);
    }, 0);
  });
  return seen;
}

async function start(
  options: Parameters<typeof startStepBed>[0],
  rec: { policy?: string; bundled?: unknown[] } = {},
): Promise<StepBed> {
  const bed = await startStepBed(options);
  bed.api.bdbs = structuredClone(bed.deps.snapshot.api.bdbs).map((b) => ({ ...b, status: 'active' }));
  const e = bed.emulator;
  e.create(
    REC_API,
    'RedisEnterpriseCluster',
    recObject('7.8.2-60', rec.policy ? { redisUpgradePolicy: rec.policy } : {}),
  );
  e.patch(
    REC_API,
    'RedisEnterpriseCluster',
    'rec',
    {
      status: {
        state: 'Running',
        bundledDatabaseVersions: rec.bundled ?? [
          { dbType: 'redis', version: '7.2', major: true },
          { dbType: 'redis', version: '7.4', major: false },
        ],
      },
    },
    true,
  );
  for (const db of bed.deps.snapshot.databases) {
    e.create(DB_API, DB_KIND, {
      apiVersion: DB_API,
      kind: DB_KIND,
      metadata: { name: db.name },
      spec: { redisVersion: '7.2' },
    });
    e.patch(
      DB_API,
      DB_KIND,
      db.name,
      { status: { status: 'active', version: '7.2.4', databaseUID: db.databaseUid, observedGeneration: 1 } },
      true,
    );
  }
  for (const aa of bed.deps.snapshot.activeActiveDatabases) {
    e.create(DB_API, AA_KIND, {
      apiVersion: DB_API,
      kind: AA_KIND,
      metadata: { name: aa.name },
      spec: { globalConfigurations: { redisVersion: '7.2' }, participatingClusters: [{ name: 'rec' }] },
    });
    e.patch(DB_API, AA_KIND, aa.name, { status: { status: 'active', observedGeneration: 1 } }, true);
  }
  return bed;
}

describe('databases step', () => {
  let bed: StepBed | undefined;
  afterEach(async () => {
    await bed?.close();
    bed = undefined;
  });

  it('upgrades each database one at a time and waits for it to be active at the new version', async () => {
    bed = await start({ snapshot: withDatabases(), target: { dbVersion: '7.4' } });
    const operator = simulateOperator(bed);
    const result = await databasesStep.run(bed.ctx());
    const outcome = result.outcome as DatabasesOutcome;
    assert.deepEqual(outcome.upgraded, ['redis/db1', 'redis/db2', 'redis/db3']);
    assert.deepEqual(outcome.skipped, []);
    assert.equal(operator.maxInFlight, 1, 'one database at a time');
    assert.deepEqual(operator.order, ['db1', 'db2', 'db3']);
    for (const name of ['db1', 'db2', 'db3']) {
      const db = bed.emulator.get(DB_API, DB_KIND, name);
      assert.equal((db?.spec as { redisVersion?: string }).redisVersion, '7.4');
      assert.equal((db?.status as { version?: string }).version, '7.4.0');
    }
    // An intent before each patch, naming the database.
    const intents = bed.log
      .filter((e) => e.type === 'intent')
      .map((e) => (e.data as { current: { database: string } }).current.database);
    assert.deepEqual(intents, ['redis/db1', 'redis/db2', 'redis/db3']);
    assert.equal(bed.kubeWrites().filter((w) => w.startsWith('PATCH')).length, 3);

    // A second run (resume) writes nothing.
    const writes = bed.kubeWrites().length;
    const again = await databasesStep.run(bed.ctx({ previous: bed.previous() }));
    const second = again.outcome as DatabasesOutcome;
    assert.equal(bed.kubeWrites().length, writes);
    assert.deepEqual(
      second.upgraded,
      ['redis/db1', 'redis/db2', 'redis/db3'],
      'patched by the earlier attempt',
    );
    const fresh = await databasesStep.run(bed.ctx());
    assert.deepEqual(
      (fresh.outcome as DatabasesOutcome).skipped.map((s) => s.reason),
      ['already runs 7.4.0', 'already runs 7.4.0', 'already runs 7.4.0'],
    );
    assert.equal(bed.kubeWrites().length, writes);
  });

  it('runs --max-parallel upgrades at once', async () => {
    bed = await start({
      snapshot: withDatabases(),
      target: { dbVersion: '7.4' },
      settings: { maxParallel: 3 },
    });
    const operator = simulateOperator(bed);
    const result = await databasesStep.run(bed.ctx());
    assert.deepEqual([...(result.outcome as DatabasesOutcome).upgraded].sort(), [
      'redis/db1',
      'redis/db2',
      'redis/db3',
    ]);
    assert.ok(operator.maxInFlight <= 3);
  });

  it('skips a minor upgrade under the major policy with a warning', async () => {
    bed = await start({ snapshot: withDatabases(), target: { dbVersion: '7.4' } }, { policy: 'major' });
    simulateOperator(bed);
    const result = await databasesStep.run(bed.ctx());
    const outcome = result.outcome as DatabasesOutcome;
    assert.deepEqual(outcome.upgraded, []);
    assert.equal(outcome.skipped.length, 3);
    assert.match(
      outcome.skipped[0]!.reason,
      /7\.4 is a minor version and the cluster's upgrade policy is major/,
    );
    assert.equal(bed.warnings().length, 3);
    assert.match(bed.warnings()[0]!, /"redisUpgradePolicy":"latest"/);
    assert.deepEqual(bed.kubeWrites(), []);
  });

  it('fails at once when the operator refuses the new version (specStatus Invalid)', async () => {
    bed = await start({ snapshot: withDatabases(), target: { dbVersion: '7.4' } });
    const store = bed.emulator.server.store;
    store.on('change', (event: { type: string; object: KubeObject }) => {
      const o = event.object;
      if (
        o.kind !== DB_KIND ||
        event.type !== 'MODIFIED' ||
        (o.status as { specStatus?: string })?.specStatus === 'Invalid'
      )
        return;
      if ((o.metadata.generation ?? 1) < 2) return;
      setTimeout(
        () =>
          bed!.emulator.patch(
            DB_API,
            DB_KIND,
            o.metadata.name ?? '',
            { status: { specStatus: 'Invalid', observedGeneration: o.metadata.generation } },
            true,
          ),
        0,
      );
    });
    const error = await databasesStep.run(bed.ctx()).then(
      () => assert.fail('expected a failure'),
      (err: unknown) => err,
    );
    assert.ok(error instanceof OperationError);
    assert.equal(error.exitCode, ExitCode.failed);
    assert.match(error.message, /refused the upgrade of redis\/db1 to 7\.4/);
  });

  it('lists the manual procedure for Active-Active databases the target operator cannot upgrade', async () => {
    bed = await start({ snapshot: withDatabases(true), target: { dbVersion: '7.4' } });
    bed.api.bdbs.find((b) => b.name === 'aa1')!.crdt_guid = 'guid-aa1';
    simulateOperator(bed);
    const result = await databasesStep.run(bed.ctx());
    const outcome = result.outcome as DatabasesOutcome;
    assert.deepEqual(outcome.manual, ['redis/aa1']);
    assert.deepEqual(outcome.upgraded, ['redis/db1', 'redis/db2', 'redis/db3']);
    const warning = bed.warnings().find((w) => w.includes('aa1')) ?? '';
    assert.match(warning, /kubectl exec -it rec-0 -n redis -- rladmin upgrade db aa1 redis_version 7\.4/);
    assert.match(warning, /crdb-cli crdb update --crdb-guid guid-aa1 --featureset-version yes/);
  });

  it('upgrades an Active-Active database through spec.globalConfigurations when the operator can', async () => {
    bed = await start({ snapshot: withDatabases(true), target: { to: '8.0.2-2', dbVersion: '7.4' } });
    simulateOperator(bed);
    const result = await databasesStep.run(bed.ctx());
    const outcome = result.outcome as DatabasesOutcome;
    assert.deepEqual(outcome.upgraded, ['redis/db1', 'redis/db2', 'redis/db3', 'redis/aa1']);
    assert.deepEqual(outcome.manual, []);
    const aa = bed.emulator.get(DB_API, AA_KIND, 'aa1');
    assert.equal(
      (aa?.spec as { globalConfigurations: { redisVersion: string } }).globalConfigurations.redisVersion,
      '7.4',
    );
    assert.equal(bed.api.bdbs.find((b) => b.name === 'aa1')?.redis_version, '7.4');
  });

  it('does nothing in dry-run but say what it would patch', async () => {
    bed = await start({ snapshot: withDatabases(), target: { dbVersion: '7.4' } });
    const result = await databasesStep.run(bed.ctx({ dryRun: true }));
    assert.equal((result.outcome as DatabasesOutcome).dryRun, true);
    assert.deepEqual(bed.kubeWrites(), []);
    assert.match(bed.test.stderr(), /would patch redb\/db1 -n redis: \{"spec":\{"redisVersion":"7\.4"\}\}/);
  });

  it("reads each database from the plan action's database field, and makes the change its command shows", async () => {
    bed = await start({ snapshot: withDatabases(true), target: { to: '8.0.2-2', dbVersion: '7.4' } });
    simulateOperator(bed);
    const planned = bed.deps.plan.steps.find((s) => s.id === 'databases');
    assert.ok(planned);
    const commands = planned.actions.map((a) => a.command);
    assert.deepEqual(
      planned.actions.map((a) => a.database),
      [
        ...['db1', 'db2', 'db3'].map((name) => ({
          kind: 'redb',
          name,
          namespace: 'redis',
          version: '7.4',
          manual: false,
        })),
        { kind: 'reaadb', name: 'aa1', namespace: 'redis', version: '7.4', manual: false },
      ],
    );
    // The step must not depend on the command text.
    for (const action of planned.actions) action.command = 'echo not read';
    const result = await databasesStep.run(bed.ctx());
    assert.deepEqual((result.outcome as DatabasesOutcome).upgraded, [
      'redis/db1',
      'redis/db2',
      'redis/db3',
      'redis/aa1',
    ]);
    // What the plan shows is what happened: each resource holds the body of its kubectl patch.
    for (const command of commands) {
      const words = shellWords(command);
      assert.deepEqual(words.slice(0, 2), ['kubectl', 'patch']);
      const kind = words[2] === 'reaadb' ? AA_KIND : DB_KIND;
      const live = bed.emulator.get(DB_API, kind, words[3] ?? '');
      assert.equal(live?.metadata.namespace, words[words.indexOf('-n') + 1]);
      const body = JSON.parse(words[words.indexOf('-p') + 1] ?? '') as unknown;
      assert.ok(contains(live, body), `${command} is reflected in ${JSON.stringify(live?.spec)}`);
    }
  });

  it('still reads plans saved before actions had a database field (from the command)', async () => {
    bed = await start({ snapshot: withDatabases(), target: { dbVersion: '7.4' } });
    simulateOperator(bed);
    const planned = bed.deps.plan.steps.find((s) => s.id === 'databases');
    for (const action of planned?.actions ?? []) delete action.database;
    const result = await databasesStep.run(bed.ctx());
    assert.deepEqual((result.outcome as DatabasesOutcome).upgraded, ['redis/db1', 'redis/db2', 'redis/db3']);
  });

  it('skips when the plan selects no database', async () => {
    bed = await start({ snapshot: withDatabases(), target: { databases: 'none' } });
    const result = await databasesStep.run(bed.ctx());
    assert.equal(result.skipped, 'not selected (--databases none)');
  });
});

describe('databases step helpers', () => {
  it('splits shell words like sh', () => {
    assert.deepEqual(shellWords(`kubectl patch redb 'it'\\''s' -p '{"a":1}'`), [
      'kubectl',
      'patch',
      'redb',
      "it's",
      '-p',
      '{"a":1}',
    ]);
  });

  it('reads the plan actions', () => {
    const fields = dialectFields('engine');
    assert.deepEqual(
      parseAction(
        {
          description: '',
          command: `kubectl patch redb db1 -n ns1 --type merge -p '{"spec":{"engineVersion":"7.4"}}'`,
        },
        fields,
        '7.4',
      ),
      { kind: 'database', name: 'db1', namespace: 'ns1', version: '7.4' },
    );
    assert.deepEqual(
      parseAction(
        { description: '', command: 'kubectl exec -it rec-0 -n redis -- rladmin upgrade db aa1' },
        fields,
        '7.4',
      ),
      { kind: 'manual', name: 'aa1', namespace: 'redis', version: '7.4' },
    );
    // With the kubeconfig and context the plan names (equivalent-commands.ts), the same.
    assert.deepEqual(
      parseAction(
        {
          description: '',
          command: `KUBECONFIG='/a:/b' kubectl --kubeconfig /k/c.yaml --context 'prod'\\''x' patch redb db1 -n ns1 --type merge -p '{"spec":{"engineVersion":"7.4"}}'`,
        },
        fields,
        '7.4',
      ),
      { kind: 'database', name: 'db1', namespace: 'ns1', version: '7.4' },
    );
  });

  it('takes the database field over the command, and refuses a malformed one', () => {
    const fields = dialectFields('redis');
    const replan = { kube: {}, operator: '7.8.2-6' };
    const database = { kind: 'reaadb', name: 'aa1', namespace: 'ns1', version: '7.4', manual: true } as const;
    assert.deepEqual(workOf({ description: '', command: 'anything', database }, fields, null, replan), {
      kind: 'manual',
      name: 'aa1',
      namespace: 'ns1',
      version: '7.4',
    });
    assert.deepEqual(
      workOf(
        { description: '', command: '', database: { ...database, manual: false } },
        fields,
        null,
        replan,
      ),
      { kind: 'active-active', name: 'aa1', namespace: 'ns1', version: '7.4' },
    );
    assert.deepEqual(
      workOf(
        { description: '', command: '', database: { ...database, kind: 'redb', manual: false } },
        fields,
        null,
        replan,
      ),
      { kind: 'database', name: 'aa1', namespace: 'ns1', version: '7.4' },
    );
    const malformed = { description: 'Upgrade x', command: '', database: { ...database, name: '' } };
    assert.throws(
      () => workOf(malformed, fields, null, replan),
      (error: unknown) =>
        error instanceof OperationError &&
        /malformed/.test(error.message) &&
        error.hint === 'Make a new plan (ctl upgrade plan --to 7.8.2-6 --out FILE), or run without --plan.',
    );
    // The new plan names the cluster the run was given, each value quoted.
    const named = {
      kube: { kubeconfigs: ['/k/prod.yaml'], context: 'prod east', namespace: 'red is', cluster: 'rec' },
      operator: '7.8.2-6',
    };
    assert.throws(
      () => workOf(malformed, fields, null, named),
      (error: unknown) =>
        error instanceof OperationError &&
        error.hint ===
          "Make a new plan (ctl --kubeconfig /k/prod.yaml --context 'prod east' upgrade plan --to 7.8.2-6 -n 'red is' --cluster rec --out FILE), or run without --plan.",
    );
    // The manual command of older plans, and of newer ones (with redis_version).
    assert.deepEqual(
      parseAction(
        {
          description: '',
          command: 'kubectl exec -it rec-0 -n redis -- rladmin upgrade db aa1 redis_version 7.2',
        },
        fields,
        '7.4',
      ),
      { kind: 'manual', name: 'aa1', namespace: 'redis', version: '7.2' },
    );
  });

  it('runs a pool with a limit and rethrows the first failure after the others end', async () => {
    let running = 0;
    let peak = 0;
    const done: number[] = [];
    await assert.rejects(
      runPool([1, 2, 3, 4, 5], 2, new AbortController().signal, async (n) => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 5));
        running -= 1;
        if (n === 2) throw new Error('two failed');
        done.push(n);
      }),
      /two failed/,
    );
    assert.equal(peak, 2);
    assert.ok(!done.includes(4) && !done.includes(5), 'no new start after a failure');
  });
});
