import type { Clock } from '../../../src/api/clock.js';

/** A clock that only moves when told to; sleep records the delay and returns at once. */
export class FakeClock implements Clock {
  current: number;
  readonly sleeps: number[] = [];

  constructor(start = Date.UTC(2026, 10, 21, 12, 0, 0)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.current += ms;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
