/**
 * Resilient watches (reliability.md §3): LIST, then WATCH from the list's resourceVersion;
 * reconnect from the last seen resourceVersion whenever the stream ends or drops (the API server
 * ends watches after timeoutSeconds, proxies whenever they like, ctl after its idle limit);
 * re-LIST on 410 Gone; stop promptly when the signal aborts. Reaction to a change is
 * immediate: nothing here polls. Each watch is ctl's own bounded stream (bounded-watch.ts): a
 * line it cannot use (past its bound, not JSON, nested too deep, not a watch event, or an ERROR
 * event other than 410) ends that watch as a failure, retried with the backoff from the last
 * event read, as client-go's reflector does (watch-line-errors.ts); the first is said once as a
 * warning, and the third in a row, whatever their kinds, ends the wait (exit 1). A list or watch
 * whose request could not be built (the kubeconfig's credential plugin or auth provider failed:
 * watch-setup-errors.ts) is retried with the backoff too, said once, and ends the wait at the
 * third in a row (exit 1).
 *
 * `waitForObject` builds on it: wait until one named object satisfies a check, with an overall
 * limit and a no-progress (stall) limit, both TimeoutError (exit 6).
 */

import { TimeoutError } from '../errors.js';
import {
  unusableWatchLines,
  watchErrorEvent,
  WatchLineError,
  watchLineWarning,
} from './watch-line-errors.js';
import { credentialNotReady, isKubeDeadlineError, KUBE_DEADLINES, kubeDeadlineError } from './deadlines.js';
import { importWatch, type KubeClients } from './client.js';
import { describeKubeError } from './errors.js';
import { KubeRequestError, kubeRequest, notBuilt, requestNotBuilt } from './request.js';
import { serverForMessages } from './server-url.js';
import { DEFAULT_KUBE_TARGET, type KubeTarget, kubectlCommand } from './kube-target.js';
import {
  UNBUILT_REQUESTS_BEFORE_GIVING_UP,
  unbuiltCause,
  unbuiltRequestsError,
  unbuiltRequestWarning,
} from './watch-setup-errors.js';

export { KubeRequestError } from './request.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** A wait's warning (WatchCollectionOptions.onWarning): the line to say, and its cause to fold by. */
export type WaitWarning = (message: string, cause: string) => void;

/**
 * What `onEvent` receives: `SYNC` with every object after each (re)LIST (the full truth: anything
 * not in it is gone), then one event per change.
 */
export type CollectionEvent<T> = { type: 'SYNC'; objects: T[] } | { type: WatchEventType; object: T };

export interface WatchCollectionOptions<T> {
  kube: KubeClients;
  /** Collection path, e.g. `/api/v1/namespaces/redis/events`. */
  path: string;
  fieldSelector?: string | undefined;
  labelSelector?: string | undefined;
  signal: AbortSignal;
  /** Called for every event, in order; throwing stops the watch and rejects with that error. */
  onEvent: (event: CollectionEvent<T>) => void;
  /**
   * Told, once each, of the first watch that ended on a line ctl could not use while the wait
   * went on (watch-line-errors.ts), and of the first list or watch whose request could not be
   * built (watch-setup-errors.ts): a step's warning. `cause` is what it is about without the
   * request (`unbuilt: <the plugin's error>`, `line: <what the line was>`): a step folds its
   * waits' warnings by it (src/steps/wait-warnings.ts), so one failing credential plugin is said
   * once, not once per collection watched.
   */
  onWarning?: WaitWarning | undefined;
  /** Server-side watch timeout per connection (s); default 25. */
  watchTimeoutSeconds?: number;
  /** WATCH_DEADLINES, shorter in tests. */
  deadlines?: Partial<typeof WATCH_DEADLINES> | undefined;
}

/**
 * How long one watch may take to start. `credentialMs`: building its request, i.e. getting the
 * kubeconfig's credential, as for every request (deadlines.ts KUBE_DEADLINES.credentialMs: an
 * exec plugin is stopped at its own limit, exec-plugin.ts, 60 s, and that error names it, so
 * this only bounds what has no limit of its own, an auth provider).
 * `establishMs`: from the request handed to the connection to the answer's headers, the
 * Kubernetes connect and response deadlines (deadlines.ts). The second starts when the first
 * ends: a plugin that took 45 s to sign in is not the API server's silence.
 */
