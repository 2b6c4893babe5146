import type { ServerResponse } from 'node:http';
import { groupVersion, type ResourceType, storageKey } from './registry.js';
import { type ObjectPredicate, parseFieldSelector, parseLabelSelector } from './selectors.js';
import { gone } from './status.js';
import type { ChangeEvent, KubeStore } from './store.js';
import { clone, type KubeObject, type WatchEventType } from './types.js';

export interface WatchRequest {
  resource: ResourceType;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  sendInitialEvents?: boolean;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  /** Turns each object into what goes on the wire (a Table row for `kubectl get -w`). */
  render?: (object: KubeObject) => unknown;
}

export interface WatchHubOptions {
  /** How often a watch that allows bookmarks gets one; the real server sends one about a minute. */
  bookmarkIntervalMs?: number;
}

/**
 * Serves watches as chunked JSON lines `{"type","object"}` (feasibility §2): the synthetic
 * ADDED events of a watch without resourceVersion, replay from the bounded history, 410
 * Expired for a compacted resourceVersion, WatchList with the initial-events-end bookmark
 * (helm 4 --wait), periodic bookmarks, and timeoutSeconds. Tracks every open watch so tests
 * can drop them all (fault injection) and close() can end them promptly.
 */
export class WatchHub {
  readonly #store: KubeStore;
  readonly #open = new Set<ServerResponse>();
  readonly #bookmarkIntervalMs: number;

  constructor(store: KubeStore, options: WatchHubOptions = {}) {
    this.#store = store;
    this.#bookmarkIntervalMs = options.bookmarkIntervalMs ?? 30_000;
  }

  get openCount(): number {
    return this.#open.size;
  }

  serve(request: WatchRequest, response: ServerResponse): void {
    const rt = request.resource;
    const labels = parseLabelSelector(request.labelSelector);
    const fields = parseFieldSelector(request.fieldSelector);
    const matches: ObjectPredicate = (object) =>
      (!rt.namespaced || !request.namespace || object.metadata.namespace === request.namespace) &&
      labels(object) &&
      fields(object);
    const render = request.render ?? ((object: KubeObject) => object);

    response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    response.flushHeaders();
    const write = (type: WatchEventType, object: unknown): void => {
      if (!response.writableEnded && !response.destroyed)
        response.write(`${JSON.stringify({ type, object })}\n`);
    };
    const present = (object: KubeObject): unknown => {
      const copy = clone(object);
      copy.apiVersion = groupVersion(rt);
      copy.kind = rt.kind;
      return render(copy);
    };
    const bookmark = (annotations?: Record<string, string>): void => {
      const metadata: Record<string, unknown> = {
        resourceVersion: this.#store.resourceVersion,
        creationTimestamp: null,
      };
      if (annotations) metadata.annotations = annotations;
      write('BOOKMARK', { kind: rt.kind, apiVersion: groupVersion(rt), metadata });
    };
    const forward = (event: ChangeEvent): void => {
      if (storageKey(event.resource) !== storageKey(rt)) return;
      const type = translate(event, matches);
      if (type) write(type, present(event.object));
    };

    const rv = request.resourceVersion;
    if (request.sendInitialEvents || !rv || rv === '0') {
      for (const object of this.#store.all(rt)) if (matches(object)) write('ADDED', present(object));
      if (request.sendInitialEvents) bookmark({ 'k8s.io/initial-events-end': 'true' });
    } else {
      const since = this.#store.eventsSince(Number(rv));
      if (since === 'expired' || Number.isNaN(Number(rv))) {
        write('ERROR', gone(`too old resource version: ${rv} (${this.#store.resourceVersion})`).toStatus());
        response.end();
        return;
      }
      for (const event of since) forward(event);
    }

    this.#store.on('change', forward);
    this.#open.add(response);
    // Unref'd: a watch lives only as long as its connection, whose socket keeps the process
    // alive by itself. A ref'd pair of timers on a watch whose end was missed (its connection
    // gone before these listeners were set) held a finished test file open for the length of the
    // watch's timeoutSeconds (the watchdog's "kept alive by: ..., Timeout, Timeout").
    const timers: NodeJS.Timeout[] = [];
    if (request.timeoutSeconds && request.timeoutSeconds > 0) {
      timers.push(setTimeout(() => response.end(), request.timeoutSeconds * 1000).unref());
    }
    if (request.allowWatchBookmarks)
      timers.push(setInterval(() => bookmark(), this.#bookmarkIntervalMs).unref());
    // The request's connection. On a kept-alive connection a response can wait behind the one
    // before it (the client sent this request as soon as it had read the earlier answer, before
    // the server saw that answer's write finish): `response.socket` is null until then, its
    // events are written once it gets the connection. Taken for a gone connection, such a watch
    // was served without events and never dropped: ctl waited at its last message until the
    // watch's idle limit (the fault matrix's "0/1 ready" under load).
    const connection = response.req?.socket;
    const cleanup = (): void => {
      this.#store.off('change', forward);
      this.#open.delete(response);
      for (const timer of timers) clearTimeout(timer);
      connection?.off('close', cleanup);
    };
    response.on('close', cleanup);
    response.on('finish', cleanup);
    // A waiting response hears of its connection's end only from the connection.
    connection?.on('close', cleanup);
    // Its connection may be gone already: then none of these events comes again.
    if (response.destroyed || connection?.destroyed !== false) cleanup();
  }

  /** Fault injection: cuts every open watch connection without a proper end of stream. */
  dropAll(): void {
    for (const response of [...this.#open]) response.destroy();
    this.#open.clear();
  }

  /** Ends every open watch cleanly (server shutdown). */
  endAll(): void {
    for (const response of [...this.#open]) response.end();
    this.#open.clear();
  }
}

/** What a change means to one watch: objects entering or leaving a selector become ADDED/DELETED. */
function translate(event: ChangeEvent, matches: ObjectPredicate): WatchEventType | undefined {
  const now = matches(event.object);
  if (event.type === 'ADDED') return now ? 'ADDED' : undefined;
  if (event.type === 'DELETED') return now ? 'DELETED' : undefined;
  const before = event.oldObject ? matches(event.oldObject) : false;
  if (now && before) return 'MODIFIED';
  if (now) return 'ADDED';
  if (before) return 'DELETED';
  return undefined;
}
