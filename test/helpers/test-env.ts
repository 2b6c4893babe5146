/**
 * The test process's own environment, taken when the helpers are loaded. While ctl runs in the
 * test's process (./in-process-ctl.ts), `process.env` is that run's; a test beside it in the same
 * file that read `process.env` for its own defaults (the PATH, HOME and compile cache it gives a
 * spawned ctl, the TMPDIR of the run) would take the run's sandbox for its own. The helpers read
 * these instead. Imported statically by every helper that reads it, so it is taken before any run.
 */
export const testProcessEnv: NodeJS.ProcessEnv = process.env;
