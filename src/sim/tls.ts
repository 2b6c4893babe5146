import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

type CryptoKeyPair = webcrypto.CryptoKeyPair;

// @peculiar/x509 expects the DOM Crypto type; Node's webcrypto is the same API.
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface CertificateAuthority {
  /** PEM of the CA certificate: what clients trust (ca.pem, certificate-authority-data). */
  certPem: string;
  keys: CryptoKeyPair;
  cert: x509.X509Certificate;
}

export interface ServerCertificate {
  certPem: string;
  keyPem: string;
}

export interface ServerCertificateOptions {
  /** Subject alternative names; default IP 127.0.0.1 and DNS localhost. */
  ipAddresses?: string[];
  dnsNames?: string[];
  /** Validity window; tests pass a past window to get an expired certificate. */
  notBefore?: Date;
  notAfter?: Date;
}

/** A fresh CA for one simulated cluster. Both emulators' certificates are signed by it. */
export async function createCertificateAuthority(
  commonName = 'ctl simulated cluster CA',
): Promise<CertificateAuthority> {
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: `CN=${commonName}`,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + 365 * DAY_MS),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keys, cert };
}

/**
 * A server certificate signed by the CA. Go clients (kubectl, helm) require the SAN
 * IP:127.0.0.1: they reject certificates that only carry a common name.
 */
export async function createServerCertificate(
  ca: CertificateAuthority,
  options: ServerCertificateOptions = {},
): Promise<ServerCertificate> {
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const ips = options.ipAddresses ?? ['127.0.0.1'];
  const dns = options.dnsNames ?? ['localhost'];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: `CN=${dns[0] ?? ips[0] ?? 'ctl-sim'}`,
    issuer: ca.cert.subject,
    notBefore: options.notBefore ?? new Date(now - DAY_MS),
    notAfter: options.notAfter ?? new Date(now + 365 * DAY_MS),
    signingAlgorithm: ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
        true,
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...ips.map((value) => ({ type: 'ip' as const, value })),
        ...dns.map((value) => ({ type: 'dns' as const, value })),
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert, false),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { certPem: cert.toString('pem'), keyPem: toPem(pkcs8, 'PRIVATE KEY') };
}

function toPem(der: ArrayBuffer, label: string): string {
  const base64 = Buffer.from(der).toString('base64');
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

function randomSerial(): string {
  // Positive, non-zero, 16 hex digits: unique enough for certificates of one test run.
  const bytes = webcrypto.getRandomValues(new Uint8Array(8));
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return Buffer.from(bytes).toString('hex');
}
