/**
 * The bound of one watch event line, and the error of a line past it: read by ctl's watch stream
 * (bounded-watch.ts, loaded on the first watch) and by the watches' retry loop (watch.ts, which
 * every plan loads), so it lives apart from the stream.
 */

import { WatchLineError } from './watch-line-errors.js';

/**
 * The longest line of a watch stream ctl reads. A watch sends one event a line, one object in
 * it, and no Kubernetes object is much larger than a request may be: etcd refuses a request
 * above 1.5 MiB by default (--max-request-bytes, https://etcd.io/docs/v3.5/dev-guide/limit/) and
 * the API server a body above 3 MiB (MaxRequestBodyBytes in k8s.io/apiserver/pkg/server/config.go).
 * 16 MiB leaves room for a cluster whose limits were raised, and for JSON's escapes, while one
 * line still costs ctl a few tens of MiB at most (its bytes, its text, its object).
 */
export const MAX_WATCH_LINE_BYTES = 16 * 1024 * 1024;

/**
 * A watch line past its bound: that watch ended, to be tried again (src/kube/watch.ts), as every
 * line ctl cannot use (watch-line-errors.ts). Exit 1.
 */
export class WatchLineTooLongError extends WatchLineError {}

export function watchLineTooLong(what: string, server: string, maxBytes: number): WatchLineTooLongError {
  return new WatchLineTooLongError(
    'too-long',
    what,
    server,
    `an event line longer than ${maxBytes / 1024 / 1024} MiB, the most ctl reads of one watch event; ctl stopped reading it`,
  );
}
