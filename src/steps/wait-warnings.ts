/**
 * The warnings of a step's waits, said once a step for each cause (src/kube/watch.ts
 * WaitWarning). A wait says its first request that could not be built, or its first watch line
 * it could not use, once; but a step waits on several collections at once (the monitor follows
 * the cluster resource, its StatefulSet and the pods; the auto-upgrade's wait, the resource and
 * the StatefulSet; the databases step, one wait per database), so one failing credential plugin
 * gave one warning per collection, the same cause each time, before the first wait to reach its
 * third failure in a row ended the step. Each wait keeps its own count (watch.ts); only what is
 * said is folded here: the first warning of each cause, whichever wait met it.
 *
 * A step's contexts share its `warn` (databases.ts spreads the step's context for its progress
 * counts): the causes already said are kept by that function, for as long as the step's context
 * lives.
 */

import type { WaitWarning } from '../kube/watch.js';

type Warn = (message: string) => void;

const saidByStep = new WeakMap<Warn, Set<string>>();

/**
 * A wait's `onWarning` that says `message` through `ctx.warn` unless the step has said a warning
 * of the same cause already; `reword` puts the step's own words around it (a database's label).
 */
export function stepWaitWarning(
  ctx: { warn: Warn },
  reword: (message: string) => string = (message) => message,
): WaitWarning {
  let said = saidByStep.get(ctx.warn);
  if (said === undefined) {
    said = new Set();
    saidByStep.set(ctx.warn, said);
  }
  const causes = said;
  return (message, cause) => {
    if (causes.has(cause)) return;
    causes.add(cause);
    ctx.warn(reword(message));
  };
}
