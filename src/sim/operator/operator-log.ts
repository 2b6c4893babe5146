import { OPERATOR_NAME } from '../artifacts/operator-objects.js';
import { isPodReady } from '../kube/controllers/pods.js';
import type { KubeObject } from '../kube/types.js';
import type { OperatorClock } from './clock.js';
import type { KubeAccess } from './kube-access.js';

/**
 * The operator's log, as the real one writes it: one JSON object a line from zap through
 * controller-runtime, with a level, a `ts` in epoch seconds, the controller's logger name, a
 * message, the reconciled object as `Request.Namespace` / `Request.Name`, and for errors an
 * `error` field. The one real line on record (RedisLabs/redis-enterprise-k8s-docs issue #89):
 *
 *   {"level":"error","ts":1573829086.31,"logger":"controller_redisenterprisecluster",
 *    "msg":"Upgrade Error","Request.Namespace":"...","Request.Name":"...",
 *    "error":"Upgrade Applied but will not start since REC Status.State is 'Upgrade' and not one of: 'Running', 'InvalidUpgrade'"}
 *
 * The docs send users there for a frozen upgrade: "check the operator logs for the source of
 * the error" (DOCS `kubernetes/upgrade/upgrade-redis-cluster.md`). The lines are written to
 * the operator pod's container log (the `pods/log` subresource, `kubectl logs
 * deploy/redis-enterprise-operator`), never as Events with reasons of our invention.
 */

export const CLUSTER_LOGGER = 'controller_redisenterprisecluster';
export const DATABASE_LOGGER = 'controller_redisenterprisedatabase';
export const ACTIVE_ACTIVE_LOGGER = 'controller_redisenterpriseactiveactivedatabase';
export const OPERATOR_LOGGER = 'cmd';

export interface OperatorLogEntry {
  level: 'info' | 'error';
  ts: number;
  logger: string;
  msg: string;
  [field: string]: unknown;
}

export class OperatorLog {
  readonly #kube: KubeAccess;
  readonly #namespace: string;
  readonly #clock: OperatorClock;
  /** Every line written, in order (what tests and the harness read). */
  readonly entries: OperatorLogEntry[] = [];

  constructor(kube: KubeAccess, namespace: string, clock: OperatorClock) {
    this.#kube = kube;
    this.#namespace = namespace;
    this.#clock = clock;
  }

  info(
    logger: string,
    object: KubeObject | undefined,
    msg: string,
    fields: Record<string, unknown> = {},
  ): void {
    this.#write({ level: 'info', ts: this.#ts(), logger, msg, ...requestOf(object), ...fields });
  }

  /** An error line: `msg` says what failed, `error` why (the form of issue #89). */
  error(logger: string, object: KubeObject | undefined, msg: string, error: string): void {
    this.#write({ level: 'error', ts: this.#ts(), logger, msg, ...requestOf(object), error });
  }

  #ts(): number {
    return Math.round(this.#clock.now()) / 1000;
  }

  #write(entry: OperatorLogEntry): void {
    this.entries.push(entry);
    const pod = this.#currentPod();
    if (!pod) return;
    this.#kube.store.podLogs.append(
      this.#namespace,
      pod.metadata.name ?? '',
      OPERATOR_NAME,
      JSON.stringify(entry),
    );
  }

  /** The operator pod that runs now: a ready one of the Deployment, the newest first. */
  #currentPod(): Readonly<KubeObject> | undefined {
    // Looked up for every line (the pod changes when the operator restarts): read, not copied.
    const pods = this.#kube
      .peekList('v1', 'Pod', this.#namespace)
      .filter((pod) => pod.metadata.labels?.name === OPERATOR_NAME && !pod.metadata.deletionTimestamp)
      .sort((a, b) =>
        String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)),
      );
    return pods.find(isPodReady) ?? pods[0];
  }
}

function requestOf(object: KubeObject | undefined): Record<string, string> {
  if (!object) return {};
  return { 'Request.Namespace': object.metadata.namespace ?? '', 'Request.Name': object.metadata.name ?? '' };
}
