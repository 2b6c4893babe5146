/**
 * A watch answer's line that ctl cannot use, and what a wait says of such lines: a line past the
 * bound (watch-line-bound.ts), one that is not JSON, is nested past the parse bound, is JSON but
 * not a watch event (watch-event.ts), or an ERROR event other than 410 Gone (watch.ts).
 *
 * As client-go: its StreamWatcher ends the watch on the first line it cannot decode and hands
 * the reader one ERROR event, "unable to decode an event from the watch stream"
 * (k8s.io/apimachinery pkg/watch/streamwatcher.go, receive); its decoder refuses a line whose type
 * is not ADDED, MODIFIED, DELETED, BOOKMARK or ERROR, or whose object does not decode
 * (k8s.io/client-go rest/watch/decoder.go); its reflector ends the watch on an ERROR event
 * (apierrors.FromObject), logs "watch of ... ended with: ..." as a warning and watches again, from
 * the last resourceVersion it read, after its backoff (tools/cache/reflector.go). ctl does the
 * same, says so once per step (src/steps/wait-warnings.ts), and ends the wait at the third such
 * watch in a row: a server that answers every watch so would otherwise be watched again until
 * the wait's deadline.
 *
 * Loaded by every plan (watch.ts): nothing heavy here.
 */

import { OperationError } from '../errors.js';
import { oneLine } from '../io/safe-text.js';
import { DEFAULT_KUBE_TARGET, type KubeTarget, kubectlCommand } from './kube-target.js';

export type WatchLineKind = 'too-long' | 'not-json' | 'too-deep' | 'not-an-event' | 'error-event';

/** The short name of each kind, for the list of what came before in a wait's last error. */
const KIND_NAMES: Record<WatchLineKind, string> = {
  'too-long': 'a line past the bound',
  'not-json': 'a line that is not JSON',
  'too-deep': 'a line nested too deep',
  'not-an-event': 'JSON that is not a watch event',
  'error-event': 'an ERROR event',
};

/**
 * One line of a watch answer that ctl could not use: that watch ended, to be watched again from
 * the last event read (src/kube/watch.ts). `problem` says what the line was, never what it held
 * beyond a short excerpt made safe (excerpt below): it comes from outside, whatever its size.
 */
export class WatchLineError extends OperationError {
  readonly kind: WatchLineKind;
  /** `watch <path>`. */
  readonly what: string;
  readonly server: string;
  /** What the server sent, e.g. `a line that is not JSON (12 bytes, starting "<html>")`. */
  readonly problem: string;

  constructor(kind: WatchLineKind, what: string, server: string, problem: string, hint?: string) {
    super(`${what}: the Kubernetes API server ${server} sent ${problem}`, hint === undefined ? {} : { hint });
    this.kind = kind;
    this.what = what;
    this.server = server;
    this.problem = problem;
  }
}

/** The most characters of a line from outside that a message of ctl's quotes. */
export const EXCERPT_CHARS = 40;

/**
 * The start of `text` as a message quotes it: at most EXCERPT_CHARS characters (a character is
 * never cut in half), in double quotes, every character that could drive a terminal escaped.
 */
export function excerpt(text: string, chars = EXCERPT_CHARS): string {
  const characters = Array.from(text.slice(0, chars * 2)).slice(0, chars);
  const cut = characters.join('');
  const more = cut.length < text.length ? '…' : '';
  return `"${oneLine(cut.replace(/["\\]/g, (c) => `\\${c}`))}${more}"`;
}

/** An ERROR event that is not 410 Gone: the watch ended with the server's own error. */
export function watchErrorEvent(what: string, server: string, status: unknown): WatchLineError {
  const fields = (status ?? {}) as { code?: unknown; reason?: unknown; message?: unknown };
  const details = [
    typeof fields.reason === 'string' && fields.reason !== '' ? `reason ${excerpt(fields.reason)}` : '',
    typeof fields.code === 'number' ? `code ${fields.code}` : '',
  ].filter(Boolean);
  const message = typeof fields.message === 'string' && fields.message !== '' ? fields.message : undefined;
  return new WatchLineError(
    'error-event',
    what,
    server,
    `an ERROR event${message === undefined ? ' without a message' : `: ${excerpt(message, 200)}`}${details.length > 0 ? ` (${details.join(', ')})` : ''}`,
  );
}

/**
 * The first line of a wait that ctl could not use (the wait goes on): shown once a step for the
 * same line from the same server, whichever of the step's waits met it (src/steps/wait-warnings.ts).
 */
export function watchLineWarning(error: WatchLineError, giveUpAfter: number): string {
  return `${error.message}; ctl watches again from the last event it read (${giveUpAfter} such watches in a row end the wait; shown once a step)`;
}

/**
 * The error that ends a wait whose watches ended on a line ctl could not use `lines.length`
 * times in a row (exit 1): the last line's message, and what the ones before it were.
 */
export function unusableWatchLines(
  lines: readonly WatchLineError[],
  target: KubeTarget = DEFAULT_KUBE_TARGET,
): WatchLineError {
  const last = lines[lines.length - 1]!;
  const earlier = lines.slice(0, -1);
  const same = earlier.every((line) => line.kind === last.kind);
  const streak = same
    ? `${lines.length} watches in a row ended on such a line`
    : `${lines.length} watches in a row ended on a line ctl cannot use (before this one: ${earlier.map((line) => KIND_NAMES[line.kind]).join(', ')})`;
  const hint =
    last.kind === 'error-event'
      ? `The API server ended the watch with an error of its own: look at its health (${kubectlCommand(target, 'get', '--raw', '/readyz?verbose')}) and its log; then run the same ctl command again to resume.`
      : `${last.kind === 'too-long' ? 'No Kubernetes object comes near that size' : 'A Kubernetes API server sends one JSON watch event a line'}: something between ctl and the API server answers oddly (a proxy?). Check the kubeconfig's server and what stands between; then run the same ctl command again to resume.`;
  return new WatchLineError(
    last.kind,
    last.what,
    last.server,
    `${last.problem}; ${streak}, so ctl stopped waiting`,
    hint,
  );
}
