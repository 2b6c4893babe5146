/**
 * Guarantee 4 (docs/reliability.md): one upgrade of a cluster at a time. Two runs started
 * together: exactly one proceeds, the other exits 5 naming the owner. A lock left behind by a
 * SIGKILLed run is seen as stale (its pid is gone) and taken over by the next run.
 * (test/unit/run/lock.test.ts covers the lock module in-process; this drives the built ctl.)
 */

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { describe, test } from 'node:test';
import { lockPathFor } from '../../src/run/lock.js';
import {
  checkUpgraded,
  delay,
  figure,
  pick,
  pool,
  runOnBed,
  spawnOnBed,
  STACK_TRACE,
  startBed,
  UPGRADE,
  until,
} from './support.js';

/** Real waits, so the run that wins the lock is still running when the other one asks. */
const TIMING = { operatorStart: 0.5, podRestart: 0.5, databaseUpgrade: 0.3 };
const RACES = pick(3, 20);
const STALE = pick(2, 10);

// The races and the stale-lock trials each start their own clusters: the two tests side by side.
describe('locks: one upgrade of a cluster at a time', { concurrency: true }, () => {
  test(`${RACES} races of two concurrent runs: exactly one proceeds, the other exits 5 naming the owner`, async () => {
    const outcomes = await pool(RACES, async () => {
      const problems: string[] = [];
      const bed = await startBed('happy-path', { timing: TIMING });
      try {
        const a = spawnOnBed(bed, UPGRADE);
        const b = spawnOnBed(bed, UPGRADE);
        const [ra, rb] = await Promise.all([a.result, b.result]);
        const codes = [ra.code, rb.code].sort();
        if (codes[0] !== 0 || codes[1] !== 5) {
          problems.push(
            `exit codes ${ra.code} and ${rb.code}, expected 0 and 5\n${ra.stderr.slice(-600)}\n${rb.stderr.slice(-600)}`,
          );
        } else {
          const [winner, loser] = ra.code === 0 ? [a, rb] : [b, ra];
          if (!loser.stderr.includes(`another upgrade of this cluster is running: pid ${winner.pid} on `))
            problems.push(`the refused run does not name pid ${winner.pid}: ${loser.stderr}`);
          if (!/ctl (--kubeconfig \S+ )?upgrade unlock --lock-id /.test(loser.stderr))
            problems.push('no unlock hint');
          if (STACK_TRACE.test(loser.stderr)) problems.push('a stack trace');
        }
        problems.push(...checkUpgraded(bed));
        if (existsSync(lockPathFor(bed.statePath))) problems.push('the lock file is left behind');
      } finally {
        await bed.close();
      }
      return problems;
    });
    const failures = outcomes.flatMap((p, i) => (p.length > 0 ? [`race ${i + 1}: ${p.join('; ')}`] : []));
    figure(`lock races ${RACES} (two runs at once), failures ${failures.length}`);
    assert.deepEqual(failures, []);
  });

  test(`${STALE} locks (and lock temp files) left by a SIGKILLed run are taken over and cleaned by the next run`, async () => {
    const failures: string[] = [];
    for (let trial = 1; trial <= STALE; trial += 1) {
      const bed = await startBed('happy-path', { timing: TIMING });
      try {
        const lock = lockPathFor(bed.statePath);
        const first = spawnOnBed(bed, UPGRADE);
        await until('the lock file', () => (existsSync(lock) ? true : undefined), 60_000);
        await delay(Math.floor(Math.random() * 500));
        first.child.kill('SIGKILL');
        await first.result;
        if (!existsSync(lock)) {
          failures.push(`trial ${trial}: SIGKILL left no lock (nothing to take over)`);
          continue;
        }
        const owner = JSON.parse(readFileSync(lock, 'utf8')) as { pid: number; id: string };
        assert.equal(owner.pid, first.pid);
        // What a kill while the lock was being created leaves (lock.ts writes
        // <lock>.<id>.<pid>@<host>.tmp, then links it): the whole temp file, or an empty one when
        // the kill came right after it was created.
        const temp = `${lock}.${owner.id}.${first.pid}@${hostname()}.tmp`;
        const emptyTemp = `${lock}.${randomUUID()}.${first.pid}@${hostname()}.tmp`;
        writeFileSync(temp, readFileSync(lock));
        writeFileSync(emptyTemp, '');
        const second = await runOnBed(bed, UPGRADE);
        if (second.code !== 0)
          failures.push(`trial ${trial}: the next run exited ${second.code}: ${second.stderr.slice(-800)}`);
        failures.push(...checkUpgraded(bed).map((p) => `trial ${trial}: ${p}`));
        if (existsSync(lock)) failures.push(`trial ${trial}: the lock is left behind`);
        if (existsSync(temp)) failures.push(`trial ${trial}: the dead run's lock temp file is left behind`);
        if (existsSync(emptyTemp))
          failures.push(`trial ${trial}: the dead run's empty lock temp file is left behind`);
      } finally {
        await bed.close();
      }
    }
    figure(`stale-lock takeovers ${STALE} (owner SIGKILLed), failures ${failures.length}`);
    assert.deepEqual(failures, []);
  });
});
