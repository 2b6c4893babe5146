/**
 * One line of a watch answer read as a watch event, or the reason it is not one: what client-go's
 * watch decoder accepts (k8s.io/client-go rest/watch/decoder.go: JSON, a type among ADDED,
 * MODIFIED, DELETED, BOOKMARK and ERROR, an object that decodes), with ctl's parse depth bound
 * (src/json-read.ts). Read by ctl's watch stream (bounded-watch.ts).
 */

import { JsonTooDeepError, MAX_JSON_DEPTH, parseJson } from '../json-read.js';
import { excerpt, WatchLineError } from './watch-line-errors.js';

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

export interface WatchEvent {
  type: string;
  object: Record<string, unknown>;
  /** The whole parsed line. */
  event: Record<string, unknown>;
}

/** `line` as a watch event of `what` (`watch <path>`) from `server`, or why it is not one. */
export function decodeWatchLine(line: string, what: string, server: string): WatchEvent | WatchLineError {
  let parsed: unknown;
  try {
    parsed = parseJson(line, what);
  } catch (error) {
    if (error instanceof JsonTooDeepError)
      return new WatchLineError(
        'too-deep',
        what,
        server,
        `a line nested deeper than ${MAX_JSON_DEPTH} levels, far deeper than any Kubernetes object`,
      );
    return new WatchLineError('not-json', what, server, notJson(line));
  }
  const problem = notAnEvent(parsed);
  if (problem !== undefined)
    return new WatchLineError('not-an-event', what, server, `JSON that is not a watch event (${problem})`);
  const event = parsed as Record<string, unknown>;
  return { type: event.type as string, object: event.object as Record<string, unknown>, event };
}

/**
 * A line that does not parse. Its start is quoted when it does not look like JSON (a proxy's
 * HTML page, a plain-text error): what it is shows there. A line that starts as JSON is not
 * quoted: it may be an event cut short, whose object (a Secret's, say) is nobody's business here.
 */
function notJson(line: string): string {
  const bytes = Buffer.byteLength(line, 'utf8');
  const start = line.trimStart();
  if (start.startsWith('{') || start.startsWith('['))
    return `a line that is not JSON (${bytes} bytes, starting as JSON but not parsing: cut short or garbled?)`;
  return `a line that is not JSON (${bytes} bytes, starting ${excerpt(line)})`;
}

/** Why a parsed line is not a watch event, or undefined: its type and its object's kind only. */
function notAnEvent(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object')
    return `${value === null ? 'null' : `a ${typeof value}`}, not an object`;
  if (Array.isArray(value)) return 'an array, not an object';
  const { type, object } = value as { type?: unknown; object?: unknown };
  if (type === undefined) return 'no type';
  if (typeof type !== 'string' || !EVENT_TYPES.has(type))
    return `type ${typeof type === 'string' ? excerpt(type) : `of ${type === null ? 'null' : typeof type}`}, not one of ${[...EVENT_TYPES].join(', ')}`;
  const event = `${/^[AEIOU]/.test(type) ? 'an' : 'a'} ${type} event`;
  if (object === undefined) return `${event} without an object`;
  if (object === null || typeof object !== 'object' || Array.isArray(object))
    return `${event} whose object is ${object === null ? 'null' : Array.isArray(object) ? 'an array' : `a ${typeof object}`}`;
  return undefined;
}