export const WATCH_DEADLINES = {
  credentialMs: KUBE_DEADLINES.credentialMs,
  establishMs: KUBE_DEADLINES.connectMs + KUBE_DEADLINES.responseMs,
} as const;

/** First and longest delay between failed attempts (client-go's reflector: 800 ms to 30 s). */
const BACKOFF_START_MS = 800;
const BACKOFF_MAX_MS = 30_000;
/**
 * A failure more than this long after the one before starts the backoff again from its first
 * delay, as client-go's reflector's backoff manager does (failureCount).
 */
export const BACKOFF_RESET_MS = 120_000;
/**
 * The failures counted for the backoff (`failures`: of any kind, since the last list or watch
 * that worked, started again after BACKOFF_RESET_MS without one) at which a call without an
 * answer in time (src/kube/deadlines.ts) ends the wait. The count is of all failures, not only
 * deadlines: a server that refused or reset the first two attempts and then stayed silent has
 * failed three times in a row, as one that stayed silent three times, and waiting for two more
 * silences (80 s) would tell the person nothing new. The count is the one the backoff keeps, as
 * client-go's reflector keeps one backoff for whatever failed; unlike it, ctl gives up, as a
 * command with a deadline must. A deadline is what ends the wait here: the other failures keep
 * their own rules (unusable lines, unbuilt requests), or are retried until the wait's deadline.
 */
const DEADLINES_BEFORE_GIVING_UP = 3;
/**
 * Consecutive watches that ended on a line ctl could not use (watch-line-errors.ts: past the
 * bound, not JSON, too deep, not an event, an ERROR event), no event read between them, before
 * a wait gives up.
 */
const UNUSABLE_LINES_BEFORE_GIVING_UP = 3;
/** Statuses that will not heal by retrying. */
const FATAL_CODES = new Set([400, 401, 403, 404, 405, 406, 415, 422]);

/**
 * Lists and watches `path` until the signal aborts (then resolves) or an unrecoverable error
 * (401, 403, 404, a throwing onEvent) rejects. Transient failures (5xx, resets, refused) are
 * retried with jittered exponential backoff; a stream that simply ends is resumed at once.
 */
