/**
 * When the monitor looks at what has no watch: the operator's log and the management API (a
 * freeze, the nodes' versions). Both scale with --stall-timeout, so that a short limit (tests,
 * impatient users) still gets several looks before it fails the step, and a long one does not
 * poll the API more than every few seconds.
 */

/** How often the operator's log and the management API are looked at while the state is Upgrade. */
export function freezePollMs(stallTimeoutMs: number): number {
  return Math.min(5000, Math.max(250, Math.round(stallTimeoutMs / 10)));
}

/** Without a word in the log, a rollout still for this long makes ctl ask the management API. */
export function freezeGraceMs(stallTimeoutMs: number): number {
  return Math.min(60_000, Math.max(1000, Math.round(stallTimeoutMs / 3)));
}
