/**
 * `ctl upgrade run --state <file>` with a file that is no ctl state (not JSON, another kind or
 * apiVersion, a schema failure) refuses it before it reads the cluster: the error and exit code
 * it gave when it judged the file after planning the whole cluster (exit 1, "is not a valid ctl
 * state file", a copy kept by a run that would hold the lock, none by a dry run), and not one
 * request to either API before it. A valid state of another cluster can only be told once the
 * cluster is read: that one is still refused after the reads (exit 2); a missing file is a
 * first run. The BUILT ctl against the simulated cluster; the simulator's audit counts the requests.
 */

import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { newState } from '../../src/run/state.js';
import { shellQuote } from '../../src/io/shell-words.js';
import { assertExit, describeEntries, SharedUpgradeSim, TARGET, type UpgradeSim } from './upgrade-support.js';

const STEPS = ['preflight', 'operator', 'admission', 'security-context', 'cluster', 'monitor', 'databases'];

/** The requests either API got since `from` (an index into the audit log), and the GETs among them. */
function requestsSince(sim: UpgradeSim, from: number): { all: number; gets: number; listed: string } {
  const entries = sim.cluster.audit.entries.slice(from);
  return {
    all: entries.length,
    gets: entries.filter((entry) => entry.method === 'GET').length,
    listed: describeEntries(entries),
  };
}

/** A valid state of this simulated cluster, as a run writes it. */
function validState(sim: UpgradeSim) {
  const scenario = sim.cluster.scenario;
  return newState(
    { context: `ctl-sim-${scenario.name}`, namespace: scenario.namespace, cluster: scenario.cluster.name },
    { operator: TARGET },
    STEPS,
  );
}

