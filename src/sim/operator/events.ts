import type { KubeObject } from '../kube/types.js';
import type { OperatorClock } from './clock.js';
import type { KubeAccess } from './kube-access.js';

/** One event as `ctl sim up` writes it to events.jsonl (the same as the Kubernetes Event). */
export interface OperatorEvent {
  /** ISO time of this occurrence. */
  ts: string;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  involvedObject: { kind: string; namespace?: string; name: string };
  /** How many times the same event (object, type, reason, message) has happened so far. */
  count: number;
}

export type EventSink = (event: OperatorEvent) => void;

const REPORTING_COMPONENT = 'redis-enterprise-operator';

/**
 * Records the operator's events twice: as core/v1 Events (so `kubectl get events` and
 * `kubectl describe rec` show them) and through the sink. Repeats are folded into one Event
 * with a growing count, as the real event recorder does, so a frozen upgrade that warns on
 * every reconcile does not flood the namespace.
 */
export class EventRecorder {
  readonly #kube: KubeAccess;
  readonly #sink: EventSink | undefined;
  readonly #clock: OperatorClock;
  /** Aggregation key -> name of the stored Event. */
  readonly #names = new Map<string, string>();
  #sequence = 0;

  constructor(kube: KubeAccess, clock: OperatorClock, sink?: EventSink) {
    this.#kube = kube;
    this.#clock = clock;
    this.#sink = sink;
  }

  normal(object: KubeObject, reason: string, message: string): void {
    this.#record(object, 'Normal', reason, message);
  }

  warning(object: KubeObject, reason: string, message: string): void {
    this.#record(object, 'Warning', reason, message);
  }

  #record(object: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const now = new Date(this.#clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    const namespace = object.metadata.namespace ?? 'default';
    const involvedName = object.metadata.name ?? '';
    const key = [object.kind, namespace, involvedName, object.metadata.uid, type, reason, message].join('\0');
    const count = this.#write(key, object, namespace, type, reason, message, now);
    const involvedObject: OperatorEvent['involvedObject'] = { kind: object.kind ?? '', name: involvedName };
    if (object.metadata.namespace) involvedObject.namespace = object.metadata.namespace;
    try {
      this.#sink?.({ ts: now, type, reason, message, involvedObject, count });
    } catch {
      // A failing sink (a closed file) must not stop the operator.
    }
  }

  /** Writes or bumps the Event; returns its count. Store errors (namespace gone) are ignored. */
  #write(
    key: string,
    object: KubeObject,
    namespace: string,
    type: string,
    reason: string,
    message: string,
    now: string,
  ): number {
    try {
      const existingName = this.#names.get(key);
      const existing = existingName ? this.#kube.get('v1', 'Event', namespace, existingName) : undefined;
      if (existing) {
        const count = (typeof existing.count === 'number' ? existing.count : 1) + 1;
        this.#kube.patch(existing, { count, lastTimestamp: now });
        return count;
      }
      const name = `${object.metadata.name}.${eventSuffix(this.#clock.now(), this.#sequence++)}`;
      this.#kube.create({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: {
          apiVersion: object.apiVersion,
          kind: object.kind,
          name: object.metadata.name,
          namespace: object.metadata.namespace,
          uid: object.metadata.uid,
          resourceVersion: object.metadata.resourceVersion,
        },
        reason,
        message,
        type,
        count: 1,
        firstTimestamp: now,
        lastTimestamp: now,
        source: { component: REPORTING_COMPONENT },
        reportingComponent: REPORTING_COMPONENT,
        reportingInstance: '',
      });
      this.#names.set(key, name);
      return 1;
    } catch {
      return 1;
    }
  }
}

/** Like the real recorder's `<object>.<hex nanoseconds>`: unique and sorted by time. */
function eventSuffix(nowMs: number, sequence: number): string {
  return (BigInt(nowMs) * 1_000_000n + BigInt(sequence % 1_000_000)).toString(16);
}
