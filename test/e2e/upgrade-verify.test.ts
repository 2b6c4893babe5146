import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { clusterTagFor } from '../../src/release/catalog.js';
import { assertExit, parseEvents, TARGET, type UpgradeSim, withUpgradeSim } from './upgrade-support.js';

/**
 * After `ctl upgrade run` (issue 16, item 4): the nodes and databases as the management API
 * reports them, in the run summary, the `done` event and the `--report` document. A difference
 * the run explains (a database left out by --databases) is shown with what to do and keeps exit
 * 0; one it cannot explain (a node reporting the old RS after the monitor step finished) fails
 * the run with exit 1.
 */

const RS = (clusterTagFor(TARGET) ?? '').replace(/^(\d+\.\d+\.\d+-\d+).*$/, '$1');
const TIMEOUT = { timeout: 180_000 };

interface VerificationDoc {
  status: string;
  reason?: string;
  expectedClusterVersion: string | null;
  nodes: { uid: number; softwareVersion: string | null; ok: boolean }[];
  databases: {
    name: string;
    namespace: string | null;
    version: string | null;
    expected: string | null;
    ok: boolean;
    note?: string;
  }[];
  mismatches: string[];
  unexplained: boolean;
}

interface ReportDoc {
  result: string;
  exitCode: number;
  verification: VerificationDoc | null;
}

function readReport(sim: UpgradeSim): ReportDoc {
  return JSON.parse(readFileSync(path.join(sim.sandbox.dir, 'report.json'), 'utf8')) as ReportDoc;
}

describe('ctl upgrade run verifies the upgrade through the management API', { concurrency: 1 }, () => {
  it(
    'happy-path: every node on the target RS, every database active at 7.4, in summary and report',
    TIMEOUT,
    async () => {
      await withUpgradeSim('happy-path', async (sim) => {
        const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '--report', 'report.json']);
        assertExit(result, 0);
        assert.match(
          result.stdout,
          new RegExp(
            `verification \\(management API\\): 3 of 3 node\\(s\\) on RS ${RS.replace(/\./g, '\\.')}, 3 of 3 database\\(s\\) active at their target version`,
          ),
        );
        assert.doesNotMatch(result.stdout, /mismatch:/);
        const { verification, result: outcome } = readReport(sim);
        assert.equal(outcome, 'succeeded');
        assert.equal(verification?.status, 'verified');
        assert.equal(verification.expectedClusterVersion, RS);
        assert.deepEqual(
          verification.nodes.map((n) => [n.softwareVersion, n.ok]),
          [
            [RS, true],
            [RS, true],
            [RS, true],
          ],
        );
        assert.deepEqual(verification.databases.map((d) => [d.namespace, d.name, d.version, d.ok]).sort(), [
          ['redis', 'cache', '7.4', true],
          ['redis', 'orders', '7.4', true],
          ['redis', 'sessions', '7.4', true],
        ]);
        assert.deepEqual(verification.mismatches, []);
      });
    },
  );

  it(
    '--databases cache: the two databases left at 7.2 are a mismatch with what to do, exit 0',
    TIMEOUT,
    async () => {
      await withUpgradeSim('happy-path', async (sim) => {
        const result = await sim.ctl([
          'upgrade',
          'run',
          '--to',
          TARGET,
          '--yes',
          '--databases',
          'cache',
          '--report',
          'report.json',
          '-o',
          'json',
        ]);
        assertExit(result, 0);
        const done = parseEvents(result.stdout).find((e) => e.type === 'done');
        const fromEvent = done?.data?.verification as VerificationDoc | undefined;
        assert.equal(done?.data?.result, 'succeeded');
        assert.equal(fromEvent?.status, 'mismatch');
        const { verification } = readReport(sim);
        assert.deepEqual(verification, fromEvent, 'the report and the done event agree');
        assert.equal(verification?.unexplained, false);
        const left = verification.databases.filter((d) => !d.ok).map((d) => [d.name, d.version, d.expected]);
        assert.deepEqual(left.sort(), [
          ['orders', '7.2', '7.4'],
          ['sessions', '7.2', '7.4'],
        ]);
        for (const name of ['orders', 'sessions']) {
          assert.ok(
            verification.mismatches.some((m) =>
              m.includes(
                `database redis/${name}: active at 7.2, not selected for this run (--databases): upgrade it with ctl --kubeconfig ${sim.env.KUBECONFIG} upgrade run --to ${TARGET} --databases redis/${name}`,
              ),
            ),
            verification.mismatches.join('\n'),
          );
        }
        assert.ok(verification.nodes.every((n) => n.ok));
      });
    },
  );

  it(
    'a node that reports the old RS after the monitor step: the run fails (exit 1) and says what to do',
    TIMEOUT,
    async () => {
      await withUpgradeSim('happy-path', async (sim) => {
        // As if node 2 were rolled back after the roll: once the databases step (after the monitor
        // step) asks for its first database upgrade, node 2 reports the old RS again.
        const model = sim.cluster.rest.model;
        const stop = model.onBdbUpgradeRequested(() => {
          const node = model.nodes.find((n) => n.uid === 2);
          if (node) node.software_version = '7.4.6-22';
        });
        const result = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '--report', 'report.json']);
        stop();
        assertExit(result, 1);
        assert.match(result.stderr, /the steps finished, but the management API does not show the upgrade/);
        assert.match(
          result.stderr,
          /node 2 \(7\.4\.6-22, active\): not .* though the monitor step finished; read the operator's log/,
        );
        const report = readReport(sim);
        assert.equal(report.result, 'failed');
        assert.equal(report.exitCode, 1);
        assert.equal(report.verification?.status, 'mismatch');
        assert.equal(report.verification.unexplained, true);
        assert.deepEqual(
          report.verification.nodes.filter((n) => !n.ok).map((n) => n.uid),
          [2],
        );
      });
    },
  );

  it('--dry-run: nothing changed, nothing to verify', TIMEOUT, async () => {
    await withUpgradeSim('happy-path', async (sim) => {
      const result = await sim.ctl([
        'upgrade',
        'run',
        '--to',
        TARGET,
        '--dry-run',
        '--report',
        'report.json',
      ]);
      assertExit(result, 0);
      assert.doesNotMatch(result.stderr, /verification/);
      assert.equal(readReport(sim).verification, null);
    });
  });
});
