/**
 * A fleet: `ctl upgrade run` over two simulated clusters, named by two contexts of one merged
 * kubeconfig. Each cluster has its own state and lock; its lines are tagged with its context;
 * a table of every cluster ends the run; the exit code is the most severe of theirs. A fleet
 * whose stdout's reader goes away stops as a run does (exit 141), and a cluster it had not
 * started yet names that cause too.
 */

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { loadScenario, type SimulatedCluster, startSimulatedCluster } from '../helpers/simulator.js';
import { mostSevereExitCode } from '../../src/commands/fleet.js';
import { acquireLock } from '../../src/run/lock.js';
import { runCtl, spawnCtl } from '../helpers/run-ctl.js';

const CONTEXTS = ['east', 'west'] as const;

interface Event {
  type: string;
  step?: string;
  message: string;
  data?: Record<string, unknown>;
}

interface KubeconfigDoc {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: Record<string, unknown> }[];
  contexts: { name: string; context: { cluster: string; user: string; namespace?: string } }[];
}

/** One kubeconfig, one context per simulated cluster, each named as given. */
function mergeKubeconfigs(files: Record<string, string>, target: string): void {
  const merged: KubeconfigDoc & Record<string, unknown> = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [],
    users: [],
    contexts: [],
    'current-context': Object.keys(files)[0],
    preferences: {},
  };
  for (const [name, file] of Object.entries(files)) {
    const doc = parse(readFileSync(file, 'utf8')) as KubeconfigDoc;
    merged.clusters.push({ name, cluster: doc.clusters[0]!.cluster });
    merged.users.push({ name, user: doc.users[0]!.user });
    merged.contexts.push({ name, context: { ...doc.contexts[0]!.context, cluster: name, user: name } });
  }
  writeFileSync(target, stringify(merged), { mode: 0o600 });
}

function recTag(cluster: SimulatedCluster, dialect: 'engine' | 'redis' = 'redis'): string {
  const type = cluster.kube.store.resolve('app.redislabs.com/v1', 'RedisEnterpriseCluster');
  const rec = cluster.kube.store.get(type, 'redis', 'rec') as unknown as {
    spec: Record<string, { versionTag: string }>;
  };
  return (
    rec.spec[dialect === 'redis' ? 'redisEnterpriseImageSpec' : 'engineEnterpriseImageSpec']?.versionTag ?? ''
  );
}

test('the fleet exit code is the most severe of the clusters (docs/fleet.md)', () => {
  assert.equal(mostSevereExitCode([0, 0]), 0);
  assert.equal(mostSevereExitCode([0, 3, 5]), 5);
  assert.equal(mostSevereExitCode([6, 1, 4]), 1);
  assert.equal(mostSevereExitCode([2, 1, 130]), 130);
  assert.equal(mostSevereExitCode([130, 143]), 143);
  assert.equal(mostSevereExitCode([7, 3, 2]), 7);
  assert.equal(mostSevereExitCode([0, 42]), 42, 'an unknown code counts as a failure');
});

