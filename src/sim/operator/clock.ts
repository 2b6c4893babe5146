/** Time as the simulated operator sees it: injectable so tests can drive it. */
export interface OperatorClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: OperatorClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * The operator's pending work: every simulated wait goes through here so `stop()` can cancel
 * all of it, and a failing task cannot crash the process that hosts the simulator.
 */
export class Timers {
  readonly #clock: OperatorClock;
  readonly #pending = new Set<unknown>();
  readonly #onError: (error: unknown) => void;
  #stopped = false;

  constructor(clock: OperatorClock, onError: (error: unknown) => void) {
    this.#clock = clock;
    this.#onError = onError;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Runs `task` after `seconds` of simulated work (0: on a later tick, never inside the caller). */
  after(seconds: number, task: () => void | Promise<void>): void {
    if (this.#stopped) return;
    const handle = this.#clock.setTimeout(
      () => {
        this.#pending.delete(handle);
        if (this.#stopped) return;
        try {
          const result = task();
          if (result instanceof Promise) result.catch(this.#onError);
        } catch (error) {
          this.#onError(error);
        }
      },
      Math.max(0, seconds * 1000),
    );
    this.#pending.add(handle);
  }

  /** Cancels every pending task; later `after` calls do nothing. */
  stop(): void {
    this.#stopped = true;
    for (const handle of this.#pending) this.#clock.clearTimeout(handle);
    this.#pending.clear();
  }
}
