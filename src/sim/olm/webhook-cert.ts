import { createHash } from 'node:crypto';
import { OPERATOR_NAME } from '../artifacts/operator-objects.js';
import type { KubeObject } from '../kube/types.js';
import { createCertificateAuthority, createServerCertificate } from '../tls.js';

/**
 * The certificate OLM makes for a CSV's webhookdefinitions (`operator.olm.webhookCa: olm`): its
 * own CA and a serving certificate for the Service `<deployment>-service` it puts in front of
 * the Deployment, kept in the TLS Secret `<service>-cert` (keys tls.crt, tls.key and olmCAKey,
 * annotation olmcahash) and mounted into the Deployment; the CA goes into the webhook's caBundle
 * (olm.operatorframework.io "Adding admission and conversion webhooks";
 * operator-framework/operator-lifecycle-manager `pkg/controller/install/certresources.go`).
 * The operator's own admission-tls plays no part in it.
 */
export interface OlmWebhookCert {
  secret: KubeObject;
  /** base64 of OLM's CA: the caBundle of the webhook OLM makes. */
  caBundle: string;
}

export const OLM_WEBHOOK_SERVICE = `${OPERATOR_NAME}-service`;

export async function olmWebhookCert(namespace: string): Promise<OlmWebhookCert> {
  const host = `${OLM_WEBHOOK_SERVICE}.${namespace}.svc`;
  const ca = await createCertificateAuthority('olm-selfsigned');
  const server = await createServerCertificate(ca, {
    ipAddresses: [],
    dnsNames: [host, `${host}.cluster.local`],
  });
  const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  return {
    caBundle: base64(ca.certPem),
    secret: {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: {
        name: `${OLM_WEBHOOK_SERVICE}-cert`,
        namespace,
        labels: { 'olm.managed': 'true' },
        annotations: { olmcahash: createHash('sha256').update(ca.certPem).digest('hex') },
      },
      data: {
        'tls.crt': base64(server.certPem),
        'tls.key': base64(server.keyPem),
        olmCAKey: base64(ca.certPem),
      },
    },
  };
}
