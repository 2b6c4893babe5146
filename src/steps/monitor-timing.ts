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

/**
 * With a licence that is not Valid, a roll that has not begun (and nothing moving) for this long
 * ends the wait (exit 1, the licence's fix) instead of the whole --stall-timeout: the operator does not upgrade a cluster
 * whose licence is not valid (redis-facts.md: "an invalid licence makes the upgrade fail",
 * RedisLabs/redislabs-docs PR #2486), and what it does instead (InvalidUpgrade, or nothing) is not
 * on record for every release. A minute at the default 10 minutes, time enough for the operator
 * to say InvalidUpgrade itself or to write a renewed licence's status.
 */
export function licenceGraceMs(stallTimeoutMs: number): number {
  return Math.min(60_000, Math.max(1000, Math.round(stallTimeoutMs / 5)));
}