export async function watchCollection<T>(options: WatchCollectionOptions<T>): Promise<void> {
  const { kube, path, signal } = options;
  const { BoundedWatch } = await importWatch();
  // Every wait opens its own watch: kube.config's requests share one kept connection pool, not
  // a new TLS handshake each (src/kube/request-config.ts).
  const watcher = new BoundedWatch(kube.config);
  const selectors: Record<string, string> = {};
  if (options.fieldSelector) selectors.fieldSelector = options.fieldSelector;
  if (options.labelSelector) selectors.labelSelector = options.labelSelector;

  let resourceVersion: string | undefined;
  let failures = 0;
  let lastFailure = 0;
  /** The lists and watches in a row whose request could not be built; any that was clears it. */
  let unbuilt = 0;
  let warnedUnbuilt = false;
  const server = serverForMessages(kube.config.getCurrentCluster()?.server ?? 'of the kubeconfig');
  /** The watches in a row that ended on a line ctl could not use; an event read clears it. */
  const unusable: WatchLineError[] = [];
  let warned = false;
  /** Consecutive watches that ended within a second without a single event. */
  let quickEnds = 0;
  /** 410 Gone answers in a row, each within a second of its watch (or list) starting. */
  let quickGones = 0;
  /**
   * One 410 is the ordinary end of an old resourceVersion: re-LIST at once. A server (or a proxy
   * before it) that answers every watch so had ctl LIST and WATCH in a loop without a pause, a
   * few hundred requests a second until the wait's deadline. From the second quick one in a row
   * the re-LIST waits as after a failure, as client-go's reflector backs off its relists.
   */
  const relistAfterGone = async (since: number): Promise<void> => {
    resourceVersion = undefined;
    quickGones = Date.now() - since > 1000 ? 1 : quickGones + 1;
    if (quickGones > 1) await sleep(backoff(quickGones - 1), signal);
  };

  while (!signal.aborted) {
    const attempt = Date.now();
    /** The request under way, as a message names it. */
    let what = `GET ${path}`;
    try {
      if (resourceVersion === undefined) {
        const list = await listCollection<T>(kube, path, selectors, signal);
        unbuilt = 0;
        resourceVersion = list.resourceVersion;
        try {
          options.onEvent({ type: 'SYNC', objects: list.items });
        } catch (error) {
          throw new ConsumerError(error);
        }
        failures = 0;
      }
      what = `watch ${path}`;
      const connected = Date.now();
      const ended = await watchOnce<T>(
        watcher,
        server,
        path,
        {
          ...selectors,
          resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: options.watchTimeoutSeconds ?? 25,
        },
        signal,
        { ...WATCH_DEADLINES, ...options.deadlines },
        (type, object) => {
          const rv = (object as { metadata?: { resourceVersion?: string } } | undefined)?.metadata
            ?.resourceVersion;
          if (rv) resourceVersion = rv;
          unusable.length = 0;
          if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED')
            options.onEvent({ type, object });
        },
      );
      if (!requestNotBuilt(ended.error)) unbuilt = 0;
      if (ended.gone) {
        await relistAfterGone(connected); // 410: the history is gone; re-LIST.
        continue;
      }
      if (ended.error !== undefined) throw ended.error;
      // A clean end (the server's timeout, ctl's idle limit, a dropped connection) resumes at
      // once from the last RV; only a connection that ends at once without a word backs off.
      if (ended.sawEvents || Date.now() - connected > 1000) {
        failures = 0;
        quickEnds = 0;
        quickGones = 0;
        continue;
      }
      quickEnds += 1;
      if (quickEnds > 1) await sleep(backoff(quickEnds - 1), signal);
    } catch (error) {
      if (signal.aborted) break;
      if (error instanceof ConsumerError) throw error.cause;
      const code = describeKubeError(error).code;
      if (code === 410) {
        await relistAfterGone(attempt);
        continue;
      }
      if (code !== undefined && FATAL_CODES.has(code)) throw error;
      failures = failureCount(failures, lastFailure, Date.now());
      lastFailure = Date.now();
      // A server that stays silent is not a blip: after a few deadlines, exit 1 with the hint.
      if (isKubeDeadlineError(error) && failures >= DEADLINES_BEFORE_GIVING_UP) throw error;
      // Nor is one that answers with lines ctl cannot use again and again (a proxy that answers
      // every watch so): exit 1 naming it and what the lines were, rather than watch again
      // until the deadline. One among events is said once, and the wait goes on.
      if (error instanceof WatchLineError) {
        unusable.push(error);
        if (unusable.length >= UNUSABLE_LINES_BEFORE_GIVING_UP)
          throw unusableWatchLines(unusable, kube.selection);
        if (!warned) {
          warned = true;
          options.onWarning?.(
            watchLineWarning(error, UNUSABLE_LINES_BEFORE_GIVING_UP),
            `line: ${error.server} sent ${error.problem}`,
          );
        }
      }
      // Nor is a request the kubeconfig gives no way to send (a credential plugin that fails):
      // the API server never sees it, and it will not heal before the wait's deadline.
      if (requestNotBuilt(error)) {
        unbuilt += 1;
        if (unbuilt >= UNBUILT_REQUESTS_BEFORE_GIVING_UP)
          throw unbuiltRequestsError(what, server, error, unbuilt, kube.selection);
        if (!warnedUnbuilt) {
          warnedUnbuilt = true;
          options.onWarning?.(unbuiltRequestWarning(what, server, error), `unbuilt: ${unbuiltCause(error)}`);
        }
      } else {
        unbuilt = 0;
      }
      await sleep(backoff(failures), signal);
    }
  }
}

