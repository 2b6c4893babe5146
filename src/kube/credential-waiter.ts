/**
 * Which request an exec credential plugin is started for, so that the plugin can be stopped
 * once nobody waits for its answer (exec-plugin.ts runBounded).
 *
 * client-node's ExecAuth takes no signal: it spawns the plugin through `execFn` and keeps the
 * child to itself. But it spawns it synchronously within the call that asks for the request's
 * options: `applyToFetchOptions` calls `applyToHTTPSOptions`, `applyOptions`,
 * `applyAuthorizationHeader`, the authenticator's `applyAuthentication` and `getCredential`,
 * whose Promise executor calls `execFn`, each before its first `await` (client-node 1.4,
 * dist/config.js and dist/exec_auth.js). So the signal of the request whose options are being
 * built is the one in force while that call runs, and a plugin spawned then belongs to it. Should
 * client-node ever spawn after an `await`, the plugin has no waiter and keeps its own bounds
 * only (its deadline, ctl's exit): test/unit/kube/exec-plugin-abandoned.test.ts fails then.
 */

let current: AbortSignal | undefined;

/**
 * Runs `ask` (a call that may start a credential plugin) with `waiter` as the signal of whoever
 * waits for the credential: aborted, nobody does any more.
 */
export function askedFor<T>(waiter: AbortSignal | undefined, ask: () => T): T {
  const before = current;
  current = waiter;
  try {
    return ask();
  } finally {
    current = before;
  }
}

/** The waiter of the credential being asked for right now, if any. */
export function currentWaiter(): AbortSignal | undefined {
  return current;
}