describe('ctl upgrade run over a fleet of two clusters', { concurrency: 1 }, () => {
  let dir: string;
  let kubeconfig: string;
  const sims: Record<string, SimulatedCluster> = {};
  const env = () => {
    const east = sims.east!;
    return {
      KUBECONFIG: kubeconfig,
      // Each simulator has its own CA: the fleet files name each one; bare --context runs skip it.
      CTL_INSECURE: '1',
      CTL_BUNDLE: east.env.CTL_BUNDLE,
      XDG_STATE_HOME: path.join(dir, 'state'),
    };
  };

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-fleet-'));
    for (const name of CONTEXTS) {
      const scenario = loadScenario('happy-path');
      sims[name] = await startSimulatedCluster({
        scenario: { ...scenario, timing: { operatorStart: 0.2, podRestart: 0.2, databaseUpgrade: 0.1 } },
        dir: path.join(dir, name),
      });
    }
    kubeconfig = path.join(dir, 'kubeconfig');
    mergeKubeconfigs({ east: sims.east!.kubeconfigPath, west: sims.west!.kubeconfigPath }, kubeconfig);
  });
  after(async () => {
    for (const sim of Object.values(sims)) await sim.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('--context twice, two at a time, -o json: events tagged, both upgraded, one report', async () => {
    const report = path.join(dir, 'fleet-report.json');
    const result = await runCtl(
      [
        'upgrade',
        'run',
        '--to',
        '7.8.2-6',
        '--yes',
        '-o',
        'json',
        '--context',
        'east',
        '--context',
        'west',
        '--max-parallel-clusters',
        '2',
        '--report',
        report,
      ],
      { env: env(), cwd: dir },
    );
    assert.equal(result.code, 0, result.stderr);
    const events = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Event);
    const summary = events.at(-1)!;
    for (const event of events.slice(0, -1)) {
      assert.ok(CONTEXTS.includes(event.data?.context as 'east'), `tagged: ${JSON.stringify(event)}`);
    }
    for (const context of CONTEXTS) {
      const own = events.filter((e) => e.data?.context === context);
      assert.deepEqual(
        own.filter((e) => e.type === 'step-done').map((e) => e.step),
        ['preflight', 'operator', 'cluster', 'monitor', 'databases'],
        context,
      );
      assert.equal(own.at(-1)?.type, 'done');
      assert.equal(own.at(-1)?.data?.result, 'succeeded');
      // One state per cluster, under its own context.
      assert.ok(existsSync(path.join(dir, 'state', 'ctl', context, 'redis', 'rec.json')), context);
      assert.equal(recTag(sims[context]!), '7.8.2-60', context);
    }
    assert.equal(summary.type, 'done');
    assert.equal(summary.data?.result, 'succeeded');
    assert.equal(summary.data?.exitCode, 0);
    const rows = summary.data?.clusters as { label: string; result: string; failedStep: string | null }[];
    assert.deepEqual(
      rows.map((r) => [r.label, r.result, r.failedStep]),
      [
        ['east', 'succeeded', null],
        ['west', 'succeeded', null],
      ],
    );

    const written = JSON.parse(readFileSync(report, 'utf8')) as {
      kind: string;
      result: string;
      exitCode: number;
      maxParallelClusters: number;
      clusters: { label: string; cluster: { context: string }; result: string; steps: unknown[] }[];
    };
    assert.equal(written.kind, 'FleetUpgradeReport');
    assert.equal(written.result, 'succeeded');
    assert.equal(written.exitCode, 0);
    assert.equal(written.maxParallelClusters, 2);
    assert.deepEqual(
      written.clusters.map((c) => [c.label, c.cluster.context, c.result, c.steps.length]),
      [
        ['east', 'east', 'succeeded', 7],
        ['west', 'west', 'succeeded', 7],
      ],
    );
  });

  test('--fleet file, text: lines prefixed [context], a summary table, exit 2 for the cluster not found', async () => {
    const fleet = path.join(dir, 'fleet.yaml');
    writeFileSync(
      fleet,
      `- context: east\n  caFile: east/ca.pem\n- context: west\n  namespace: nowhere\n  caFile: west/ca.pem\n`,
    );
    const result = await runCtl(['upgrade', 'run', '--to', '7.8.2-6', '--yes', '--fleet', fleet], {
      env: { ...env(), CTL_INSECURE: undefined },
      cwd: dir,
    });
    assert.doesNotMatch(result.stderr, /--insecure/);
    // No cluster resource in namespace nowhere: a usage error (docs/exit-codes.md).
    assert.equal(result.code, 2, result.stderr);
    const lines = result.stderr.split('\n');
    // The first test upgraded east to 7.8.2-6: this run finds it there and says so, labelled
    // like every line a cluster prints (docs/fleet.md), its Next line too.
    assert.match(
      result.stdout,
      /^\[east\] redis\/rec is already at 7\.8\.2-6 \(cluster 7\.8\.2-60\): nothing to do\n\[east\] Next: /m,
    );
    assert.ok(
      lines.some((line) => line.startsWith('[west] error: ')),
      result.stderr,
    );
    const header = lines.findIndex((line) =>
      /^CLUSTER\s+RESULT\s+DURATION\s+FAILED STEP\s+EXIT\s+AVAILABILITY\s+NOTE$/.test(line),
    );
    assert.ok(header >= 0, result.stderr);
    assert.match(lines[header + 1] ?? '', /^east \(redis\/rec\)\s+succeeded\s+\S+\s+-\s+0/);
    assert.match(lines[header + 2] ?? '', /^west\s+failed\s+\S+\s+-\s+2\s+\S/);
    assert.match(result.stderr, /error: 1 of 2 clusters did not finish their upgrade: west \(exit 2\)/);
  });

  test('the most severe exit code wins: a locked cluster (5) over a cluster not found (2)', async () => {
    const fleet = path.join(dir, 'fleet-locked.yaml');
    writeFileSync(
      fleet,
      '- {context: east, cluster: rec, caFile: east/ca.pem}\n- {context: west, namespace: nowhere, caFile: west/ca.pem}\n',
    );
    const lock = await acquireLock(path.join(dir, 'state', 'ctl', 'east', 'redis', 'rec.json.lock'), 'test');
    try {
      const result = await runCtl(
        ['upgrade', 'run', '--to', '7.8.2-6', '--yes', '--fleet', fleet, '--max-parallel-clusters', '2'],
        { env: { ...env(), CTL_INSECURE: undefined }, cwd: dir },
      );
      assert.equal(result.code, 5, result.stderr);
      assert.match(
        result.stderr,
        new RegExp(`\\[east\\] error: another upgrade of this cluster is running: pid ${process.pid} `),
      );
      assert.match(
        result.stderr,
        /2 of 2 clusters did not finish their upgrade: east \(exit 5\), west \(exit 2\)/,
      );
    } finally {
      await lock.release();
    }
  });

  test('on GitHub Actions: workflow commands carry the label inside them; in parallel, no groups', async () => {
    // Each run to a newer target than the tests before left (a cluster already at its target
    // runs no step, so opens no group).
    const run = (parallel: string) =>
      runCtl(
        [
          'upgrade',
          'run',
          '--to',
          parallel === '1' ? '7.8.6-20' : '8.0.20-27',
          '--yes',
          '--context',
          'east',
          '--context',
          'west',
        ].concat(['--max-parallel-clusters', parallel]),
        {
          env: {
            ...env(),
            XDG_STATE_HOME: path.join(dir, `state-gha-${parallel}`),
            CI: 'true',
            GITHUB_ACTIONS: 'true',
            GITHUB_STEP_SUMMARY: path.join(dir, `summary-${parallel}.md`),
          },
          cwd: dir,
        },
      );
    const serial = await run('1');
    assert.equal(serial.code, 0, serial.stderr);
    const lines = serial.stderr.split('\n');
    // A command after a label would print as text: none is.
    assert.deepEqual(
      lines.filter((line) => /^\[(east|west)\] *::/.test(line)),
      [],
    );
    const groups = lines.filter((line) => line.startsWith('::group::'));
    for (const context of CONTEXTS) {
      assert.ok(
        groups.some((line) => line.startsWith(`::group::[${context}] `)),
        `${context}: ${groups.join(' | ')}`,
      );
    }
    assert.ok(
      groups.every((line) => /^::group::\[(east|west)\] /.test(line)),
      groups.join(' | '),
    );
    let open = false;
    for (const line of lines) {
      if (line.startsWith('::group::')) {
        assert.equal(open, false, `a group opened inside another: ${line}`);
        open = true;
      } else if (line === '::endgroup::') {
        assert.equal(open, true, 'an endgroup without a group');
        open = false;
      }
    }
    assert.equal(open, false, 'every group is closed');
    assert.ok(
      lines.some((line) => /^\[east\] /.test(line)),
      'plain lines keep their label',
    );

    const parallel = await run('2');
    assert.equal(parallel.code, 0, parallel.stderr);
    assert.doesNotMatch(parallel.stderr, /^::(group|endgroup)::/m);
    assert.deepEqual(
      parallel.stderr.split('\n').filter((line) => /^\[(east|west)\] *::/.test(line)),
      [],
    );
    assert.ok(parallel.stderr.split('\n').some((line) => /^\[west\] /.test(line)));
  });

  test('--fleet and --context together are a usage error', async () => {
    const result = await runCtl(
      ['upgrade', 'run', '--to', '7.8.2-6', '--yes', '--fleet', 'x.yaml', '--context', 'east'],
      { env: env(), cwd: dir },
    );
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--fleet and --context are both given/);
  });
});

