/**
 * The test process's own environment, taken when the helpers are loaded. While ctl runs in the
 * test's process (./in-process-ctl.ts), `process.env` is that run's; a test beside it in the same
 * file that read `process.env` for its own defaults (the PATH, HOME and compile cache it gives a
 * spawned ctl, the TMPDIR of the run) would take the run's sandbox for its own. The helpers read
 * these instead. Imported statically by every helper that reads it, so it is taken before any run.
 */
export const testProcessEnv: NodeJS.ProcessEnv = process.env;

/**
 * The environment for a test runner (scripts/run-tests.mjs, `node --test`) that a test starts:
 * the test process's own with `extra`, without the NODE_TEST_CONTEXT its own runner set for it,
 * as with that variable the child runner would take itself for a test file and report to this one.
 */
export function childRunnerEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...testProcessEnv, ...extra };
  delete env.NODE_TEST_CONTEXT;
  return env;
}
