/**
 * `admission-tls`: the operator's admission webhooks trust its certificate: reads this operator's
 * ValidatingWebhookConfigurations and the Secret admission-tls. A missing Secret or cert fails
 * (restart the operator, which creates it); a stale caBundle warns (the admission step sets it).
 */

import { kubectl, type KubeTarget } from '../equivalent-commands.js';
import { notEnabledReason, splitWebhooks } from '../own-webhook.js';
import type { Snapshot, WebhookSnapshot } from '../snapshot.js';
import { type Check, type CheckInput, fail, type Outcome, pass, warn } from './check.js';

function checkAdmissionTls({ snapshot }: CheckInput): Outcome {
  const ns = snapshot.namespace;
  // Only this operator's webhooks (another namespace's trusts its own admission-tls).
  const { own: webhooks, others } = splitWebhooks(snapshot.webhooks, snapshot.operator?.namespace ?? ns);
  if (webhooks.length === 0)
    return pass(others.length === 0 ? 'admission controller not enabled' : notEnabledReason(others, ns));
  // OLM makes its own CA and serving certificate for a CSV's webhookdefinitions and writes that
  // CA into the caBundle (olm.operatorframework.io "Adding admission and conversion webhooks"):
  // admission-tls neither signs nor has to exist for those.
  const byOlm = webhooks.filter((w) => w.olmOwner !== undefined);
  if (byOlm.length === webhooks.length)
    return pass(
      `OLM manages the certificate of ${byOlm.map((w) => `${w.name} (CSV ${w.olmOwner ?? ''})`).join(', ')}: admission-tls is not compared`,
    );
  return checkOperatorWebhookTls(
    snapshot.kubeTarget,
    ns,
    webhooks.filter((w) => w.olmOwner === undefined),
    snapshot.admissionTls,
  );
}

/** The webhooks the operator serves with its own certificate, the Secret admission-tls. */
function checkOperatorWebhookTls(
  kube: KubeTarget,
  ns: string,
  webhooks: WebhookSnapshot[],
  admissionTls: Snapshot['admissionTls'],
): Outcome {
  const restart = `Restart the operator, which creates it: ${kubectl(kube, 'rollout', 'restart', 'deployment/redis-enterprise-operator', '-n', ns)}`;
  if (!admissionTls.present) return fail(`Secret admission-tls is missing in namespace ${ns}`, restart);
  const cert = admissionTls.cert;
  if (!cert) return fail('Secret admission-tls has no key cert', restart);
  const stale = webhooks.flatMap((w) =>
    w.webhooks.filter((h) => h.caBundle !== cert).map((h) => `${w.name}/${h.name}`),
  );
  if (stale.length > 0) {
    return warn(
      `the caBundle of ${stale.join(', ')} does not match admission-tls`,
      'The admission step sets it from admission-tls .data.cert.',
    );
  }
  return pass(`admission-tls present; ${webhooks.map((w) => w.name).join(', ')} trusts it`);
}

export const admissionTlsCheck = {
  id: 'admission-tls',
  run: checkAdmissionTls,
} as const satisfies Check;
