import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiBdb, ApiNode } from '../../../src/api/types.js';
import { planUpgrade } from '../../../src/steps/index.js';
import type { StepSummary } from '../../../src/run/runner.js';
import { renderVerificationText } from '../../../src/run/summary.js';
import { verify, verifyRun } from '../../../src/run/verification.js';
import { makeSnapshot, makeTarget } from '../planning/snapshot-fixture.js';

const snapshot = makeSnapshot();
const plan = planUpgrade(snapshot, makeTarget({ to: '7.8.2-6' }));
const RS = '7.8.2-60';
const ALL_DONE: StepSummary[] = plan.steps.map((s) => ({
  id: s.id,
  title: s.title,
  result: 'done',
  durationMs: 1,
}));
const nodesAt = (version: string): ApiNode[] =>
  [1, 2, 3].map((uid) => ({ uid, software_version: version, status: 'active' }));
const bdbAt = (version: string, status = 'active'): ApiBdb[] => [
  { uid: 1, name: 'db1', redis_version: version, status },
];

describe('verify: the cluster after a run, as the management API reports it', () => {
  it('every node on the target RS and the database active at 7.4: verified', () => {
    const result = verify({ plan, snapshot, steps: ALL_DONE, nodes: nodesAt(RS), bdbs: bdbAt('7.4') });
    assert.equal(result.status, 'verified');
    assert.equal(result.expectedClusterVersion, RS);
    assert.deepEqual(result.mismatches, []);
    assert.equal(
      renderVerificationText(result),
      `verification (management API): 3 of 3 node(s) on RS ${RS}, 1 of 1 database(s) active at their target version`,
    );
  });

  it('a database still upgrading after the databases step: unexplained, with what to check', () => {
    const result = verify({
      plan,
      snapshot,
      steps: ALL_DONE,
      nodes: nodesAt(RS),
      bdbs: bdbAt('7.2', 'active-change-pending'),
    });
    assert.equal(result.status, 'mismatch');
    assert.equal(result.unexplained, true);
    assert.match(
      result.mismatches[0] ?? '',
      /^database redis\/db1: active-change-pending at 7\.2, expected active at 7\.4: check kubectl get redb db1 -n redis/,
    );
  });

  it('what to check names the kubeconfig and context the run was given', () => {
    const chosen = { ...snapshot, kubeTarget: { kubeconfigs: ['/k/prod.yaml'], context: 'prod east' } };
    const result = verify({
      plan,
      snapshot: chosen,
      steps: ALL_DONE,
      nodes: nodesAt('7.4.6-22'),
      bdbs: bdbAt('7.2', 'active-change-pending'),
    });
    const text = result.mismatches.join('\n');
    assert.match(
      text,
      /kubectl --kubeconfig \/k\/prod\.yaml --context 'prod east' logs deploy\/redis-enterprise-operator/,
    );
    assert.match(
      text,
      /check kubectl --kubeconfig \/k\/prod\.yaml --context 'prod east' get redb db1 -n redis/,
    );
  });

  it('the run to repeat names the cluster the run was given (-n, --cluster too), and nothing when nothing was', () => {
    const chosen = {
      ...snapshot,
      kubeTarget: { kubeconfigs: ['/k/prod.yaml'], context: 'prod east' },
      requestedNamespace: 'red is',
      requestedCluster: 'rec',
    };
    const lagging = {
      plan,
      steps: ALL_DONE,
      nodes: nodesAt('7.4.6-22'),
      bdbs: bdbAt('7.2', 'active-change-pending'),
    };
    const again =
      "run ctl --kubeconfig /k/prod.yaml --context 'prod east' upgrade run --to 7.8.2-6 -n 'red is' --cluster rec again";
    const [nodes, database] = verify({ ...lagging, snapshot: chosen }).mismatches;
    assert.ok(nodes?.startsWith('node 1 ') && nodes.endsWith(`, then ${again}`), nodes);
    assert.ok(database?.startsWith('database redis/db1: ') && database.endsWith(`, then ${again}`), database);
    const bare = verify({ ...lagging, snapshot }).mismatches;
    assert.equal(bare.length, 2);
    for (const line of bare) assert.ok(line.endsWith(', then run ctl upgrade run --to 7.8.2-6 again'), line);
  });

  it('a database the plan left alone (its spec says "major": the operator chooses) is not held to the target', () => {
    const chooser = makeSnapshot((s) => {
      s.databases[0]!.versionSpec = 'major';
    });
    const alone = planUpgrade(chooser, makeTarget({ to: '7.8.2-6' }));
    assert.equal(alone.steps.find((s) => s.id === 'databases')?.actions.length, 0);
    const result = verify({
      plan: alone,
      snapshot: chooser,
      steps: ALL_DONE,
      nodes: nodesAt(RS),
      bdbs: bdbAt('7.2'),
    });
    assert.equal(result.status, 'verified');
    assert.equal(result.databases[0]?.expected, null);
    assert.deepEqual(result.mismatches, []);
    // Not active is still a mismatch the run cannot explain.
    const pending = verify({
      plan: alone,
      snapshot: chooser,
      steps: ALL_DONE,
      nodes: nodesAt(RS),
      bdbs: bdbAt('7.2', 'active-change-pending'),
    });
    assert.equal(pending.unexplained, true);
  });

  it('an Active-Active database a participant held back is explained, with the command for later', () => {
    const withAa = makeSnapshot((s) => {
      s.activeActiveDatabases = [
        {
          name: 'geo',
          namespace: 'redis',
          versionSpec: '7.2',
          participatingClusters: [{ name: 'rec' }, { name: 'rerc-east' }],
        },
      ];
      s.remoteClusters = [{ name: 'rerc-east', namespace: 'redis', local: false, rsVersion: '7.22.2-179' }];
    });
    const target = makeTarget({ to: '8.0.2-6', ignoreCheck: ['upgrade-path'] });
    const held = planUpgrade(withAa, target);
    const result = verify({
      plan: held,
      snapshot: withAa,
      steps: ALL_DONE,
      nodes: nodesAt('8.0.2-41'),
      bdbs: [...bdbAt('8.2'), { uid: 2, name: 'geo', redis_version: '7.2', status: 'active', crdt: true }],
    });
    assert.equal(result.unexplained, false, result.mismatches.join('\n'));
    assert.match(
      result.mismatches.find((m) => m.includes('geo')) ?? '',
      /an Active-Active database held back: participant rerc-east runs Redis Software 7\.22\.2-179.*--databases redis\/geo/,
    );
  });

  it("a held-back database's command is the plan's for later: it names the context, with the run's record", () => {
    const withAa = makeSnapshot((s) => {
      s.kubeTarget = { kubeconfigs: ['/k/prod.yaml'] };
      s.activeActiveDatabases = [
        {
          name: 'geo',
          namespace: 'redis',
          versionSpec: '7.2',
          participatingClusters: [{ name: 'rec' }, { name: 'rerc-east' }],
        },
      ];
      s.remoteClusters = [{ name: 'rerc-east', namespace: 'redis', local: false, rsVersion: '7.22.2-179' }];
    });
    const held = planUpgrade(withAa, makeTarget({ to: '8.0.2-6', ignoreCheck: ['upgrade-path'] }));
    const later = held.steps
      .find((s) => s.id === 'databases')
      ?.actions.find((a) => a.database?.name === 'geo')?.command;
    assert.match(later ?? '', /^ctl --kubeconfig \/k\/prod\.yaml --context \S+ upgrade run /);
    const result = verify({
      plan: held,
      snapshot: withAa,
      steps: ALL_DONE,
      nodes: nodesAt('8.0.2-41'),
      bdbs: [...bdbAt('8.2'), { uid: 2, name: 'geo', redis_version: '7.2', status: 'active', crdt: true }],
      sameRecord: (command) => `${command} --state /s/run.json`,
    });
    const geo = result.mismatches.find((m) => m.includes('geo')) ?? '';
    assert.ok(geo.endsWith(`upgrade it with ${later} --state /s/run.json`), geo);
  });

  /** The plan of db2 alone (--databases db2) and its verification, db1 named `firstName`. */
  function verifyLeftOut(firstName: string): ReturnType<typeof verify> {
    const other = makeSnapshot((s) => {
      s.databases[0]!.name = firstName;
      s.databases.push({ ...s.databases[0]!, uid: 'uid-db2', name: 'db2', databaseUid: '2' });
    });
    const some = planUpgrade(other, makeTarget({ to: '7.8.2-6', databases: 'db2' }));
    return verify({
      plan: some,
      snapshot: other,
      steps: ALL_DONE,
      nodes: nodesAt(RS),
      bdbs: [
        { uid: 1, name: firstName, redis_version: '7.2', status: 'active' },
        { uid: 2, name: 'db2', redis_version: '7.4', status: 'active' },
      ],
    });
  }

  it('a database left out by --databases keeps the target as its yardstick and names the command', () => {
    const result = verifyLeftOut('db1');
    assert.equal(result.status, 'mismatch');
    assert.equal(result.unexplained, false);
    assert.equal(result.databases[0]?.expected, '7.4');
    assert.match(result.mismatches.join('\n'), /redis\/db1: .*not selected for this run \(--databases\)/);
  });

  it('the command it names quotes a database name that is shell code', () => {
    // A database only the management API knows has the name whoever created it gave.
    const result = verifyLeftOut('db1; touch pwned');
    assert.match(result.mismatches.join('\n'), /--databases 'redis\/db1; touch pwned'/);
  });

  it('the cluster steps skipped (--only operator): old nodes are explained, not a failure', () => {
    const steps = ALL_DONE.map((s) => (s.id === 'operator' ? s : { ...s, result: 'not run' as const }));
    const result = verify({ plan, snapshot, steps, nodes: nodesAt('7.4.6-22'), bdbs: bdbAt('7.2') });
    assert.equal(result.status, 'mismatch');
    assert.equal(result.unexplained, false);
    assert.match(result.mismatches.join('\n'), /the cluster steps did not run in this run/);
    assert.match(result.mismatches.join('\n'), /the databases step did not run/);
    // The run that finishes it names the kubeconfig and context the run was given.
    const chosen = { ...snapshot, kubeTarget: { kubeconfigs: ['/k/prod.yaml'], context: 'prod east' } };
    const named = verify({ plan, snapshot: chosen, steps, nodes: nodesAt('7.4.6-22'), bdbs: bdbAt('7.2') });
    const text = named.mismatches.join('\n');
    assert.match(
      text,
      /the cluster steps did not run in this run; run ctl --kubeconfig \/k\/prod\.yaml --context 'prod east' upgrade run --to 7\.8\.2-6 to finish/,
    );
    assert.match(
      text,
      /the databases step did not run: run ctl --kubeconfig \/k\/prod\.yaml --context 'prod east' upgrade run --to 7\.8\.2-6 to finish/,
    );
  });

  it('the API cannot be read: unverified, with the reason; the run is not failed', async () => {
    const result = await verifyRun(
      {
        listNodes: () => Promise.reject(new Error('GET /v1/nodes: connect ECONNREFUSED')),
        listBdbs: () => Promise.resolve([]),
      },
      { plan, snapshot, steps: ALL_DONE },
    );
    assert.equal(result.status, 'unverified');
    assert.equal(result.unexplained, false);
    assert.match(
      renderVerificationText(result),
      /^verification: could not be made: GET \/v1\/nodes: connect ECONNREFUSED/,
    );
  });
});

