/**
 * A terminal paused with Ctrl-S (XOFF) mid-run, in a real pseudo-terminal (util-linux `script`,
 * the keys typed into its input). Node writes to a terminal synchronously on Linux, so before
 * src/io/terminal-output.ts the first frame after Ctrl-S blocked ctl's whole event loop: no
 * watch was read, the cluster's Lease was not renewed, and the run stood still until Ctrl-Q.
 *
 * What ctl guarantees (docs/upgrade-run.md, "At a terminal"): while its terminal is paused the
 * run goes on (its steps, its waits, its Lease renewals); what it prints is queued, and the
 * frames are dropped; after Ctrl-Q the terminal gets the lines and the process exits with the
 * run's exit code.
 */

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { Scenario } from '../helpers/simulator.js';
import { ctlBin, ctlEnv } from '../helpers/run-ctl.js';
import { assertTerminalLeftClean, requirePty, SCRIPT, TERMINAL_ENV } from './pty.js';
import { type Bed, delay, figure, readState, startBed, until, UPGRADE } from './support.js';

const XOFF = '\u0013';
const XON = '\u0011';

/** Real waits, so the run has steps to do while its terminal is paused. */
const TIMING = { operatorStart: 1, podRestart: 1.5, databaseUpgrade: 1 };
const LEASE_SECONDS = 3;

/** The built-in scenario under other names (no name of this repository makes it pass). */
function renamed(scenario: Scenario): Scenario {
  return {
    ...scenario,
    name: `xoff-${scenario.name}`,
    namespace: 'paused-ns',
    cluster: { ...scenario.cluster, name: 'paused-rec' },
    databases: scenario.databases.map((db) => ({ ...db, namespace: 'paused-ns' })),
  };
}

function clusterLease(bed: Bed) {
  const store = bed.cluster.kube.store;
  return store
    .peekAll(store.resolve('coordination.k8s.io/v1', 'Lease'), bed.cluster.scenario.namespace)
    .find((o) => o.metadata.name?.startsWith('ctl-upgrade-lock-'));
}

/** Seconds since the Lease's last renewal, or undefined when no run holds it. */
function leaseAge(bed: Bed): number | undefined {
  const lease = clusterLease(bed) as { spec?: { renewTime?: string; holderIdentity?: string } } | undefined;
  const renewed = lease?.spec?.renewTime;
  if (!renewed || !lease?.spec?.holderIdentity) return undefined;
  return (Date.now() - Date.parse(renewed)) / 1000;
}

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** ctl in a 120x40 pty whose keyboard the test types on (`type`); output collected. */
function ptyWithKeyboard(args: string[], env: Record<string, string | undefined>, cwd: string) {
  requirePty();
  const command = `stty cols 120 rows 40 && exec ${[process.execPath, ctlBin, ...args].map(quote).join(' ')}`;
  const child = spawn(SCRIPT, ['-qfec', command, '/dev/null'], {
    cwd,
    env: ctlEnv({ ...TERMINAL_ENV, ...env }),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const ended = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    output: () => output,
    type: (keys: string) => child.stdin.write(keys),
    ended,
    kill: () => {
      try {
        process.kill(-(child.pid ?? 0), 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

describe('a terminal paused with Ctrl-S', () => {
  test('the run goes on while paused (steps, waits, Lease renewals) and ends once resumed', async () => {
    const bed = await startBed('happy-path', { timing: TIMING, edit: renamed });
    const pty = ptyWithKeyboard([...UPGRADE, '--lease-duration', `${LEASE_SECONDS}s`], bed.env, bed.dir);
    try {
      await until(
        'the run to start its operator step',
        () => (/Upgrade the operator/.test(pty.output()) ? true : undefined),
        90_000,
      );
      pty.type(XOFF);
      const pausedAt = Date.now();
      await delay(500); // what was on its way to the terminal arrives
      const shownBeforePause = pty.output().length;

      // Paused for longer than the Lease's duration and than any wait of the run: until the
      // state file says the run is over.
      let oldestLease = 0;
      const finished = await until(
        'the run to finish its steps while its terminal is paused',
        () => {
          const age = leaseAge(bed);
          if (age !== undefined) oldestLease = Math.max(oldestLease, age);
          const state = existsSync(bed.statePath) ? readState(bed.statePath) : undefined;
          return state &&
            Object.values(state.steps).every((s) => s?.status === 'done' || s?.status === 'skipped') &&
            Date.now() - pausedAt > LEASE_SECONDS * 2000
            ? state
            : undefined;
        },
        120_000,
      );
      const pausedMs = Date.now() - pausedAt;
      const shownWhilePaused = pty.output().length - shownBeforePause;
      figure(
        `Ctrl-S for ${pausedMs} ms: oldest Lease renewal seen ${oldestLease.toFixed(1)} s, ${shownWhilePaused} chars shown while paused`,
      );
      assert.equal(shownWhilePaused, 0, 'the terminal was paused: nothing reached it');
      assert.ok(Object.keys(finished.steps).length >= 7, 'every step recorded');
      // The Lease was renewed on schedule all along (every third of its duration): never stale.
      assert.ok(
        oldestLease < LEASE_SECONDS,
        `the Lease went ${oldestLease.toFixed(1)} s without renewal (duration ${LEASE_SECONDS} s)`,
      );

      pty.type(XON);
      let guard: NodeJS.Timeout | undefined;
      const code = await Promise.race([
        pty.ended,
        new Promise<never>((_, reject) => {
          guard = setTimeout(() => reject(new Error('ctl did not exit within 60 s of Ctrl-Q')), 60_000);
        }),
      ]).finally(() => clearTimeout(guard));
      const output = pty.output();
      assert.equal(code, 0, output.slice(-3000));
      // The lines written while paused were queued, not lost.
      assert.match(output.slice(shownBeforePause), /Upgrade the databases: \d+ upgraded/);
      assert.match(output.slice(shownBeforePause), /upgrade to 7\.8\.2-6 complete/);
      assertTerminalLeftClean(output, 'Ctrl-S');
    } finally {
      pty.kill();
      await bed.close();
    }
  });
});