/**
 * The failures to count for the backoff once one more came at `now`: one more than before, or 1
 * when the last came more than BACKOFF_RESET_MS earlier. client-go's reflector backs off with
 * wait.NewExponentialBackoffManager(800ms, 30s, 2min, ...), which starts again from its first
 * delay when it was not called for 2 minutes (k8s.io/apimachinery pkg/util/wait/backoff.go,
 * getNextBackoff): failures minutes apart, each after a watch that read events then ended on an
 * error, are not one outage. Counted on, they made the delay 30 s, and the third of them, if a
 * deadline, ended the wait as if the server had been silent three times in a row.
 */
export function failureCount(failures: number, lastFailure: number, now: number): number {
  return now - lastFailure > BACKOFF_RESET_MS ? 1 : failures + 1;
}

/** Jittered exponential backoff: a delay in [ceiling/2, ceiling). */
function backoff(failures: number): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_START_MS * 2 ** (failures - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Wraps an error thrown by the caller's onEvent, so it is never retried. */
class ConsumerError extends Error {
  override readonly cause: unknown;
  constructor(cause: unknown) {
    super('onEvent failed');
    this.cause = cause;
  }
}

interface WatchEnd {
  gone: boolean;
  error: unknown;
  sawEvents: boolean;
}

type WatchInstance = InstanceType<Awaited<ReturnType<typeof importWatch>>['BoundedWatch']>;

/**
 * One watch connection, until it ends, fails, or the signal aborts. Its request must be built
 * (the credential obtained) within `deadlines.credentialMs`, then established within
 * `deadlines.establishMs` (the connect and response deadlines) from when it was sent; a
 * connection silent for longer than the idle limit (the server should have ended it at
 * timeoutSeconds) counts as ended: the caller resumes.
 */
function watchOnce<T>(
  watcher: WatchInstance,
  server: string,
  path: string,
  query: Record<string, string | number | boolean | undefined>,
  signal: AbortSignal,
  deadlines: { credentialMs: number; establishMs: number },
  onEvent: (type: string, object: T) => void,
): Promise<WatchEnd> {
  return new Promise<WatchEnd>((resolve, reject) => {
    let settled = false;
    let sawEvents = false;
    let controller: AbortController | undefined;
    let established = false;
    // Whoever waits for this watch's credential: nobody once it is settled (given up, past its
    // deadline, its signal aborted), and an exec plugin started for it is stopped then
    // (credential-waiter.ts), as a request's is (request.ts builtWithin), not left to its 60 s
    // limit or ctl's exit.
    const credentialWaiter = new AbortController();
    // Until the request is sent, it is the kubeconfig's credential that is waited for, not the
    // server: an error that says so, counted as a request not built (watch-setup-errors.ts).
    let establishTimer: NodeJS.Timeout | undefined = setTimeout(
      () =>
        finish({
          gone: false,
          error: notBuilt(credentialNotReady(deadlines.credentialMs, server)),
          sawEvents,
        }),
      deadlines.credentialMs,
    );
    // The credential came: the API server has its deadlines from now on. A credential that came
    // after this watch was given up sends nothing (the next try has its own).
    const sending = (): boolean => {
      clearTimeout(establishTimer);
      if (settled) return false;
      establishTimer = setTimeout(
        () =>
          finish({ gone: false, error: kubeDeadlineError(`watch ${path}`, server, 'response'), sawEvents }),
        deadlines.establishMs,
      );
      return true;
    };
    let idleTimer: NodeJS.Timeout | undefined;
    const stillAlive = (): void => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(
        () => finish({ gone: false, error: undefined, sawEvents }),
        KUBE_DEADLINES.watchIdleMs,
      );
    };
    const finish = (end: WatchEnd | { consumer: unknown }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(establishTimer);
      clearTimeout(idleTimer);
      signal.removeEventListener('abort', onAbort);
      controller?.abort();
      credentialWaiter.abort();
      if ('consumer' in end) reject(new ConsumerError(end.consumer));
      else resolve(end);
    };
    const onAbort = (): void => finish({ gone: false, error: undefined, sawEvents });
    if (signal.aborted) {
      clearTimeout(establishTimer);
      resolve({ gone: false, error: undefined, sawEvents });
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });

    watcher
      .watch(
        path,
        query,
        (type: string, object: unknown) => {
          if (settled) return;
          sawEvents = true;
          stillAlive();
          if (type === 'ERROR') {
            const status = object as { code?: number; message?: string; reason?: string } | undefined;
            if (status?.code === 410 || status?.reason === 'Expired' || status?.reason === 'Gone') {
              finish({ gone: true, error: undefined, sawEvents });
            } else if (typeof status?.code === 'number' && FATAL_CODES.has(status.code)) {
              // Will not heal by watching again (403, 404...): ends the wait at once, as before.
              const message = status.message ?? 'watch error';
              finish({
                gone: false,
                error: new KubeRequestError(message, status.code, JSON.stringify(status)),
                sawEvents,
              });
            } else {
              finish({ gone: false, error: watchErrorEvent(`watch ${path}`, server, status), sawEvents });
            }
            return;
          }
          try {
            onEvent(type, object as T);
          } catch (error) {
            finish({ consumer: error });
          }
        },
        (error: unknown) => {
          if (error === null || error === undefined) {
            finish({ gone: false, error: undefined, sawEvents });
            return;
          }
          const statusCode = (error as { statusCode?: number }).statusCode;
          if (statusCode === 410) {
            finish({ gone: true, error: undefined, sawEvents });
            return;
          }
          if (statusCode !== undefined) {
            finish({
              gone: false,
              error: new KubeRequestError(`watch ${path}: ${(error as Error).message}`, statusCode),
              sawEvents,
            });
            return;
          }
          // Once the stream was established (watch() has returned its controller), a dropped
          // connection is an ordinary end: resume from the last RV. Before that it is a failed
          // connection (refused, reset, TLS); report it so the caller backs off. A line ctl could
          // not use is a failure whenever it comes: resuming at once would read the same answer
          // in a loop.
          const failed = !established || error instanceof WatchLineError;
          finish({ gone: false, error: failed ? error : undefined, sawEvents });
        },
        sending,
        credentialWaiter.signal,
      )
      .then(
        (result) => {
          controller = result;
          established = true;
          clearTimeout(establishTimer);
          if (!settled) stillAlive();
          if (settled) result.abort();
        },
        (error: unknown) => finish({ gone: false, error, sawEvents }),
      );
  });
}