describe('verifyRun: databases the operator is still upgrading settle first', () => {
  /** A clock whose sleeps pass at once, counting the time they would take. */
  const fakeClock = () => {
    let now = 0;
    const slept: number[] = [];
    return {
      slept,
      now: () => now,
      sleep: (ms: number, signal?: AbortSignal) => {
        if (signal?.aborted) return Promise.reject(signal.reason as Error);
        slept.push(ms);
        now += ms;
        return Promise.resolve();
      },
    };
  };
  /** The API's answers in turn: the last one repeats. */
  const reader = (answers: ApiBdb[][]) => {
    let reads = 0;
    return {
      get reads() {
        return reads;
      },
      listNodes: () => Promise.resolve(nodesAt(RS)),
      listBdbs: () => Promise.resolve(answers[Math.min(reads++, answers.length - 1)]!),
    };
  };
  const input = { plan, snapshot, steps: ALL_DONE };

  it('active-change-pending, then active at the target: read again until it settles, then verified', async () => {
    const clock = fakeClock();
    const api = reader([
      bdbAt('7.2', 'active-change-pending'),
      bdbAt('7.2', 'active-change-pending'),
      bdbAt('7.4'),
    ]);
    const result = await verifyRun(api, input, { clock, boundMs: 60_000 });
    assert.equal(result.status, 'verified', result.mismatches.join('\n'));
    assert.equal(api.reads, 3);
    assert.deepEqual(clock.slept, [250, 500]);
  });

  it('still changing when the bound has passed: the mismatch stands, unexplained, after waiting no longer than the bound', async () => {
    const clock = fakeClock();
    const api = reader([bdbAt('7.2', 'active-change-pending')]);
    const result = await verifyRun(api, input, { clock, boundMs: 5_000 });
    assert.equal(result.unexplained, true);
    assert.match(result.mismatches.join('\n'), /active-change-pending at 7\.2/);
    assert.equal(
      clock.slept.reduce((a, b) => a + b, 0),
      5_000,
    );
  });

  it('a mismatch with no database changing (active at an older version) is not waited for', async () => {
    const clock = fakeClock();
    const api = reader([bdbAt('7.2')]);
    const result = await verifyRun(api, input, { clock, boundMs: 60_000 });
    assert.equal(result.unexplained, true);
    assert.equal(api.reads, 1);
    assert.deepEqual(clock.slept, []);
  });

  it('an interruption ends the wait: the verification as last read stands', async () => {
    const clock = fakeClock();
    const api = reader([bdbAt('7.2', 'active-change-pending')]);
    const signal = AbortSignal.abort(new Error('interrupted'));
    const result = await verifyRun(api, input, { clock, boundMs: 60_000, signal });
    assert.equal(result.unexplained, true);
    assert.equal(api.reads, 1);
  });
});
