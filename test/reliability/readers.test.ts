/**
 * Issue 28, item 1 (docs/reliability.md guarantee 10): readers never write. `ctl upgrade status`
 * polled back to back beside a running upgrade never breaks it; neither status nor a dry run
 * creates, renames or deletes a file beside the state file (a user's `rec.json.1` stays); status
 * on a file that is not a state file keeps no copy; a lock whose owner is gone shows as stale.
 */

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { lockPathFor } from '../../src/run/lock.js';
import { newState, StateFile } from '../../src/run/state.js';
import {
  checkUpgraded,
  figure,
  pick,
  runOnBed,
  spawnOnBed,
  STACK_TRACE,
  startBed,
  UPGRADE,
} from './support.js';

/** Real waits, so the pollers have a run to poll; several state writes per second. */
const TIMING = { operatorStart: 0.5, podRestart: 0.5, databaseUpgrade: 0.3 };
const POLLERS = pick(3, 6);

function listing(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

describe('readers never write', () => {
  test(`${POLLERS} status pollers back to back beside a run never break it, and a user's files stay`, async () => {
    const bed = await startBed('happy-path', { timing: TIMING });
    try {
      const dir = path.dirname(bed.statePath);
      mkdirSync(dir, { recursive: true });
      const users = [`${path.basename(bed.statePath)}.1`, `${path.basename(bed.statePath)}.2026`];
      for (const name of users) writeFileSync(path.join(dir, name), 'a file of my own\n');
      const run = spawnOnBed(bed, UPGRADE);
      let running = true;
      let polls = 0;
      const pollerErrors: string[] = [];
      const poller = async (): Promise<void> => {
        while (running) {
          const status = await runOnBed(bed, ['upgrade', 'status', '--state', bed.statePath]);
          polls += 1;
          // Before the first save there is no state yet (exit 2); after it, a readable one.
          if (status.code !== 0 && status.code !== 2) pollerErrors.push(status.stderr.slice(-300));
          if (STACK_TRACE.test(status.stderr)) pollerErrors.push(`a stack trace: ${status.stderr}`);
        }
      };
      const pollers = Array.from({ length: POLLERS }, poller);
      const result = await run.result;
      running = false;
      await Promise.all(pollers);
      figure(`status pollers beside a run: ${POLLERS} pollers, ${polls} polls, run exit ${result.code}`);
      assert.equal(result.code, 0, result.stderr.slice(-1500));
      assert.deepEqual(pollerErrors, []);
      assert.deepEqual(
        checkUpgraded(bed).filter((p) => !p.startsWith('left beside the state file')),
        [],
      );
      const backup = `${bed.cluster.scenario.cluster.name}-backup.yaml`;
      assert.deepEqual(
        listing(dir).filter((name) => name !== path.basename(bed.statePath)),
        [backup, ...users].sort(),
        'only the preflight backup and the user files are beside the state file',
      );
    } finally {
      await bed.close();
    }
  });

  test('status and a dry run write nothing; a non-state file gets no copy; a dead lock shows as stale', async () => {
    const bed = await startBed('happy-path');
    try {
      const dir = path.dirname(bed.statePath);
      mkdirSync(dir, { recursive: true });
      const base = path.basename(bed.statePath);
      // A temp file of a writer that is gone: only a run holding the lock may remove it.
      const deadTemp = `${base}.00000000-0000-0000-0000-000000000000.999999999@${hostname()}.tmp`;
      writeFileSync(path.join(dir, deadTemp), '{"half":');
      writeFileSync(path.join(dir, `${base}.1`), 'mine\n');

      const dry = await runOnBed(bed, [...UPGRADE, '--dry-run']);
      assert.equal(dry.code, 0, dry.stderr.slice(-800));
      assert.deepEqual(listing(dir), [base + '.1', deadTemp].sort(), 'a dry run writes nothing');

      // A state file and a lock whose owner is gone.
      const file = new StateFile(bed.statePath);
      const cluster = bed.cluster.scenario;
      // An earlier, finished upgrade: the next run starts a new one.
      const earlier = newState(
        { context: `ctl-sim-${cluster.name}`, namespace: cluster.namespace, cluster: cluster.cluster.name },
        { operator: '7.4.6-2' },
        ['preflight'],
      );
      await file.save({ ...earlier, steps: { preflight: { status: 'done' } }, result: 'succeeded' });
      const lock = lockPathFor(bed.statePath);
      writeFileSync(
        lock,
        JSON.stringify({
          id: '11111111-1111-1111-1111-111111111111',
          pid: 999_999_999,
          host: hostname(),
          user: 'someone',
          operation: 'upgrade run',
          createdAt: new Date().toISOString(),
        }),
      );
      const before = listing(dir);
      const status = await runOnBed(bed, ['upgrade', 'status', '--state', bed.statePath]);
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout, /locked by pid 999999999 .* \(stale: its process is gone/);
      const json = await runOnBed(bed, ['upgrade', 'status', '--state', bed.statePath, '-o', 'json']);
      assert.equal((JSON.parse(json.stdout) as { lockStale: boolean }).lockStale, true);
      assert.deepEqual(listing(dir), before, 'status writes nothing');

      // A file that is not a state file: refused, and no `.corrupt-<ms>` copy.
      const notState = path.join(dir, 'notes.json');
      writeFileSync(notState, '{"hello": "world"}\n');
      const beforeBad = listing(dir);
      const bad = await runOnBed(bed, ['upgrade', 'status', '--state', notState]);
      assert.equal(bad.code, 1, bad.stderr);
      assert.match(bad.stderr, /not a valid ctl state file/);
      assert.deepEqual(listing(dir), beforeBad, 'status on a non-state file writes nothing');

      // A run takes the lock over and then removes the dead writer's temp file, and nothing else.
      const resumed = await runOnBed(bed, UPGRADE);
      assert.equal(resumed.code, 0, resumed.stderr.slice(-800));
      const backup = `${bed.cluster.scenario.cluster.name}-backup.yaml`;
      assert.deepEqual(listing(dir), [base, `${base}.1`, 'notes.json', backup].sort());
    } finally {
      await bed.close();
    }
  });
});
