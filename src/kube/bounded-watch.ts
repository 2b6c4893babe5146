/**
 * ctl's watch stream: one Kubernetes watch request, its answer read one event a line, as
 * client-node's `Watch` reads it (same URL and query, same `applyToFetchOptions` for the
 * credentials, TLS and agent, none of the credentials toward a plain-http server as for every
 * request: plain-http.ts; same callback and `done` contract, TCP keep-alive on its socket),
 * but with every event line bounded. ctl does not use client-node's Watch because:
 * - it splits the answer with node:readline, which holds a line until its end comes: an answer
 *   that never sends one (a broken or hostile API server, or a proxy before it) grew ctl's memory
 *   until it died (`RangeError: Invalid string length`, 680 MiB);
 * - it parses each line with JSON.parse, whatever its depth (src/json-read.ts says why ctl does not);
 * - its `AbortSignal.timeout(30000)` is overwritten on the next line, so it has no client-side
 *   limit at all: ctl's own deadlines bound a silent watch (src/kube/deadlines.ts, watch.ts);
 * - it skips a line that is not JSON without a word, and hands on any JSON as an event: the event
 *   in that line was lost until the next list. ctl ends the watch there, as client-go does
 *   (watch-line-errors.ts), and its caller watches again from the last event it read.
 * Loaded only when a wait or the monitor watches (src/kube/client.ts importWatch): a plan does not.
 */

import { type ClientRequest, type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { BoundedLineSplitter } from './bounded-lines.js';
import { armDeadlines } from './deadlines.js';
import { kubeEndpoint } from './request.js';
import { serverForMessages } from './server-url.js';
import { decodeWatchLine } from './watch-event.js';
import { MAX_WATCH_LINE_BYTES, watchLineTooLong } from './watch-line-bound.js';

/** How often TCP checks that a silent watch's peer is still there (client-node's figure). */
const KEEP_ALIVE_MS = 30_000;

/** What a watch needs of the kubeconfig (client-node's KubeConfig, or ctl's view of it). */
export interface WatchConfig {
  getCurrentCluster(): { server: string } | null;
  applyToFetchOptions(options: object): Promise<unknown>;
}

/** The event callback: the event's type, its object, and the whole parsed line. */
export type WatchCallback = (type: string, object: unknown, event: unknown) => void;

export class BoundedWatch {
  readonly #config: WatchConfig;
  readonly #maxLineBytes: number;

  constructor(config: WatchConfig, maxLineBytes = MAX_WATCH_LINE_BYTES) {
    this.#config = config;
    this.#maxLineBytes = maxLineBytes;
  }

  /**
   * Watches `path`: `callback` gets every event, `done` is called once, with null when the stream
   * ends or with the error that ended it (a status other than 200 carries `statusCode`; a line
   * past the bound, one that is not JSON, is nested too deep or is not a watch event ends it with
   * a WatchLineError, watch-line-errors.ts: the events before it were handed on, none after).
   * Resolves once the answer's headers are in (or the request failed), with the controller that
   * ends the watch; as client-node's, it may call `done` before it resolves. Rejects, without
   * calling `done`, when the request could not be built (the kubeconfig's credential plugin
   * failed...: request.ts requestNotBuilt says so of the error), as client-node's rejects.
   * `sending`, if given, is called once the request is built (the credential obtained), just
   * before it is sent: from then on it is the API server that is waited for (watch.ts). When it
   * returns false (the caller stopped waiting meanwhile), nothing is sent, `done` is not called,
   * and the controller comes back aborted. `waiter`, if given, is the signal of whoever waits for
   * the request's credential: once it aborts, an exec plugin started for this watch is stopped
   * (credential-waiter.ts), as kubeRequest's are.
   */
  async watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: WatchCallback,
    done: (error: unknown) => void,
    sending?: () => boolean,
    waiter?: AbortSignal,
  ): Promise<AbortController> {
    const cluster = this.#config.getCurrentCluster();
    if (!cluster) throw new Error('No currently active cluster');
    // As kubeRequest sends the LIST: the same URL, credentials and kept agent.
    const { url, headers, agent, send } = await kubeEndpoint(
      this.#config,
      cluster.server,
      path,
      { watch: 'true', ...queryParams },
      'application/json',
      waiter,
    );
    const server = serverForMessages(cluster.server);
    const what = `watch ${path}`;
    const controller = new AbortController();
    if (sending && !sending()) {
      controller.abort();
      return controller;
    }
    let doneCalled = false;
    let req: ClientRequest | undefined;
    const doneOnce = (error: unknown): void => {
      if (doneCalled) return;
      doneCalled = true;
      // Destroyed without an error before the signal destroys it with one: a watch ended at a
      // line ctl cannot use may have its whole answer in already, and then its socket has no
      // 'error' listener left (Node removes it at the answer's end): the signal's AbortError was
      // thrown as an uncaught exception.
      req?.destroy();
      controller.abort();
      done(error);
    };

    return new Promise<AbortController>((resolve) => {
      try {
        req = send(url, {
          method: 'GET',
          headers,
          agent,
          signal: controller.signal,
        });
      } catch (error) {
        doneOnce(error);
        resolve(controller);
        return;
      }
      // The connect and response deadlines, whatever the agent (a kubeconfig's proxy-url brings
      // its own); a watch has no total one (src/kube/deadlines.ts).
      armDeadlines(req, `GET ${path}`, server, { total: false });
      req.on('socket', (socket: Socket) => socket.setKeepAlive(true, KEEP_ALIVE_MS));
      req.on('error', (error) => {
        doneOnce(error);
        resolve(controller);
      });
      req.on('response', (response: IncomingMessage) => {
        resolve(controller);
        const status = response.statusCode ?? 0;
        if (status !== 200) {
          const error = new Error(response.statusMessage || STATUS_CODES[status] || 'Internal Server Error');
          (error as Error & { statusCode: number }).statusCode = status;
          doneOnce(error);
          return;
        }
        const lines = new BoundedLineSplitter(this.#maxLineBytes, (line) => {
          if (doneCalled) return;
          const decoded = decodeWatchLine(line, what, server);
          if (decoded instanceof Error) {
            doneOnce(decoded);
            return;
          }
          try {
            callback(decoded.type, decoded.object, decoded.event);
          } catch (error) {
            doneOnce(error);
          }
        });
        const tooLong = (): void => doneOnce(watchLineTooLong(what, server, this.#maxLineBytes));
        response.on('data', (chunk: Buffer) => {
          if (!doneCalled && !lines.push(chunk)) tooLong();
        });
        response.on('end', () => {
          if (!doneCalled && !lines.end()) tooLong();
          doneOnce(null);
        });
        response.on('error', doneOnce);
        response.on('close', () => doneOnce(null));
      });
      req.end();
    });
  }
}