describe('a --state file that is no ctl state is refused before the cluster is read (e2e)', () => {
  const shared = new SharedUpgradeSim('happy-path');
  after(() => shared.close());

  test('not JSON, another kind, another apiVersion, a schema failure: exit 1 at once, no request', async () => {
    await shared.use('runs on state files that are no ctl state', async (sim) => {
      const valid = validState(sim);
      const corpus: Record<string, { content: string; reason: RegExp }> = {
        'not-json': { content: '{"apiVersion": "ctl/v1", "kind": "Upgr', reason: /it is not JSON \(/ },
        'other-kind': { content: JSON.stringify({ ...valid, kind: 'UpgradePlan' }), reason: /kind: / },
        'newer-api': { content: JSON.stringify({ ...valid, apiVersion: 'ctl/v9' }), reason: /apiVersion: / },
        'bad-status': {
          content: JSON.stringify({ ...valid, steps: { preflight: { status: 'maybe' } } }),
          reason: /steps\.preflight\.status: /,
        },
      };
      for (const [name, { content, reason }] of Object.entries(corpus)) {
        const dir = path.join(sim.sandbox.dir, 'refused', name);
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const file = path.join(dir, 'rec.json');
        writeFileSync(file, content, { mode: 0o600 });

        const from = sim.cluster.audit.entries.length;
        const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '--state', file]);
        assertExit(run, 1, `run --state ${name}`);
        const made = requestsSince(sim, from);
        assert.equal(made.gets, 0, `run --state ${name}: GETs before the refusal:\n${made.listed}`);
        assert.equal(made.all, 0, `run --state ${name}: requests before the refusal:\n${made.listed}`);
        assert.match(
          run.stderr,
          new RegExp(`the state file ${escaped(file)} is not a valid ctl state file: `),
        );
        assert.match(run.stderr, reason, `run --state ${name}`);
        // A run that would hold the lock keeps a copy, as it did when it judged the file later.
        assert.match(run.stderr, /hint: A copy was kept at \S+rec\.json\.corrupt-\d+\. Inspect it/);
        const copies = readdirSync(dir).filter((entry) => entry.startsWith('rec.json.corrupt-'));
        assert.equal(copies.length, 1, `run --state ${name}: ${readdirSync(dir).join(', ')}`);
        assert.equal(readFileSync(path.join(dir, copies[0]!), 'utf8'), content);
        assert.equal(readFileSync(file, 'utf8'), content, 'the state file is left as it was');
        assert.deepEqual(readdirSync(dir).sort(), ['rec.json', copies[0]!].sort(), 'no lock file is left');

        // A dry run holds no lock: the same refusal, the move-aside hint, and no copy.
        const fromDry = sim.cluster.audit.entries.length;
        const dry = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--dry-run', '--state', file]);
        assertExit(dry, 1, `dry run --state ${name}`);
        const madeDry = requestsSince(sim, fromDry);
        assert.equal(madeDry.gets, 0, `dry run --state ${name}: GETs before the refusal:\n${madeDry.listed}`);
        assert.equal(madeDry.all, 0, `dry run --state ${name}: requests:\n${madeDry.listed}`);
        assert.match(
          dry.stderr,
          new RegExp(`the state file ${escaped(file)} is not a valid ctl state file: `),
        );
        assert.ok(
          dry.stderr.includes(
            `hint: Inspect it, then move it aside (mv ${shellQuote(file)} ${shellQuote(`${file}.bad`)})`,
          ),
          dry.stderr,
        );
        assert.equal(readdirSync(dir).length, 2, 'a dry run keeps no copy');
      }
    });
  });

  test('the --report of a refused --state names the cluster as far as the flags and the kubeconfig tell, and no request is made', async () => {
    await shared.use('runs with --report on a state file that is no ctl state', async (sim) => {
      const scenario = sim.cluster.scenario;
      const dir = path.join(sim.sandbox.dir, 'refused-report');
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const file = path.join(dir, 'rec.json');
      writeFileSync(file, '{"apiVersion": "ctl/v1", "kind": "Upgr', { mode: 0o600 });
      const runs = [
        // Without -n and --cluster: the kubeconfig's current context and its namespace; the
        // cluster resource would only be known from a read of the namespace.
        {
          flags: [],
          cluster: { context: `ctl-sim-${scenario.name}`, namespace: scenario.namespace, name: null },
        },
        // As given, the context named and a namespace and cluster that are not the context's.
        {
          flags: ['--context', `ctl-sim-${scenario.name}`, '-n', 'elsewhere', '--cluster', 'rec-b'],
          cluster: { context: `ctl-sim-${scenario.name}`, namespace: 'elsewhere', name: 'rec-b' },
        },
      ];
      for (const [i, { flags, cluster }] of runs.entries()) {
        const report = path.join(dir, `report-${i}.json`);
        const from = sim.cluster.audit.entries.length;
        const run = await sim.ctl([
          'upgrade',
          'run',
          '--to',
          TARGET,
          '--yes',
          '--state',
          file,
          '--report',
          report,
          ...flags,
        ]);
        assertExit(run, 1, `run --state <not JSON> --report ${flags.join(' ')}`);
        const made = requestsSince(sim, from);
        assert.equal(made.all, 0, `requests before the refusal:\n${made.listed}`);
        const doc = JSON.parse(readFileSync(report, 'utf8')) as Record<string, unknown>;
        assert.deepEqual(doc.cluster, cluster, JSON.stringify(doc));
        assert.deepEqual(doc.state, { store: 'file', location: file });
        assert.deepEqual((doc.target as { operator?: string } | null)?.operator, TARGET);
        assert.equal(doc.exitCode, 1);
        assert.match(
          (doc.error as { message: string }).message,
          /is not a valid ctl state file: it is not JSON/,
        );
        // The shape of every run's report (src/run/report.ts), nothing added or left out.
        assert.deepEqual(Object.keys(doc).sort(), [
          'apiVersion',
          'cluster',
          'command',
          'ctlVersion',
          'dryRun',
          'durationMs',
          'error',
          'exitCode',
          'failedStep',
          'finishedAt',
          'kind',
          'plan',
          'result',
          'resumeCommand',
          'startedAt',
          'state',
          'steps',
          'target',
          'verification',
        ]);
        // The refusal kept a copy of the file, as in the test above; it goes for the next run.
        for (const entry of readdirSync(dir).filter((e) => e.startsWith('rec.json.corrupt-'))) {
          rmSync(path.join(dir, entry));
        }
      }
    });
  });

  test('a valid state of another cluster is refused only once the cluster is read; a missing one is a first run', async () => {
    await shared.use('runs on a foreign and a missing state file', async (sim) => {
      const valid = validState(sim);
      const dir = path.join(sim.sandbox.dir, 'lineage');
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const foreign = path.join(dir, 'other.json');
      writeFileSync(
        foreign,
        JSON.stringify({ ...valid, lineage: { ...valid.lineage, context: 'prod-eu', cluster: 'other' } }),
        { mode: 0o600 },
      );
      const from = sim.cluster.audit.entries.length;
      const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '--state', foreign]);
      assertExit(run, 2, 'run --state <another cluster>');
      assert.doesNotMatch(run.stderr, /not a valid ctl state file/);
      assert.ok(requestsSince(sim, from).gets > 0, 'the cluster was read before the lineage was judged');

      // The simulator started again after a run stopped on it: the same names, a new REC uid. The
      // refusal says so, and how to start over (the quick start's rehearsal, docs/quickstart.md).
      const stopped = path.join(dir, 'restarted.json');
      writeFileSync(
        stopped,
        JSON.stringify({
          ...valid,
          lineage: { ...valid.lineage, recUid: 'uid-of-the-simulator-that-stopped' },
        }),
        { mode: 0o600 },
      );
      const again = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '--state', stopped]);
      assertExit(again, 2, 'run --state <a run of the simulator before it started again>');
      assert.match(again.stderr, /records an upgrade of another cluster with the same names/);
      assert.match(
        again.stderr,
        new RegExp(
          `hint: Its done steps were done there, not here: a simulated cluster started again \\(ctl sim up\\) is a new cluster under the same names, and the run recorded was on the one that stopped\\. To start over on this one, move ${escaped(stopped)} aside \\(or delete it\\) and run again`,
        ),
      );

      const missing = path.join(dir, 'first.json');
      const fromMissing = sim.cluster.audit.entries.length;
      const dry = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--dry-run', '--state', missing]);
      assertExit(dry, 0, 'dry run --state <missing file>');
      assert.ok(requestsSince(sim, fromMissing).gets > 0, 'a missing state file: the cluster is read');
    });
  });
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
