/**
 * docs/exit-codes.md, walked (issue 35): every row of its table is triggered with the BUILT ctl
 * against the simulator, and ends with that code. A row this test has no trigger for fails it,
 * so the table and ctl cannot drift apart: add the trigger here when adding a row.
 * Also the two cases the issue found wrong: an API that answers HTML or truncated JSON (exit 3,
 * the failed api-reachable check, as "Decisions" says) and, in reliability/cluster-lease.test.ts,
 * a ConfigMap-store Lease takeover (exit 5 naming the new holder).
 */

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { acquireLock } from '../../src/run/lock.js';
import { startHostileServer } from '../reliability/hostile-server.js';
import { repoRoot } from '../helpers/run-ctl.js';
import { type RunEvent, SharedUpgradeSim, type UpgradeSim, withUpgradeSim } from './upgrade-support.js';

const TARGET = '7.8.2-6';
const PLAN = ['upgrade', 'plan', '--to', TARGET];
const RUN = ['upgrade', 'run', '--to', TARGET, '--yes'];

/** The codes of the table's rows: `0`, `1`, ..., `130 / 143` as [130, 143]. */
function documentedRows(): number[][] {
  const text = readFileSync(path.join(repoRoot, 'docs', 'exit-codes.md'), 'utf8');
  const table = text.slice(text.indexOf('| code |'), text.indexOf('\n\n', text.indexOf('| code |')));
  return table
    .split('\n')
    .slice(2)
    .map((row) => (row.split('|')[1] ?? '').trim())
    .filter((cell) => cell !== '')
    .map((cell) => cell.split('/').map((code) => Number(code.trim())));
}

interface Outcome {
  code: number | null;
  stderr: string;
}

/** ctl exits with `expected`, and says why on stderr (never a stack trace). */
function expectExit(outcome: Outcome, expected: number, what: string, says?: RegExp): void {
  assert.equal(
    outcome.code,
    expected,
    `${what}: exit ${outcome.code}, expected ${expected}\n${outcome.stderr}`,
  );
  if (says) assert.match(outcome.stderr, says, what);
  assert.doesNotMatch(outcome.stderr, /\n\s+at .*\(.*:\d+:\d+\)/, `${what}: a stack trace`);
}

/** Starts a run in the background and ends it by `signal` once it is past preflight. */
async function interrupted(sim: UpgradeSim, signal: NodeJS.Signals): Promise<Outcome> {
  const run = sim.spawnCtl([...RUN, '-o', 'json']);
  await run.waitFor('the operator step', (e: RunEvent) => e.type === 'step-start' && e.step === 'operator');
  run.child.kill(signal);
  const result = await run.result;
  return { code: result.code, stderr: result.stderr };
}

/** For the triggers that change nothing in the cluster (plans, refused runs). */
const happyPath = new SharedUpgradeSim('happy-path');

/** The triggers that use only a simulator of their own (never happyPath): they may overlap. */
const OWN_CLUSTER = new Set([6, 7, 8, 130, 141, 143]);

