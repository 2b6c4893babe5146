// The guard of one test run (scripts/run-tests.mjs starts it first, with an IPC channel). A runner
// killed outright (SIGKILL) runs no handler: its test runner child (run-test-files.mjs), the test
// files and the ctl they started would run on, orphans writing into the run's TMPDIR and compile
// cache. The guard waits for its channel to close, which the kernel does when the runner dies
// however it dies, then does what the runner would have: ends the processes that carry the run's
// TMPDIR or compile cache (scripts/run-processes.mjs: the signal, SIGKILL after
// CTL_TEST_STOP_GRACE_MS) and only then removes the run's files. The runner that ends normally stops the guard itself (SIGKILL:
// there is nothing left for it to do). It ignores SIGINT, SIGTERM and SIGHUP: a Ctrl-C reaches
// the whole process group and is the runner's to handle; the guard stays for the case where the
// runner is then killed in the middle of its own cleanup. SIGKILL to the whole group ends the
// guard too: then the next run's start removes the files (scripts/stale-test-runs.mjs).
//
//   node scripts/test-run-guard.mjs <run TMPDIR> <compile cache> <failures file>
//
// It runs with the runner's own environment, not the run's: it carries neither entry, so it is
// never among the processes it ends, nor taken for one of the run's by the next run's start.
import { rmSync } from 'node:fs';
import { endProcessesWith } from './run-processes.mjs';

const [runTmp, compileCache, failuresFile] = process.argv.slice(2);
if (!runTmp || !compileCache || !failuresFile || !process.channel) {
  console.error('test-run-guard: started by scripts/run-tests.mjs only, with an IPC channel and three paths');
  process.exit(2);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => {});
// The terminal may be gone with the runner: a failed write must not end the guard.
process.stderr.on('error', () => {});

process.on('disconnect', async () => {
  const ending = endProcessesWith([`TMPDIR=${runTmp}`, `NODE_COMPILE_CACHE=${compileCache}`], {
    signal: 'SIGTERM',
    graceMs: Number(process.env.CTL_TEST_STOP_GRACE_MS ?? 10_000),
  });
  const stopped = await ending.done;
  for (const path of [runTmp, compileCache, failuresFile]) rmSync(path, { recursive: true, force: true });
  console.error(
    `run-tests: the runner was killed; its guard stopped the run's processes` +
      `${stopped.length > 0 ? ` (pid ${stopped.join(', ')})` : ''} and removed ${runTmp}`,
  );
  process.exit(0);
});
