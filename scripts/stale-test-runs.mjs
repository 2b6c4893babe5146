// What a test run killed outright (SIGKILL: no handler runs) leaves in the system's temporary
// folder, removed by the next run's start (scripts/run-tests.mjs). A run's entries are named
// after the runner's pid: ctl-test-run-<pid>-XXXXXX (its TMPDIR), with .compile-cache and
// .failures beside it. Only such names are touched, and only when that pid is no longer a
// process and no process still carries the run's folder or cache in its environment (an orphan
// of the killed run still writing there: scripts/run-processes.mjs); another user's or a live
// run's entries stay.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { processesWith } from './run-processes.mjs';

export const RUN_PREFIX = 'ctl-test-run-';
const RUN_NAME = /^ctl-test-run-(\d+)-[A-Za-z0-9]{6}(\.compile-cache|\.failures)?$/;

/** Whether `pid` is a running process (EPERM: another user's, so running). */
export function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error?.code === 'EPERM';
  }
}

/**
 * Removes from `dir` the entries of runs whose runner is gone; returns their names, sorted.
 * `running` and `carried` are seams for the tests (a pid's liveness; the pids carrying entries).
 */
export function removeStaleRuns(dir, { running = isRunning, carried = processesWith } = {}) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const runs = new Map();
  for (const name of names) {
    const match = RUN_NAME.exec(name);
    if (!match) continue;
    const run = name.slice(0, name.length - (match[2]?.length ?? 0));
    if (!runs.has(run)) runs.set(run, { pid: Number(match[1]), names: [] });
    runs.get(run).names.push(name);
  }
  const removed = [];
  for (const [run, { pid, names: entries }] of runs) {
    if (pid === process.pid || running(pid)) continue;
    const path = join(dir, run);
    if (carried([`TMPDIR=${path}`, `NODE_COMPILE_CACHE=${path}.compile-cache`]).length > 0) continue;
    for (const name of entries) {
      rmSync(join(dir, name), { recursive: true, force: true });
      removed.push(name);
    }
  }
  return removed.sort();
}