describe('a fleet over the clusters of one Active-Active database', { concurrency: 1 }, () => {
  let dir: string;
  let kubeconfig: string;
  const sims: Record<string, SimulatedCluster> = {};
  // Written here, not in scenarios/: both clusters hold REAADB geo, with a third participant
  // outside the fleet that already runs an RS bundling 8.6 (the target's default).
  const scenarioText = [
    'name: aa-fleet',
    'description: "A cluster of an Active-Active database whose other participant is current"',
    'dialect: redis',
    'operator: { version: 7.22.2-40 }',
    'cluster: { versionTag: 7.22.2-133, apiVersion: 7.22.2-133 }',
    'remoteClusters: [{ name: rerc-far, rsVersion: 8.0.20-108 }]',
    'databases:',
    '  - { name: cache, version: "7.4" }',
    '  - { name: geo, version: "7.4", activeActive: true, participants: [rerc-far] }',
    '',
  ].join('\n');

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-fleet-aa-'));
    const file = path.join(dir, 'aa-fleet.yaml');
    writeFileSync(file, scenarioText);
    for (const name of CONTEXTS) {
      const scenario = loadScenario(file);
      sims[name] = await startSimulatedCluster({
        scenario: { ...scenario, timing: { operatorStart: 0.2, podRestart: 0.2, databaseUpgrade: 0.1 } },
        dir: path.join(dir, name),
      });
    }
    kubeconfig = path.join(dir, 'kubeconfig');
    mergeKubeconfigs({ east: sims.east!.kubeconfigPath, west: sims.west!.kubeconfigPath }, kubeconfig);
  });
  after(async () => {
    for (const sim of Object.values(sims)) await sim.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const reaadbVersion = (context: string): unknown => {
    const store = sims[context]!.kube.store;
    const type = store.resolve('app.redislabs.com/v1alpha1', 'RedisEnterpriseActiveActiveDatabase');
    const geo = store.get(type, 'redis', 'geo') as unknown as {
      spec: { globalConfigurations: { redisVersion: string } };
    };
    return geo.spec.globalConfigurations.redisVersion;
  };

  // The target is a release with the fix of advisory reaadb-empty-password: an affected one is refused
  // (release-advisories) on a cluster that holds an REAADB.
  test('every cluster first, then the shared REAADB once, on the first cluster that holds it', async () => {
    const report = path.join(dir, 'fleet-report.json');
    const result = await runCtl(
      [
        'upgrade',
        'run',
        '--to',
        '8.0.20-27',
        '--yes',
        '--context',
        'east',
        '--context',
        'west',
        '--max-parallel-clusters',
        '2',
        '--report',
        report,
      ],
      {
        env: {
          KUBECONFIG: kubeconfig,
          CTL_INSECURE: '1',
          // The local --insecure never reaches a participant (issue 35): trusting its certificate
          // is a choice of its own. (The two simulators' CAs share a subject name, so one bundle
          // of both cannot stand in here.)
          CTL_PARTICIPANT_INSECURE: 'rerc-far',
          CTL_BUNDLE: sims.east!.env.CTL_BUNDLE,
          XDG_STATE_HOME: path.join(dir, 'state'),
        },
        cwd: dir,
        timeoutMs: 300_000,
      },
    );
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stderr.split('\n');
    const complete = (context: string) =>
      lines.findIndex(
        (line) => line.startsWith(`[${context}] `) && line.endsWith('upgrade to 8.0.20-27 complete'),
      );
    const lastPass = lines.findIndex((line) => line.includes('raising the shared Active-Active databases'));
    assert.ok(lastPass > 0, result.stderr);
    // Both clusters' own upgrades ended before the shared database was touched.
    for (const context of CONTEXTS) {
      assert.ok(
        complete(context) >= 0 && complete(context) < lastPass,
        `${context} first:\n${result.stderr}`,
      );
      assert.equal(recTag(sims[context]!, 'redis'), '8.0.20-108.27', context);
    }
    // Raised once, on east; west's participant gets it through the global configuration.
    assert.equal(reaadbVersion('east'), '8.6', result.stderr);
    assert.equal(reaadbVersion('west'), '7.4');
    assert.ok(
      lines.some((line) => line.includes('[west] redis/geo: raised through east')),
      result.stderr,
    );
    const featureSet = result.stderr.match(/--featureset-version yes/g) ?? [];
    assert.equal(featureSet.length, 1, result.stderr);

    const written = JSON.parse(readFileSync(report, 'utf8')) as {
      clusters: { label: string; heldBack?: unknown[]; activeActive?: { result: string } }[];
    };
    assert.equal(written.clusters[0]?.activeActive?.result, 'succeeded');
    assert.equal(written.clusters[1]?.activeActive, undefined);
  });
});