interface ListResult<T> {
  items: T[];
  resourceVersion: string;
}

/** LISTs a collection path with the kubeconfig's credentials and TLS settings. */
export async function listCollection<T>(
  kube: KubeClients,
  path: string,
  query: Record<string, string>,
  signal: AbortSignal,
): Promise<ListResult<T>> {
  const body = await kubeRequest(kube.config, { method: 'GET', path, query, signal });
  const list = (body ?? {}) as { items?: T[]; metadata?: { resourceVersion?: string } };
  return { items: list.items ?? [], resourceVersion: list.metadata?.resourceVersion ?? '0' };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export interface WaitOptions<T> {
  kube: KubeClients;
  /** Collection path, e.g. `/apis/apps/v1/namespaces/redis/deployments`. */
  path: string;
  name: string;
  signal: AbortSignal;
  /** Overall limit and no-progress limit (ms); exceeding either throws TimeoutError (exit 6) naming what was awaited. */
  timeoutMs: number;
  stallTimeoutMs: number;
  /** true = done; a string = progress message (a change of message counts as progress); false = keep waiting. Throw to fail. */
  check: (object: T | undefined) => boolean | string;
  onProgress?: (message: string) => void;
  /** Told once of a watch line ctl could not use while the wait went on (WatchCollectionOptions). */
  onWarning?: WaitWarning | undefined;
  /** How the awaited thing is named in a timeout message; default `<kind> <name>` from the path. */
  description?: string;
  /** What to do about a timeout; default: look at the object with kubectl. */
  hint?: string;
}

/**
 * Resolves with the object once `check` returns true (with undefined if it accepted a missing
 * object); rejects with what `check` threw, a TimeoutError, or the signal's abort reason.
 */
export function waitForObject<T>(options: WaitOptions<T>): Promise<T> {
  const { signal } = options;
  const what = options.description ?? describePath(options.path, options.name);
  const started = Date.now();
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(abortReason(signal));
      return;
    }
    const stop = new AbortController();
    let settled = false;
    let lastMessage: string | undefined;
    let current: T | undefined;
    let seen = false;
    let stallTimer: NodeJS.Timeout | undefined;

    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(overallTimer);
      clearTimeout(stallTimer);
      signal.removeEventListener('abort', onAbort);
      stop.abort();
      outcome();
    };
    const lastSeen = (): string =>
      lastMessage !== undefined
        ? `last seen: ${lastMessage}`
        : seen && current === undefined
          ? `${what} does not exist`
          : 'no status seen yet';
    const hint =
      options.hint ??
      `Look at it: ${kubectlGet(options.path, options.name, options.kube.selection)}; then run the same ctl command again to resume.`;
    const overallTimer = setTimeout(
      () =>
        settle(() =>
          reject(
            new TimeoutError(
              `timed out after ${formatDuration(options.timeoutMs)} waiting for ${what} (${lastSeen()})`,
              {
                hint,
              },
            ),
          ),
        ),
      options.timeoutMs,
    );
    const armStall = (): void => {
      clearTimeout(stallTimer);
      stallTimer = setTimeout(
        () =>
          settle(() =>
            reject(
              new TimeoutError(
                `${what} made no progress for ${formatDuration(options.stallTimeoutMs)} (${lastSeen()}, waited ${formatDuration(Date.now() - started)} in all)`,
                { hint },
              ),
            ),
          ),
        options.stallTimeoutMs,
      );
    };
    armStall();
    const onAbort = (): void => settle(() => reject(abortReason(signal)));
    signal.addEventListener('abort', onAbort, { once: true });

    const evaluate = (): void => {
      let verdict: boolean | string;
      try {
        verdict = options.check(current);
      } catch (error) {
        settle(() => reject(error));
        return;
      }
      if (verdict === true) {
        settle(() => resolve(current as T));
        return;
      }
      if (typeof verdict === 'string' && verdict !== lastMessage) {
        lastMessage = verdict;
        armStall();
        options.onProgress?.(verdict);
      }
    };

    watchCollection<T>({
      kube: options.kube,
      path: options.path,
      fieldSelector: `metadata.name=${options.name}`,
      signal: stop.signal,
      onWarning: (message, cause) => {
        if (!settled) options.onWarning?.(message, cause);
      },
      onEvent: (event) => {
        if (settled) return;
        seen = true;
        if (event.type === 'SYNC') {
          current = event.objects.find((object) => nameOf(object) === options.name);
        } else if (nameOf(event.object) === options.name) {
          current = event.type === 'DELETED' ? undefined : event.object;
        } else {
          return;
        }
        evaluate();
      },
    }).then(
      () => {
        // Only ends by itself when `stop` aborted, i.e. after settling.
      },
      (error: unknown) => settle(() => reject(error)),
    );
  });
}

function nameOf(object: unknown): string | undefined {
  return (object as { metadata?: { name?: string } } | undefined)?.metadata?.name;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason instanceof Error
    ? signal.reason
    : new DOMException('The operation was aborted', 'AbortError');
}

/** `deployments/redis-enterprise-operator` style naming from a collection path. */
function describePath(path: string, name: string): string {
  const segments = path.split('/').filter(Boolean);
  const resource = segments[segments.length - 1] ?? 'object';
  return `${resource}/${name}`;
}

function kubectlGet(path: string, name: string, target: KubeTarget = DEFAULT_KUBE_TARGET): string {
  const segments = path.split('/').filter(Boolean);
  const resource = segments[segments.length - 1] ?? 'object';
  const namespace = /\/namespaces\/([^/]+)\//.exec(path)?.[1];
  return kubectlCommand(target, 'get', resource, name, ...(namespace ? ['-n', namespace] : []), '-o', 'yaml');
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return rest === 0 ? `${minutes}m` : `${minutes}m${rest}s`;
}
