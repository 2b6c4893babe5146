import { ADMISSION_SERVICE } from '../artifacts/operator-objects.js';
import type { KubeObject } from '../kube/types.js';
import { createCertificateAuthority, createServerCertificate } from '../tls.js';
import { ADMISSION_TLS_SECRET } from './cluster-objects.js';

/**
 * The admission webhook's serving certificate. The real operator creates Secret
 * `admission-tls` when it starts if it is missing (redis-facts.md §3); users then copy its
 * `cert` into the webhook's caBundle. Self-signed, valid for the admission Service's names.
 */
export async function admissionTlsSecret(namespace: string): Promise<KubeObject> {
  const serviceHost = `${ADMISSION_SERVICE}.${namespace}.svc`;
  const ca = await createCertificateAuthority(serviceHost);
  const server = await createServerCertificate(ca, {
    ipAddresses: [],
    dnsNames: [serviceHost, `${serviceHost}.cluster.local`, ADMISSION_SERVICE],
  });
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: { name: ADMISSION_TLS_SECRET, namespace, labels: { app: 'redis-enterprise' } },
    data: {
      // The caBundle must let the API server trust the webhook: the CA, then the serving cert.
      cert: Buffer.from(ca.certPem + server.certPem, 'utf8').toString('base64'),
      key: Buffer.from(server.keyPem, 'utf8').toString('base64'),
    },
  };
}