const triggers: Record<number, (dir: string) => Promise<void>> = {
  0: async () => {
    await happyPath.use('exit 0', async (sim) => {
      expectExit(await sim.ctl(PLAN), 0, 'plan of a ready cluster');
    });
  },
  1: async () => {
    await happyPath.use('exit 1', async (sim) => {
      // A management API that cannot be reached (nothing listens on port 9 here).
      const unreachable = await sim.ctl(PLAN, { env: { CTL_API_URL: 'https://127.0.0.1:9' } });
      expectExit(unreachable, 1, 'plan, API unreachable', /management API could not be used/);
      // An API error after retries (an HTML 500 page), and an answer whose connection is cut
      // before its Content-Length: the operation failed, not a check (docs/exit-codes.md).
      const server = await startHostileServer();
      try {
        const ca = path.join(sim.sandbox.dir, 'hostile-ca.pem');
        writeFileSync(ca, server.caPem);
        for (const mode of ['html-500', 'truncated-json'] as const) {
          server.setMode(mode, 'ok');
          const plan = await sim.ctl(PLAN, { env: { CTL_API_URL: server.url, CTL_CA_FILE: ca } });
          expectExit(plan, 1, `plan, API answers ${mode}`, /management API could not be used/);
        }
      } finally {
        await server.close();
      }
    });
  },
  2: async () => {
    await happyPath.use('exit 2', async (sim) => {
      expectExit(await sim.ctl([...PLAN, '--no-such-flag']), 2, 'an unknown flag', /unknown option/);
    });
  },
  3: async () => {
    await withUpgradeSim('old-database', async (sim) => {
      expectExit(await sim.ctl(PLAN), 3, 'plan with a database too old', /database-min-version/);
    });
    // An API that answers, but not as the management API does: a failed check too.
    await happyPath.use('exit 3, a hostile API', async (sim) => {
      const server = await startHostileServer();
      try {
        const ca = path.join(sim.sandbox.dir, 'hostile-ca.pem');
        writeFileSync(ca, server.caPem);
        // An HTTP error status (an HTML 502 page) and a connection cut mid-body are exit 1: row 1.
        for (const mode of ['html-200', 'not-json', 'json-cut-short'] as const) {
          server.setMode(mode, 'ok');
          const plan = await sim.ctl(PLAN, { env: { CTL_API_URL: server.url, CTL_CA_FILE: ca } });
          expectExit(plan, 3, `plan, API answers ${mode}`, /api-reachable/);
          const run = await sim.ctl(RUN, { env: { CTL_API_URL: server.url, CTL_CA_FILE: ca } });
          expectExit(run, 3, `run, API answers ${mode}`, /api-reachable/);
        }
      } finally {
        await server.close();
      }
    });
  },
  4: async () => {
    await happyPath.use('exit 4', async (sim) => {
      const refused = await sim.ctl(PLAN, { env: { CTL_PASSWORD: 'not-the-password' } });
      expectExit(refused, 4, 'plan, wrong password');
    });
  },
  5: async () => {
    await happyPath.use('exit 5', async (sim) => {
      const lock = await acquireLock(`${sim.statePath}.lock`, 'upgrade run');
      try {
        expectExit(await sim.ctl(RUN), 5, 'run while another holds the lock', /lock/);
      } finally {
        await lock.release();
      }
    });
  },
  6: async () => {
    await withUpgradeSim(
      'happy-path',
      async (sim) => {
        expectExit(await sim.ctl([...RUN, '--timeout', '2s']), 6, 'run past --timeout');
      },
      { timing: { operatorStart: 1, podRestart: 5, databaseUpgrade: 1 } },
    );
  },
  7: async () => {
    await withUpgradeSim('happy-path', async (sim) => {
      const saved = path.join(sim.sandbox.dir, 'plan.json');
      expectExit(await sim.ctl([...PLAN, '--out', saved]), 0, 'plan --out');
      await sim.kubectl(['patch', 'rec', 'rec', '--type', 'merge', '-p', '{"spec":{"nodes":5}}']);
      expectExit(
        await sim.ctl(['upgrade', 'run', '--plan', saved, '--yes']),
        7,
        'run --plan <stale>',
        /stale|changed/,
      );
    });
  },
  8: async () => {
    // A database without replication is down for its node's whole restart (2 s here, the
    // measurement's 500 ms rounds short of it at most once), longer than --max-unavailable 1s:
    // the run stops before the databases step.
    const dir = mkdtempSync(path.join(tmpdir(), 'ctl-exit-8-'));
    try {
      const scenario = path.join(dir, 'exit-8-single-copy.yaml');
      writeFileSync(
        scenario,
        [
          'name: exit-8-single-copy',
          'description: "One database without replication"',
          'operator: { version: 7.8.2-6, watchNamespaces: [orchard] }',
          'cluster: { nodes: 3 }',
          'databases:',
          '  - { name: pantry, namespace: orchard, version: "7.2", replication: false }',
          '',
        ].join('\n'),
      );
      await withUpgradeSim(
        scenario,
        async (sim) =>
          expectExit(
            await sim.ctl(['upgrade', 'run', '--to', '7.8.6-20', '--yes', '--max-unavailable', '1s']),
            8,
            'run --max-unavailable 1s, a database down for its pod restart',
            /orchard\/pantry/,
          ),
        { timing: { operatorStart: 0, podRestart: 2, databaseUpgrade: 0, failover: 0.2 } },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  130: async () => {
    await withUpgradeSim(
      'happy-path',
      async (sim) => expectExit(await interrupted(sim, 'SIGINT'), 130, 'run, SIGINT'),
      { timing: { operatorStart: 2, podRestart: 2, databaseUpgrade: 1 } },
    );
  },
  141: async () => {
    await withUpgradeSim(
      'happy-path',
      async (sim) => {
        // The reader of its NDJSON goes away (`ctl upgrade run -o json | head -3`).
        const run = sim.spawnCtl([...RUN, '-o', 'json']);
        await run.waitFor(
          'the operator step',
          (e: RunEvent) => e.type === 'step-start' && e.step === 'operator',
        );
        run.child.stdout.destroy();
        const result = await run.result;
        expectExit(
          { code: result.code, stderr: result.stderr },
          141,
          'run, its stdout closed',
          /error: interrupted by a broken pipe: the reader of stdout went away/,
        );
      },
      { timing: { operatorStart: 2, podRestart: 2, databaseUpgrade: 1 } },
    );
  },
  143: async () => {
    await withUpgradeSim(
      'happy-path',
      async (sim) => expectExit(await interrupted(sim, 'SIGTERM'), 143, 'run, SIGTERM'),
      { timing: { operatorStart: 2, podRestart: 2, databaseUpgrade: 1 } },
    );
  },
};

// The rows on the shared cluster run one after another (exit 3's runs and exit 5's lock would meet
// on its state), and beside them the rows on a cluster of their own: most of every row's time is
// waiting (ctl's retries against an API that cannot be used, simulated pod restarts), not CPU.
describe('every row of docs/exit-codes.md, triggered (e2e)', { timeout: 900_000, concurrency: true }, () => {
  const rows = documentedRows();
  after(() => happyPath.close());

  it('the table lists the codes CLI.md fixes', () => {
    const codes = rows.flat();
    for (const code of [0, 1, 2, 3, 4, 5, 6, 7, 8, 130, 143]) assert.ok(codes.includes(code), `row ${code}`);
  });

  const rowTest = (code: number) =>
    it(`exit ${code}`, async () => {
      const trigger = triggers[code];
      assert.ok(
        trigger,
        `docs/exit-codes.md has a row for ${code}, and this test no trigger for it: add one`,
      );
      await trigger('');
    });
  const codes = rows.flat();
  describe('on the shared happy-path cluster, one after another', { concurrency: 1 }, () => {
    for (const code of codes.filter((c) => !OWN_CLUSTER.has(c))) rowTest(code);
  });
  // The rows on a cluster of their own, side by side: most of their time is simulated waits.
  describe('on a cluster of their own', { concurrency: true }, () => {
    for (const code of codes.filter((c) => OWN_CLUSTER.has(c))) rowTest(code);
  });
});
