/**
 * A small pool: the databases step upgrades `--max-parallel` databases at once, and one that
 * fails stops the others (their waits are aborted) rather than leaving them half watched.
 */

/**
 * Runs `task` over `items`, at most `limit` at once, in order. The first failure stops new
 * starts and aborts the others' waits; it is rethrown once every started task has ended.
 */
export async function runPool<T>(
  items: T[],
  limit: number,
  signal: AbortSignal,
  task: (item: T, signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(signal.reason);
  // An 'abort' listener added after the abort never fires: an interrupt that came during the
  // step's first reads must still stop the pool before its first change.
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && !stop.signal.aborted && next < items.length) {
      const item = items[next++] as T;
      try {
        await task(item, stop.signal);
      } catch (error) {
        if (failure === undefined) {
          failure = { error };
          stop.abort(error);
        }
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (failure !== undefined) throw failure.error;
  if (signal.aborted)
    throw signal.reason instanceof Error
      ? signal.reason
      : new DOMException('The operation was aborted', 'AbortError');
}
