/**
 * Where a step that works on many items at once stands: how many are done, running, failed and
 * still waiting, and which running ones started longest ago. The databases step attaches it to
 * each progress event (`data.fanOut`), so that a terminal can show one summary of 1,000
 * databases instead of a line for each (src/io/progress.ts); logs and NDJSON keep every event.
 */

import type { FanOutProgress } from '../io/progress.js';

/** How many of the slowest running items a summary names. */
const SLOWEST_SHOWN = 3;

export class FanOutTally {
  readonly #total: number;
  readonly #now: () => number;
  /** Running items by name, with their start time; a Map keeps them in the order they started. */
  readonly #running = new Map<string, number>();
  #done = 0;
  #failed = 0;

  constructor(total: number, now: () => number) {
    this.#total = total;
    this.#now = now;
  }

  start(name: string): void {
    this.#running.set(name, this.#now());
  }

  finish(name: string, outcome: 'done' | 'failed'): void {
    if (!this.#running.delete(name)) return;
    if (outcome === 'done') this.#done += 1;
    else this.#failed += 1;
  }

  snapshot(): FanOutProgress {
    const running = this.#running.size;
    // Started first = running longest: the first entries of the Map.
    const slowest: FanOutProgress['slowest'] = [];
    for (const [name, since] of this.#running) {
      if (slowest.length === SLOWEST_SHOWN) break;
      slowest.push({ name, since });
    }
    return {
      total: this.#total,
      done: this.#done,
      running,
      failed: this.#failed,
      waiting: this.#total - this.#done - this.#failed - running,
      slowest,
    };
  }
}
