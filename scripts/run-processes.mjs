// The processes of one test run (scripts/run-tests.mjs), wherever they are in the process tree.
// A test file's process and every ctl it starts carry the run's TMPDIR or NODE_COMPILE_CACHE in
// their environment (test/helpers/run-ctl.ts passes the compile cache on). When the run is
// interrupted, the test runner (run-test-files.mjs) can end before them: a killed test file's
// ctl children are then orphans (their parent gone, no longer below the runner), still running, and node writes the
// compile cache when such a process exits, after the runner removed it. So they are found by
// what they carry, not by their parent: /proc/<pid>/environ holds the environment a process was
// started with. Where there is no /proc (macOS, Windows) none are found and the runner waits
// for its own child only, as before.
import { readdirSync, readFileSync } from 'node:fs';

/** Pids of the processes, other than this one, whose environment holds one of `entries` (`KEY=value`). */
export function processesWith(entries, proc = '/proc') {
  let names;
  try {
    names = readdirSync(proc);
  } catch {
    return [];
  }
  const wanted = new Set(entries);
  const found = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let environ;
    try {
      environ = readFileSync(`${proc}/${name}/environ`, 'latin1');
    } catch {
      continue; // gone meanwhile, or another user's
    }
    if (environ.split('\0').some((entry) => wanted.has(entry))) found.push(Number(name));
  }
  return found;
}

/** Sends `signal` to each pid; one already gone is skipped. */
function signalEach(pids, signal) {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone already
    }
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Ends the processes that carry `entries` and resolves once none is left (or, should one survive
 * SIGKILL, say in uninterruptible sleep, after `killWaitMs` more): `signal` first (a process of
 * the interrupted run has it already when the terminal or `timeout` signalled the whole process
 * group; a second one is harmless), SIGKILL to whatever is still there after `graceMs` (ctl's own
 * grace after a signal is 5 s). `stop()` on the returned handle skips the rest of the grace (a
 * second Ctrl-C). Resolves with the pids found at first.
 */
export function endProcessesWith(
  entries,
  { signal = 'SIGTERM', graceMs = 10_000, killWaitMs = 2_000, pollMs = 100 } = {},
) {
  let hurry;
  const hurried = new Promise((resolve) => {
    hurry = resolve;
  });
  const done = (async () => {
    const first = processesWith(entries);
    if (first.length === 0) return first;
    signalEach(first, signal);
    const graceEnds = Date.now() + graceMs;
    let stopped = false;
    void hurried.then(() => {
      stopped = true;
    });
    while (!stopped && Date.now() < graceEnds) {
      await Promise.race([sleep(pollMs), hurried]);
      if (processesWith(entries).length === 0) return first;
    }
    const killEnds = Date.now() + killWaitMs;
    for (;;) {
      const left = processesWith(entries);
      if (left.length === 0 || Date.now() >= killEnds) return first;
      signalEach(left, 'SIGKILL');
      await sleep(pollMs);
    }
  })();
  return { done, stop: () => hurry() };
}
