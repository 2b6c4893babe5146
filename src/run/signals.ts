import type { Io } from '../io/io.js';

export interface InterruptGuard {
  /** Aborted with reason 'SIGINT' or 'SIGTERM' on the first signal. */
  signal: AbortSignal;
  dispose(): void;
}

/**
 * First SIGINT/SIGTERM: abort the run so the current step stops its waits and children, and
 * the runner saves the state (exit 130/143 follows through the normal error path). A second
 * signal exits at once, as Terraform does, because the user has said twice that they mean it.
 */
export function guardInterrupts(
  io: Io,
  exitNow: (code: number) => void = (code) => process.exit(code),
): InterruptGuard {
  const controller = new AbortController();
  const onSignal = (name: 'SIGINT' | 'SIGTERM') => () => {
    if (controller.signal.aborted) {
      io.error('second interrupt: exiting at once; the state may miss the last change.');
      exitNow(name === 'SIGINT' ? 130 : 143);
      return;
    }
    io.warn(`${name} received: stopping and saving the state (send it again to exit at once)`);
    controller.abort(name);
  };
  const sigint = onSignal('SIGINT');
  const sigterm = onSignal('SIGTERM');
  process.on('SIGINT', sigint);
  process.on('SIGTERM', sigterm);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', sigint);
      process.off('SIGTERM', sigterm);
    },
  };
}
