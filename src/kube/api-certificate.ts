/**
 * The management API's certificate as the Kubernetes API shows it, for `ctl auth trust`: the
 * channel the user already trusts (their kubeconfig) instead of the network path to port 9443.
 *
 * Where the certificate is (redis.io, operate/kubernetes/security/manage-rec-certificates.md):
 * Redis Enterprise generates a self-signed `api` certificate on the cluster's first node, kept
 * on the nodes and in no Kubernetes Secret; a cluster given its own has it in the Secret that the
 * REC's `spec.certificates.apiCertificateSecretName` names (keys `certificate`, `key`, `name`).
 * So: that Secret's `certificate` when the REC names one; else the certificate the pod presents
 * on port 9443 through ctl's port-forward, a tunnel inside the Kubernetes API to the pod itself,
 * so nothing on the network between here and the cluster can stand in for it. Only the TLS
 * handshake is made: no request and no credentials are sent.
 */

import { createHash, X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { OperationError, UsageError } from '../errors.js';
import type { KubeAccess, ManagedCluster } from './management-access.js';
import type { KubeObject } from './reads.js';
import { DEFAULT_KUBE_TARGET, kubectlCommand } from './kube-target.js';

export interface ApiCertificate {
  /** The certificates, leaf first, in PEM: what `--ca-file` then trusts. */
  pem: string;
  /** `AB:CD:...`, the SHA-256 of the leaf's DER, as `openssl x509 -fingerprint -sha256` prints it. */
  fingerprint: string;
  subject: string;
  /** The names the leaf is valid for (its subjectAltName). */
  names: string;
  validTo: string;
  /** Where it was read, for the message: the Secret, or the pod through the port-forward. */
  source: string;
}

/** How long the TLS handshake through the port-forward may take. */
const HANDSHAKE_MS = 15_000;

export async function readApiCertificate(
  access: Pick<KubeAccess, 'kube' | 'reads' | 'namespace'>,
  cluster: ManagedCluster,
  rec: KubeObject | undefined,
): Promise<ApiCertificate> {
  const secretName = apiCertificateSecretName(rec);
  if (secretName) return fromSecret(access, cluster, secretName);
  return fromPod(access, cluster);
}

/** `spec.certificates.apiCertificateSecretName` of the REC, if it names one. */
export function apiCertificateSecretName(rec: KubeObject | undefined): string | undefined {
  const certificates = (rec?.spec as { certificates?: { apiCertificateSecretName?: unknown } } | undefined)
    ?.certificates;
  const name = certificates?.apiCertificateSecretName;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

async function fromSecret(
  access: Pick<KubeAccess, 'reads'>,
  cluster: ManagedCluster,
  secretName: string,
): Promise<ApiCertificate> {
  const where = `Secret ${cluster.namespace}/${secretName} (spec.certificates.apiCertificateSecretName)`;
  const secret = await access.reads.getSecret(cluster.namespace, secretName);
  const encoded = secret?.data?.certificate;
  if (!encoded) {
    throw new UsageError(`${where} has no key certificate`, {
      hint: `Check it with ${kubectlCommand(access.reads.selection ?? DEFAULT_KUBE_TARGET, 'get', 'secret', secretName, '-n', cluster.namespace)} -o jsonpath='{.data.certificate}'.`,
    });
  }
  // Only the certificate key is used: the Secret's private key is never read into a variable.
  const pem = Buffer.from(encoded, 'base64').toString('utf8');
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const first = blocks[0];
  if (!first) throw new UsageError(`${where}: key certificate holds no PEM certificate`);
  return describe(`${blocks.join('\n')}\n`, new X509Certificate(first), where);
}

async function fromPod(
  access: Pick<KubeAccess, 'kube' | 'namespace'>,
  cluster: ManagedCluster,
): Promise<ApiCertificate> {
  const { openPortForward } = await import('./port-forward.js');
  let failure: Error | undefined;
  const forward = await openPortForward(access.kube, cluster.namespace, cluster.name, 9443, (error) => {
    failure = error;
  });
  try {
    const port = Number(new URL(forward.url).port);
    const podsCommand = kubectlCommand(
      access.kube.selection ?? DEFAULT_KUBE_TARGET,
      'get',
      'pods',
      '-n',
      cluster.namespace,
    );
    const chain = await peerChain(
      port,
      `${cluster.name}.${cluster.namespace}.svc`,
      () => failure,
      podsCommand,
    );
    const leaf = chain[0] as X509Certificate;
    const pem = chain.map((cert) => cert.toString().trim()).join('\n');
    return describe(
      `${pem}\n`,
      leaf,
      `pod port 9443 of cluster ${cluster.namespace}/${cluster.name}, through the Kubernetes API (port-forward)`,
    );
  } finally {
    await forward.close();
  }
}

/** The certificates the server presents, leaf first; the handshake only (never verified here). */
function peerChain(
  port: number,
  servername: string,
  forwardFailure: () => Error | undefined,
  /** `kubectl get pods` of the cluster, naming the kubeconfig and context ctl was given. */
  podsCommand: string,
): Promise<X509Certificate[]> {
  return new Promise((resolve, reject) => {
    // Not verified on purpose: this reads what the pod presents, to show and pin it; the trust
    // comes from the tunnel, and nothing is sent over this connection.
    const socket = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new OperationError(`no TLS handshake with the management API within ${HANDSHAKE_MS / 1000} s`));
    }, HANDSHAKE_MS);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const chain: X509Certificate[] = [];
      let current = socket.getPeerCertificate(true);
      const seen = new Set<string>();
      while (current?.raw && !seen.has(current.fingerprint256)) {
        seen.add(current.fingerprint256);
        chain.push(new X509Certificate(current.raw));
        current = current.issuerCertificate;
      }
      socket.end();
      if (chain.length === 0) reject(new OperationError('the management API presented no certificate'));
      else resolve(chain);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      const cause = forwardFailure() ?? error;
      reject(
        new OperationError(`cannot reach the management API through the port-forward: ${cause.message}`, {
          hint: `Check that a pod of the cluster is ready (${podsCommand}) and that you may create pods/portforward.`,
          cause,
        }),
      );
    });
  });
}

function describe(pem: string, leaf: X509Certificate, source: string): ApiCertificate {
  return {
    pem,
    fingerprint: sha256Fingerprint(leaf.raw),
    subject: leaf.subject.replace(/\n/g, ', '),
    names: leaf.subjectAltName ?? '',
    validTo: leaf.validTo,
    source,
  };
}

/** `AB:CD:...` of a certificate's DER. */
export function sha256Fingerprint(der: Buffer): string {
  return createHash('sha256').update(der).digest('hex').toUpperCase().match(/../g)?.join(':') ?? '';
}
