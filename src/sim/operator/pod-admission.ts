import type { ChangeEvent, KubeStore } from '../kube/store.js';
import { KubeApiError } from '../kube/status.js';
import type { KubeObject } from '../kube/types.js';
import type { OperatorClock, Timers } from './clock.js';
import type { KubeAccess } from './kube-access.js';
import { createPod } from './statefulset.js';

/**
 * What the StatefulSet controller does when the API server refuses one of its pods (on
 * OpenShift: no usable SCC allows the pod's security context). The StatefulSet stays short, a
 * Warning Event `FailedCreate` is recorded on it by `statefulset-controller` with the server's
 * message (kubernetes `pkg/controller/statefulset/stateful_pod_control.go`,
 * `recordPodEvent`: "create Pod <pod> in StatefulSet <set> failed error: <err>"), and the
 * creation is retried: here when an SCC or an RBAC object changes (a binding was added) or
 * after RETRY_SECONDS, the way the controller's requeue with backoff would find it.
 */

const RETRY_SECONDS = 10;
const COMPONENT = 'statefulset-controller';
/** Changes of these kinds may make a refused pod admissible. */
const ADMISSION_KINDS = new Set([
  'SecurityContextConstraints',
  'Role',
  'RoleBinding',
  'ClusterRole',
  'ClusterRoleBinding',
]);

export class PodAdmissionGate {
  readonly #kube: KubeAccess;
  readonly #timers: Timers;
  readonly #clock: OperatorClock;
  readonly #kick: () => void;
  #blocked = false;
  /** The Event of the last refusal per pod, bumped while the refusal repeats. */
  readonly #events = new Map<string, string>();

  constructor(options: { kube: KubeAccess; timers: Timers; clock: OperatorClock; kick: () => void }) {
    this.#kube = options.kube;
    this.#timers = options.timers;
    this.#clock = options.clock;
    this.#kick = options.kick;
  }

  /** True after a refusal, until something that can change the answer happens. */
  get blocked(): boolean {
    return this.#blocked;
  }

  /** Listens for SCC and RBAC changes; returns the function that stops listening. */
  watch(store: KubeStore): () => void {
    const listener = (event: ChangeEvent) => {
      if (this.#blocked && ADMISSION_KINDS.has(event.resource.kind)) this.#retry();
    };
    store.on('change', listener);
    return () => store.off('change', listener);
  }

  /** Creates the pod, or records FailedCreate and returns undefined when admission refuses it. */
  create(statefulSet: KubeObject, ordinal: number, ready: boolean): KubeObject | undefined {
    try {
      const pod = createPod(this.#kube, statefulSet, ordinal, ready);
      this.#blocked = false;
      return pod;
    } catch (error) {
      if (!(error instanceof KubeApiError) || error.code !== 403) throw error;
      this.#blocked = true;
      this.#recordFailedCreate(statefulSet, `${statefulSet.metadata.name}-${ordinal}`, error.message);
      this.#timers.after(RETRY_SECONDS, () => this.#retry());
      return undefined;
    }
  }

  #retry(): void {
    if (!this.#blocked) return;
    this.#blocked = false;
    this.#kick();
  }

  #recordFailedCreate(statefulSet: KubeObject, podName: string, reason: string): void {
    const namespace = statefulSet.metadata.namespace ?? 'default';
    const message = `create Pod ${podName} in StatefulSet ${statefulSet.metadata.name} failed error: ${reason}`;
    const now = new Date(this.#clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    const key = `${namespace}/${podName}\0${message}`;
    const existingName = this.#events.get(key);
    const existing = existingName ? this.#kube.get('v1', 'Event', namespace, existingName) : undefined;
    if (existing) {
      const count = typeof existing.count === 'number' ? existing.count + 1 : 2;
      this.#kube.patch(existing, { count, lastTimestamp: now });
      return;
    }
    const name = `${statefulSet.metadata.name}.${(BigInt(this.#clock.now()) * 1_000_000n + BigInt(this.#events.size)).toString(16)}`;
    this.#kube.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: statefulSet.apiVersion,
        kind: statefulSet.kind,
        name: statefulSet.metadata.name,
        namespace,
        uid: statefulSet.metadata.uid,
        resourceVersion: statefulSet.metadata.resourceVersion,
      },
      reason: 'FailedCreate',
      message,
      type: 'Warning',
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
      source: { component: COMPONENT },
      reportingComponent: COMPONENT,
      reportingInstance: '',
    });
    this.#events.set(key, name);
  }
}
