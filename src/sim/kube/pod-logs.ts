import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest } from './status.js';
import { isRecord, type KubeObject } from './types.js';

/** One line a container wrote, with the time the kubelet stamped it. */
export interface LogLine {
  /** Epoch milliseconds. */
  time: number;
  text: string;
}

type Listener = (line: LogLine) => void;

/**
 * What the kubelet keeps of each container's output, read through the `pods/log` subresource
 * (`kubectl logs`, client-node `CoreV1Api.readNamespacedPodLog`). Simulated workloads append
 * to it; a pod's lines go with the pod.
 */
export class PodLogBook {
  readonly #lines = new Map<string, LogLine[]>();
  readonly #listeners = new Map<string, Set<Listener>>();
  /** Oldest lines are dropped beyond this many per container, like kubelet log rotation. */
  readonly #maxLines: number;

  constructor(maxLines = 10_000) {
    this.#maxLines = maxLines;
  }

  append(namespace: string, pod: string, container: string, text: string, time = Date.now()): void {
    const key = keyOf(namespace, pod, container);
    const lines = this.#lines.get(key) ?? [];
    const line = { time, text };
    lines.push(line);
    if (lines.length > this.#maxLines) lines.splice(0, lines.length - this.#maxLines);
    this.#lines.set(key, lines);
    for (const listener of this.#listeners.get(key) ?? []) listener(line);
  }

  read(namespace: string, pod: string, container: string): readonly LogLine[] {
    return this.#lines.get(keyOf(namespace, pod, container)) ?? [];
  }

  /** Calls `listener` with every line appended from now on; returns the unsubscribe. */
  follow(namespace: string, pod: string, container: string, listener: Listener): () => void {
    const key = keyOf(namespace, pod, container);
    const set = this.#listeners.get(key) ?? new Set<Listener>();
    set.add(listener);
    this.#listeners.set(key, set);
    return () => set.delete(listener);
  }

  /** The pod is gone: so are its logs. */
  forgetPod(namespace: string, pod: string): void {
    const prefix = keyOf(namespace, pod, '');
    for (const key of [...this.#lines.keys()]) if (key.startsWith(prefix)) this.#lines.delete(key);
  }
}

function keyOf(namespace: string, pod: string, container: string): string {
  return `${namespace}/${pod}/${container}`;
}

/**
 * GET .../pods/<name>/log as the API server answers it: `container` (default: the only
 * container, else the kubectl.kubernetes.io/default-container annotation is kubectl's business
 * and the server asks for a name), `sinceSeconds` or `sinceTime`, `tailLines`, `timestamps`
 * (an RFC 3339 nano timestamp and a space before each line), `limitBytes`, and `follow`
 * (streams new lines until the client goes away).
 */
export function servePodLog(
  book: PodLogBook,
  pod: KubeObject,
  query: URLSearchParams,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const namespace = pod.metadata.namespace ?? 'default';
  const name = pod.metadata.name ?? '';
  const container = containerOf(pod, query.get('container'));
  const since = sinceOf(query);
  const timestamps = query.get('timestamps') === 'true';
  const format = (line: LogLine) => `${timestamps ? `${rfc3339Nano(line.time)} ` : ''}${line.text}\n`;
  let lines = book
    .read(namespace, name, container)
    .filter((line) => since === undefined || line.time >= since);
  const tail = query.get('tailLines');
  if (tail !== null) {
    const count = Number(tail);
    if (!Number.isInteger(count) || count < 0) throw badRequest(`invalid tailLines "${tail}"`);
    lines = count === 0 ? [] : lines.slice(-count);
  }
  let body = lines.map(format).join('');
  const limit = query.get('limitBytes');
  if (limit !== null && Number(limit) > 0) body = Buffer.from(body).subarray(0, Number(limit)).toString();
  response.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
  if (query.get('follow') !== 'true') {
    response.end(body);
    return;
  }
  if (body) response.write(body);
  const stop = book.follow(namespace, name, container, (line) => response.write(format(line)));
  const close = () => {
    stop();
    if (!response.writableEnded) response.end();
  };
  request.on('close', close);
  response.on('close', close);
}

function containerOf(pod: KubeObject, requested: string | null): string {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const names = (Array.isArray(spec.containers) ? spec.containers : [])
    .filter(isRecord)
    .map((c) => String(c.name));
  if (requested) {
    if (!names.includes(requested)) {
      throw badRequest(`container ${requested} is not valid for pod ${pod.metadata.name}`);
    }
    return requested;
  }
  if (names.length === 1) return names[0]!;
  // The API server's own words when a multi-container pod's log is asked without a container.
  throw badRequest(
    `a container name must be specified for pod ${pod.metadata.name}, choose one of: [${names.join(' ')}]`,
  );
}

function sinceOf(query: URLSearchParams): number | undefined {
  const seconds = query.get('sinceSeconds');
  if (seconds !== null) {
    const n = Number(seconds);
    if (!Number.isInteger(n) || n < 1) throw badRequest(`invalid sinceSeconds "${seconds}"`);
    return Date.now() - n * 1000;
  }
  const time = query.get('sinceTime');
  if (time !== null) {
    const parsed = Date.parse(time);
    if (Number.isNaN(parsed)) throw badRequest(`invalid sinceTime "${time}"`);
    return parsed;
  }
  return undefined;
}

/** `2026-11-24T23:10:00.123000000Z`: the form kubelet prefixes lines with. */
function rfc3339Nano(time: number): string {
  return new Date(time).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}
