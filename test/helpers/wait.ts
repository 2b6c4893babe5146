import { availableParallelism, loadavg } from 'node:os';

/**
 * Waits for `work`, but no longer than `ms`: a wait that never ends fails with the name of what it
 * was waiting for, instead of holding the test (and the run) until the file's timeout.
 */
export async function within<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A hang guard of `ms` on an idle machine, stretched by how busy this one is now (the load
 * average over its cores, at least 1): on a shared 2-core machine with a second suite beside
 * this one, a process takes several times as long to start and stop. A guard only has to be
 * longer than the work could take, and shorter than the test's own timeout.
 */
export function hangGuardMs(ms: number): number {
  const busy = loadavg()[0] ?? 0;
  return Math.round(ms * Math.max(1, busy / availableParallelism()));
}
