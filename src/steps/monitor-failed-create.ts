/**
 * A rolling upgrade that stalls because the StatefulSet cannot create the new pods: the
 * StatefulSet controller records a Warning Event `FailedCreate` with the API server's refusal
 * ("create Pod rec-2 in StatefulSet rec failed error: ...", kubernetes
 * `pkg/controller/statefulset/stateful_pod_control.go`). On OpenShift that refusal is usually
 * SCC admission ("unable to validate against any security context constraint"): the new pods
 * need an SCC their service account may not use (redis-facts.md §12).
 */

import { type KubeTarget, oc } from '../planning/equivalent-commands.js';

/** A core/v1 Event, as far as ctl reads it (InvalidUpgrade's documented warning). */
export interface KubeEvent {
  metadata?: { name?: string; uid?: string; resourceVersion?: string; creationTimestamp?: string | Date };
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  lastTimestamp?: string | Date | null;
  firstTimestamp?: string | Date | null;
  eventTime?: string | Date | null;
}

/** The newest FailedCreate warning's message among the events, if any. */
export function podCreationRefusal(events: Iterable<KubeEvent>): string | undefined {
  let newest: KubeEvent | undefined;
  for (const event of events) {
    if (event.type !== 'Warning' || event.reason !== 'FailedCreate') continue;
    if (!newest || timeOf(event) >= timeOf(newest)) newest = event;
  }
  return newest?.message;
}

/** What to do about a refusal; undefined when it is not one ctl knows. */
export function refusalHint(
  message: string,
  serviceAccount: string,
  namespace: string,
  kube: KubeTarget,
): string | undefined {
  if (!/security context constraint/i.test(message)) return undefined;
  return (
    `OpenShift refuses the new pods: no SCC that ${serviceAccount} may use allows them. With ` +
    'allowAutoAdjustment or a target before 7.22.0-6 they need redis-enterprise-scc-v2 of the target ' +
    `release: ${oc(kube, 'apply', '-f', 'RELEASE_DIR/openshift/scc.yaml')} and ${oc(kube, 'adm', 'policy', 'add-scc-to-user', 'redis-enterprise-scc-v2', '-z', serviceAccount, '-n', namespace)} ` +
    '(ctl does both unless --keep-scc is given).'
  );
}

function timeOf(event: KubeEvent): number {
  const value =
    event.lastTimestamp ?? event.eventTime ?? event.firstTimestamp ?? event.metadata?.creationTimestamp;
  return value ? new Date(value).getTime() : 0;
}