describe('a fleet whose output pipe closes', { concurrency: 1 }, () => {
  let dir: string;
  let kubeconfig: string;
  const sims: Record<string, SimulatedCluster> = {};

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-fleet-pipe-'));
    for (const name of CONTEXTS) {
      const scenario = loadScenario('happy-path');
      // east's pods take 2 s each to roll: its run is still in monitor when its stdout closes.
      const podRestart = name === 'east' ? 2 : 0.2;
      sims[name] = await startSimulatedCluster({
        scenario: { ...scenario, timing: { operatorStart: 0.2, podRestart, databaseUpgrade: 0.1 } },
        dir: path.join(dir, name),
      });
    }
    kubeconfig = path.join(dir, 'kubeconfig');
    mergeKubeconfigs({ east: sims.east!.kubeconfigPath, west: sims.west!.kubeconfigPath }, kubeconfig);
  });
  after(async () => {
    for (const sim of Object.values(sims)) await sim.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('exit 141, and the cluster not started says the closed pipe stopped the fleet, not SIGINT', async () => {
    const report = path.join(dir, 'fleet-report.json');
    // One at a time: west waits for east, and is not started once the pipe closes.
    const run = spawnCtl(
      [
        'upgrade',
        'run',
        '--to',
        '7.8.2-6',
        '--yes',
        '-o',
        'json',
        '--context',
        'east',
        '--context',
        'west',
        '--report',
        report,
      ],
      {
        env: {
          KUBECONFIG: kubeconfig,
          CTL_INSECURE: '1',
          CTL_BUNDLE: sims.east!.env.CTL_BUNDLE,
          XDG_STATE_HOME: path.join(dir, 'state'),
        },
        cwd: dir,
        timeoutMs: 120_000,
      },
    );
    let closed = false;
    run.onLine((line) => {
      const event = JSON.parse(line) as Event;
      if (closed || event.type !== 'step-start' || event.step !== 'monitor') return;
      // The reader of its NDJSON goes away (`ctl upgrade run -o json ... | head`).
      closed = true;
      run.child.stdout.destroy();
    });
    const result = await run.result;
    assert.ok(closed, `east's monitor step was never seen:\n${result.stderr}`);
    assert.equal(result.code, 141, result.stderr);
    assert.match(
      result.stderr,
      /2 of 2 clusters did not finish their upgrade: east \(exit 141\), west \(exit 141\)/,
    );
    const written = JSON.parse(readFileSync(report, 'utf8')) as {
      result: string;
      exitCode: number;
      clusters: { label: string; result: string; exitCode: number; error: { message: string } | null }[];
    };
    assert.equal(written.result, 'interrupted');
    assert.equal(written.exitCode, 141);
    const [east, west] = written.clusters;
    assert.equal(east?.exitCode, 141);
    assert.match(east?.error?.message ?? '', /^interrupted by a broken pipe: the reader of stdout went away/);
    assert.equal(west?.result, 'interrupted');
    assert.equal(west?.exitCode, 141);
    assert.equal(
      west?.error?.message,
      'not started: the fleet was interrupted by a broken pipe: the reader of stdout went away',
    );
  });
});
