/**
 * Waiting for a management API action that remediation started (a module upload, a database
 * upgrade) to finish.
 */

import { MalformedAnswerError, NOT_THE_API_HINT } from '../api/api-errors.js';
import type { ApiAction } from '../api/types.js';
import { OperationError, TimeoutError } from '../errors.js';
import { oneLine } from '../io/safe-text.js';
import { formatDuration } from '../kube/watch.js';
import { curlApi } from '../planning/equivalent-commands.js';
import type { StepContext } from '../run/step.js';
import type { UpgradeDeps } from './deps.js';

/**
 * The documented statuses of an action (redis/docs content/operate/rs/references/rest-api/
 * objects/action.md, "queued -> starting -> running -> completed | cancelling -> cancelled |
 * failed | aborted"; requests/actions/_index.md lists v1's "pending", "active", "completed",
 * "failed" and v2's "queued", "running", "completed", "failed"; redis-facts.md §4): the ends,
 * and the states of an action still under way.
 */
const FAILED_ACTION = new Set(['failed', 'cancelled', 'aborted']);
const UNDER_WAY = new Set(['queued', 'starting', 'running', 'cancelling', 'pending', 'active']);

export function isFinished(action: ApiAction): boolean {
  return action.status === 'completed' || FAILED_ACTION.has(action.status);
}

/**
 * Polls `GET /v1/actions/<uid>` (the management API has no watch) until the action completes.
 * A failed action is an OperationError with the action's own error; no change in status or
 * progress for --stall-timeout is a TimeoutError. An action the API no longer knows (404 after
 * it finished) counts as done: the caller verifies the result on the object itself.
 *
 * A status the reference does not list (`"weird"`) is neither done nor failed: the lists differ
 * between the pages and releases, so a newer cluster may well name a state of its own while the
 * action goes on. The wait warns once, naming it, and goes on within the same bounds
 * (--stall-timeout, --timeout), whose errors name the status; it is never taken for done.
 */
export async function waitForAction(ctx: StepContext<UpgradeDeps>, uid: string, what: string): Promise<void> {
  const { api, clock, settings } = ctx.deps;
  const started = clock.now();
  let lastChange = started;
  let last = '';
  let delay = 250;
  const unknownWarned = new Set<string>();
  for (;;) {
    let action: ApiAction;
    try {
      action = await api.getAction(uid);
    } catch (error) {
      // An answer not in the action's documented form (src/api/action-shape.ts) tells nothing:
      // neither done nor failed. The step stops, saying what it could not tell.
      if (error instanceof MalformedAnswerError)
        throw new MalformedAnswerError(`cannot tell whether ${what} finished: ${error.message}`, {
          hint: `Look at the action with ${curlApi('GET', `/v1/actions/${uid}`)}. ${NOT_THE_API_HINT} Then run ctl again: it looks at the cluster before it asks for anything again.`,
          cause: error,
        });
      if (error instanceof OperationError && /HTTP 404/.test(error.message)) return;
      throw error;
    }
    if (action.status === 'completed') return;
    if (FAILED_ACTION.has(action.status)) {
      const detail =
        action.error_message ??
        (action.additional_info as { error?: string } | undefined)?.error ??
        (typeof action.error_code === 'string' ? action.error_code : undefined) ??
        'no error message';
      throw new OperationError(`${what} failed (action ${uid}, ${action.status}): ${detail}`, {
        hint: `Look at the action with ${curlApi('GET', `/v1/actions/${uid}`)} and at the cluster's logs; fix the cause, then run ctl again.`,
      });
    }
    if (!UNDER_WAY.has(action.status) && !unknownWarned.has(action.status)) {
      unknownWarned.add(action.status);
      ctx.warn(
        `${what}: the action ${uid} reports the status ${JSON.stringify(oneLine(action.status))}, which the REST reference does not list (queued, starting, running, cancelling, pending, active; completed; failed, cancelled, aborted): ctl takes it for neither done nor failed and keeps waiting, within --stall-timeout and --timeout`,
      );
    }
    const now = clock.now();
    const seen = `${action.status} ${action.progress ?? ''}`;
    if (seen !== last) {
      last = seen;
      lastChange = now;
      ctx.progress(
        `${what}: ${action.status}${typeof action.progress === 'number' ? ` ${Math.round(action.progress)}%` : ''}`,
      );
    }
    if (now - lastChange > settings.stallTimeoutMs) {
      throw new TimeoutError(
        `${what} made no progress for ${formatDuration(settings.stallTimeoutMs)} (action ${uid}: ${statusText(action.status)})`,
        {
          hint: `Look at the action with ${curlApi('GET', `/v1/actions/${uid}`)}; run ctl again to keep waiting.`,
        },
      );
    }
    if (now - started > settings.timeoutMs) {
      throw new TimeoutError(
        `timed out after ${formatDuration(settings.timeoutMs)} waiting for ${what} (action ${uid}: ${statusText(action.status)})`,
        {
          hint: `Look at the action with ${curlApi('GET', `/v1/actions/${uid}`)}; run ctl again to keep waiting.`,
        },
      );
    }
    await clock.sleep(delay, ctx.signal);
    delay = Math.min(delay * 2, 2000);
  }
}

/** The status for an error: as it is, or, one the reference does not list, said so. */
function statusText(status: string): string {
  return UNDER_WAY.has(status)
    ? status
    : `${JSON.stringify(oneLine(status))}, a status the REST reference does not list`;
}
