import type { IncomingMessage, ServerResponse } from 'node:http';
import { type FaultAction, FaultInjector, type FaultRule } from '../rest/faults.js';
import { sendStatus } from './http.js';
import { KubeApiError } from './status.js';

/**
 * Fault injection for the Kubernetes API emulator (SIMULATOR.md "faults" with `api: kube`),
 * the counterpart of ../rest/faults.ts. A rule's `match` is:
 * - `"watch"`: every watch request (`?watch=true` or the old `/watch/` prefix);
 * - `"watch /apis/.../redisenterpriseclusters"`: watches of matching paths;
 * - `"PATCH /apis/app.redislabs.com/*"`, `"/api/v1/*"`, `"*"`: as for the REST emulator.
 * A status fault answers with a Kubernetes `Status` (a 409 Conflict, a 410 Gone ...), a delay
 * holds the request before handling it (slow responses), a reset drops the connection.
 * `dropAfterSeconds` rules are periodic watch drops, applied by the cluster, not here.
 */
export type KubeFaultRule = FaultRule & { dropAfterSeconds?: number };

const WATCH_ONLY = /^watch(?:\s+(.*))?$/i;

export class KubeFaultInjector {
  /** Rules for watch requests only (their `match` rewritten to a path glob). */
  readonly #watch: FaultInjector;
  /** Rules for every request. */
  readonly #any: FaultInjector;

  constructor(rules: KubeFaultRule[] = []) {
    const perRequest = rules.filter(
      (rule) => (rule.api === undefined || rule.api === 'kube') && rule.dropAfterSeconds === undefined,
    );
    const watchRules: FaultRule[] = [];
    const anyRules: FaultRule[] = [];
    for (const rule of perRequest) {
      const watch = WATCH_ONLY.exec(rule.match.trim());
      if (watch) watchRules.push({ ...rule, match: watch[1]?.trim() || '*' });
      else anyRules.push(rule);
    }
    this.#watch = new FaultInjector(watchRules);
    this.#any = new FaultInjector(anyRules);
  }

  /** How often each rule fired: watch rules first, then the others, each in scenario order. */
  get firedCounts(): number[] {
    return [...this.#watch.firedCounts, ...this.#any.firedCounts];
  }

  /** The fault for this request, if one fires. Each call counts as one request. */
  decide(method: string, url: URL): FaultAction | undefined {
    if (isWatchRequest(method, url)) {
      // The old `/api/v1/watch/namespaces/...` form matches the same globs as `?watch=true`.
      const action = this.#watch.decide(method, url.pathname.replace('/watch/', '/'));
      if (action) return action;
    }
    return this.#any.decide(method, url.pathname);
  }
}

export function isWatchRequest(method: string, url: URL): boolean {
  if (method.toUpperCase() !== 'GET') return false;
  const flag = url.searchParams.get('watch');
  return flag === 'true' || flag === '1' || /^\/apis?\/(?:[^/]+\/)*watch\//.test(url.pathname);
}

/**
 * Applies a fault to one exchange. Returns true when the fault answered the request (or dropped
 * it), false when the request should now be handled normally (after a delay).
 */
export async function applyKubeFault(
  action: FaultAction,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<boolean> {
  if (action.kind === 'reset') {
    request.socket.destroy();
    return true;
  }
  if (action.kind === 'delay') {
    await new Promise((resolve) => setTimeout(resolve, action.delayMs));
    if (action.status === undefined) return false;
  }
  const status = action.kind === 'delay' ? (action.status ?? 503) : action.status;
  request.resume();
  if (action.kind === 'status' && action.retryAfter !== undefined) {
    response.setHeader('Retry-After', String(action.retryAfter));
  }
  sendStatus(response, new KubeApiError(status, reasonOf(status), messageOf(status)));
  return true;
}

function reasonOf(status: number): string {
  return REASONS[status] ?? (status >= 500 ? 'InternalError' : 'BadRequest');
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Expired',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

function messageOf(status: number): string {
  if (status === 409) {
    return 'Operation cannot be fulfilled: the object has been modified; please apply your changes to the latest version and try again (injected fault)';
  }
  if (status === 410) return 'too old resource version (injected fault)';
  return `injected fault: HTTP ${status}`;
}
