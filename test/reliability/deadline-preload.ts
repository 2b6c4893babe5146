/**
 * Loaded with `node --import` before ctl: a timer set for exactly CTL_TEST_DEADLINE_FROM ms fires
 * after CTL_TEST_DEADLINE_TO ms instead, so a test sees one of ctl's deadlines end a wait
 * without waiting the whole deadline. Every other timer is left as it is. The same for
 * AbortSignal.timeout (the management API's deadline of a whole call, src/api/http.ts).
 */
const from = Number(process.env.CTL_TEST_DEADLINE_FROM);
const to = Number(process.env.CTL_TEST_DEADLINE_TO);
if (Number.isFinite(from) && Number.isFinite(to) && from > 0) {
  const original = globalThis.setTimeout;
  const patched = ((callback: (...args: unknown[]) => void, delay?: number, ...args: unknown[]) =>
    original(callback, delay === from ? to : delay, ...args)) as typeof setTimeout;
  globalThis.setTimeout = Object.assign(patched, original);
  const timeout = AbortSignal.timeout.bind(AbortSignal);
  AbortSignal.timeout = (delay: number) => timeout(delay === from ? to : delay);
}
