/**
 * What a wait says of a list or watch whose request could not be built (src/kube/request.ts
 * requestNotBuilt): the kubeconfig's exec credential plugin failed or printed no credential, its
 * auth provider failed, its server or proxy-url is not a URL. No request left ctl, so the API
 * server never saw it.
 *
 * Such a failure was retried without a word, with the backoff, until the wait's own deadline
 * (exit 6 after --stall-timeout, 10 minutes by default, naming the object awaited and not the
 * cause). client-go's reflector does not hide it: a watch call that fails with anything but a
 * refused connection or a 429 ends ListAndWatch with that error, its WatchErrorHandler logs it
 * ("Failed to watch ...", utilruntime.HandleError), and Run lists and watches again after the
 * backoff manager's delay (k8s.io/client-go tools/cache/reflector.go: watch, isWatchErrorRetriable,
 * DefaultWatchErrorHandler, Run). It retries for as long as it runs; a command has a deadline,
 * and a credential that fails three times in a row will not heal before it: ctl says the first
 * once as a warning and ends the wait at the third in a row (exit 1, as watch-line-errors.ts's
 * third unusable line), naming the cause and what to check. One that heals goes unnoticed but
 * for the warning. A step's waits in parallel (the monitor's watches of the cluster resource and
 * its StatefulSet, the auto-upgrade's two, a database each) meet the same failing plugin each:
 * the step says it once a cause (src/steps/wait-warnings.ts), and each wait still counts its own
 * three in a row, the first to reach them ending the step.
 *
 * Loaded by every plan (watch.ts): nothing heavy here.
 */

import { CtlError, OperationError } from '../errors.js';
import { oneLine } from '../io/safe-text.js';
import { DEFAULT_KUBE_TARGET, type KubeTarget, kubectlCommand } from './kube-target.js';

/** Lists or watches of one wait, in a row, whose request could not be built, before it gives up. */
export const UNBUILT_REQUESTS_BEFORE_GIVING_UP = 3;

/** The message of a failure to build a request, on one line (a plugin's stderr may span several). */
export function unbuiltCause(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return oneLine(message.replace(/\s*\r?\n\s*/g, ' ').trim() || 'no reason given');
}

/**
 * What a wait says once, at its first request that could not be built: the wait goes on. A step
 * says it once for all its waits with the same cause (src/steps/wait-warnings.ts).
 */
export function unbuiltRequestWarning(what: string, server: string, error: unknown): string {
  return `${what}: ctl could not send it to the Kubernetes API server ${server}: ${unbuiltCause(error)}; ctl tries again after a pause (${UNBUILT_REQUESTS_BEFORE_GIVING_UP} such failures in a row end the wait; shown once a step)`;
}

/**
 * The error that ends a wait whose requests could not be built `count` times in a row (exit 1):
 * the last one's cause, and what to do: the cause's own hint where it has one (a credential
 * plugin's names the command to run), else where in the kubeconfig to look.
 */
export function unbuiltRequestsError(
  what: string,
  server: string,
  error: unknown,
  count: number,
  target: KubeTarget = DEFAULT_KUBE_TARGET,
): OperationError {
  const own = error instanceof CtlError ? error.hint : undefined;
  const hint =
    own ??
    `Check the kubeconfig's user (its exec credential plugin or auth provider; ${kubectlCommand(target, 'get', 'namespaces')} uses it too) and its cluster's server and proxy-url; then run the same ctl command again to resume.`;
  return new OperationError(
    `${what}: ctl could not send it to the Kubernetes API server ${server}, ${count} times in a row, so ctl stopped waiting: ${unbuiltCause(error)}`,
    { hint, cause: error },
  );
}
