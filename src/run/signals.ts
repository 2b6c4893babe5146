import type { Io } from '../io/io.js';

export interface InterruptGuard {
  /** Aborted with reason 'SIGINT' or 'SIGTERM' on the first signal. */
  signal: AbortSignal;
  dispose(): void;
}

/**
 * How long the first signal may take to stop the run. Every wait ctl owns ends on the abort at
 * once; this bounds the rest (a request in flight, helm stopping), so `timeout 1h ctl upgrade
 * run` without `-k` always ends (issue 28).
 */
export const STOP_GRACE_MS = 5_000;

/**
 * First SIGINT/SIGTERM: abort the run so the current step stops its waits and children, and
 * the runner saves the state (exit 130/143 follows through the normal error path). If the run
 * has not ended STOP_GRACE_MS later, it exits then. A second signal exits at once, as Terraform
 * does, because the user has said twice that they mean it.
 */
export function guardInterrupts(
  io: Io,
  exitNow: (code: number) => void = (code) => process.exit(code),
  graceMs = STOP_GRACE_MS,
): InterruptGuard {
  const controller = new AbortController();
  let grace: NodeJS.Timeout | undefined;
  const onSignal = (name: 'SIGINT' | 'SIGTERM') => () => {
    const code = name === 'SIGINT' ? 130 : 143;
    if (controller.signal.aborted) {
      io.error('second interrupt: exiting at once; the state may miss the last change.');
      exitNow(code);
      return;
    }
    io.warn(`${name} received: stopping and saving the state (send it again to exit at once)`);
    grace = setTimeout(() => {
      io.error(
        `did not stop within ${graceMs / 1000} s of ${name}: exiting; the state holds the last saved step, and running the same command again resumes from there.`,
      );
      exitNow(code);
    }, graceMs);
    grace.unref();
    controller.abort(name);
  };
  const sigint = onSignal('SIGINT');
  const sigterm = onSignal('SIGTERM');
  process.on('SIGINT', sigint);
  process.on('SIGTERM', sigterm);
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(grace);
      process.off('SIGINT', sigint);
      process.off('SIGTERM', sigterm);
    },
  };
}
