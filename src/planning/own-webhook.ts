/**
 * Which ValidatingWebhookConfigurations belong to THIS operator. They are cluster-scoped and
 * the snapshot lists every one with `*.admission.redislabs` entries, so with several operators
 * (one per namespace) another namespace's webhook must neither make the admission step think
 * admission is enabled here nor be overwritten by it (the bundle's name
 * `redis-enterprise-admission` is the same for every namespace).
 *
 * A webhook is this operator's when its entries call the operator's service in this namespace
 * (`clientConfig.service.namespace`, set from OPERATOR_NAMESPACE in admission/webhook.yaml), or,
 * without a service namespace, when its `namespaceSelector` limits it to this namespace
 * (`namespace-name: <ns>`, DOCS deployment/quick-start.md), or when it carries helm's
 * per-namespace name `redis-enterprise-admission-<ns>` (`admission.limitToNamespace`, DOCS
 * deployment/helm.md). A webhook that names no namespace at all is taken as this operator's.
 */

import type { WebhookSnapshot } from './snapshot.js';

export function isOwnWebhook(webhook: WebhookSnapshot, operatorNamespace: string): boolean {
  const services = webhook.webhooks.map((w) => w.serviceNamespace).filter((n): n is string => Boolean(n));
  if (services.length > 0) return services.includes(operatorNamespace);
  const selectors = webhook.webhooks.map((w) => w.selectorNamespace).filter((n): n is string => Boolean(n));
  if (selectors.length > 0) return selectors.includes(operatorNamespace);
  const helm = /^redis-enterprise-admission-(.+)$/.exec(webhook.name);
  if (helm) return helm[1] === operatorNamespace;
  // Nothing names another namespace (a clientConfig.url, an old redb-admission): as before, ours.
  return true;
}

/** This operator's webhooks, and the others (for a message that says why they were left alone). */
export function splitWebhooks(
  webhooks: readonly WebhookSnapshot[],
  operatorNamespace: string,
): { own: WebhookSnapshot[]; others: WebhookSnapshot[] } {
  const own = webhooks.filter((w) => isOwnWebhook(w, operatorNamespace));
  return { own, others: webhooks.filter((w) => !own.includes(w)) };
}

/** "admission controller not enabled for the operator in <ns>" plus what else was seen. */
export function notEnabledReason(others: readonly WebhookSnapshot[], operatorNamespace: string): string {
  const base = `admission controller not enabled for the operator in ${operatorNamespace}`;
  if (others.length === 0) return base;
  return `${base} (left alone: ${others.map((w) => w.name).join(', ')}, of another namespace's operator)`;
}
