import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isIPv4 } from 'node:net';
import * as asn1 from 'asn1js';

// The simulated cluster's certificates: ECDSA P-256 keys from Node's crypto, the X.509 structure
// (RFC 5280, section 4.1) written as DER by asn1js and signed by Node. A certificate library
// (@peculiar/x509) did the same until issue 39: loading it (reflect-metadata, tsyringe and a dozen
// ASN.1 schema packages) took about 0.25 s of CPU in every process that started a simulator, and
// its schema-driven encoding 10-50 ms per certificate; each simulated cluster makes three to five.

const DAY_MS = 24 * 60 * 60 * 1000;
const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extendedKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const;
// KeyUsage bits (RFC 5280, 4.2.1.3) as DER writes a named BIT STRING: bit 0 is the first byte's
// highest bit, and the bits after the last set one are left out (the unused bits of the last byte).
const CA_KEY_USAGE = { bits: 0b0000_0110, unused: 1 }; // keyCertSign (5), cRLSign (6)
const SERVER_KEY_USAGE = { bits: 0b1010_0000, unused: 5 }; // digitalSignature (0), keyEncipherment (2)

export interface CertificateAuthority {
  /** PEM of the CA certificate: what clients trust (ca.pem, certificate-authority-data). */
  certPem: string;
  /** The CA's common name: its certificates' issuer. */
  commonName: string;
  /** Signs the certificates the CA issues. */
  privateKey: KeyObject;
  /** The CA's key identifier: its certificates' authority key identifier. */
  keyId: Uint8Array;
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
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyId = keyIdentifier(keys.publicKey);
  const now = Date.now();
  const der = certificate({
    subject: commonName,
    issuer: commonName,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + 365 * DAY_MS),
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
    extensions: [
      extension(
        OID.basicConstraints,
        true,
        new asn1.Sequence({ value: [new asn1.Boolean({ value: true }), new asn1.Integer({ value: 0 })] }),
      ),
      extension(OID.keyUsage, true, keyUsage(CA_KEY_USAGE)),
      extension(OID.subjectKeyIdentifier, false, new asn1.OctetString({ valueHex: keyId })),
    ],
  });
  return { certPem: toPem(der, 'CERTIFICATE'), commonName, privateKey: keys.privateKey, keyId };
}

/**
 * A server certificate signed by the CA. Go clients (kubectl, helm) require the SAN
 * IP:127.0.0.1: they reject certificates that only carry a common name.
 */
export async function createServerCertificate(
  ca: CertificateAuthority,
  options: ServerCertificateOptions = {},
): Promise<ServerCertificate> {
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const now = Date.now();
  const ips = options.ipAddresses ?? ['127.0.0.1'];
  const dns = options.dnsNames ?? ['localhost'];
  const der = certificate({
    subject: dns[0] ?? ips[0] ?? 'ctl-sim',
    issuer: ca.commonName,
    notBefore: options.notBefore ?? new Date(now - DAY_MS),
    notAfter: options.notAfter ?? new Date(now + 365 * DAY_MS),
    publicKey: keys.publicKey,
    signingKey: ca.privateKey,
    extensions: [
      // cA FALSE is the default, which DER leaves out: an empty SEQUENCE.
      extension(OID.basicConstraints, true, new asn1.Sequence({ value: [] })),
      extension(OID.keyUsage, true, keyUsage(SERVER_KEY_USAGE)),
      extension(OID.extendedKeyUsage, false, new asn1.Sequence({ value: [oid(OID.serverAuth)] })),
      extension(
        OID.subjectAltName,
        false,
        new asn1.Sequence({ value: [...ips.map(ipAddressName), ...dns.map(dnsName)] }),
      ),
      // AuthorityKeyIdentifier ::= SEQUENCE { keyIdentifier [0] IMPLICIT OCTET STRING }
      extension(
        OID.authorityKeyIdentifier,
        false,
        new asn1.Sequence({ value: [contextPrimitive(0, ca.keyId)] }),
      ),
    ],
  });
  const keyPem = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { certPem: toPem(der, 'CERTIFICATE'), keyPem };
}

interface CertificateFields {
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  publicKey: KeyObject;
  signingKey: KeyObject;
  extensions: asn1.Sequence[];
}

/** Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue } (RFC 5280, 4.1). */
function certificate(fields: CertificateFields): Uint8Array {
  const signatureAlgorithm = new asn1.Sequence({ value: [oid(OID.ecdsaWithSha256)] });
  const tbs = new asn1.Sequence({
    value: [
      // version [0] EXPLICIT: v3 (2), for the extensions.
      new asn1.Constructed({
        idBlock: { tagClass: 3, tagNumber: 0 },
        value: [new asn1.Integer({ value: 2 })],
      }),
      new asn1.Integer({ valueHex: serialNumber() }),
      signatureAlgorithm,
      name(fields.issuer),
      new asn1.Sequence({ value: [time(fields.notBefore), time(fields.notAfter)] }),
      name(fields.subject),
      fromDer(fields.publicKey.export({ type: 'spki', format: 'der' })),
      // extensions [3] EXPLICIT SEQUENCE OF Extension
      new asn1.Constructed({
        idBlock: { tagClass: 3, tagNumber: 3 },
        value: [new asn1.Sequence({ value: fields.extensions })],
      }),
    ],
  });
  const tbsDer = new Uint8Array(tbs.toBER());
  // ECDSA-Sig-Value in DER, Node's default encoding of an EC key's signature.
  const signature = sign('sha256', tbsDer, fields.signingKey);
  const whole = new asn1.Sequence({
    value: [fromDer(tbsDer), signatureAlgorithm, new asn1.BitString({ valueHex: signature, unusedBits: 0 })],
  });
  return new Uint8Array(whole.toBER());
}

/** Name ::= SEQUENCE OF RelativeDistinguishedName: here one, CN=<commonName> in UTF-8. */
function name(commonName: string): asn1.Sequence {
  return new asn1.Sequence({
    value: [
      new asn1.Set({
        value: [
          new asn1.Sequence({ value: [oid(OID.commonName), new asn1.Utf8String({ value: commonName })] }),
        ],
      }),
    ],
  });
}

/** Extension ::= SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING } */
function extension(id: string, critical: boolean, value: asn1.BaseBlock): asn1.Sequence {
  const extnValue = new asn1.OctetString({ valueHex: value.toBER() });
  // DER leaves out a field that holds its default.
  const flag = critical ? [new asn1.Boolean({ value: true })] : [];
  return new asn1.Sequence({ value: [oid(id), ...flag, extnValue] });
}

function keyUsage(usage: { bits: number; unused: number }): asn1.BitString {
  return new asn1.BitString({ valueHex: Uint8Array.of(usage.bits), unusedBits: usage.unused });
}

/** GeneralName iPAddress [7] IMPLICIT OCTET STRING: the address's four bytes. */
function ipAddressName(address: string): asn1.Primitive {
  if (!isIPv4(address)) throw new Error(`simulated certificates take IPv4 addresses only, not ${address}`);
  return contextPrimitive(7, Uint8Array.from(address.split('.').map(Number)));
}

/** GeneralName dNSName [2] IMPLICIT IA5String. */
function dnsName(host: string): asn1.Primitive {
  return contextPrimitive(2, new TextEncoder().encode(host));
}

function contextPrimitive(tagNumber: number, bytes: Uint8Array): asn1.Primitive {
  return new asn1.Primitive({ idBlock: { tagClass: 3, tagNumber }, valueHex: bytes });
}

function oid(value: string): asn1.ObjectIdentifier {
  return new asn1.ObjectIdentifier({ value });
}

/** Time ::= UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280, 4.1.2.5), to the second. */
function time(date: Date): asn1.UTCTime | asn1.GeneralizedTime {
  const whole = new Date(Math.floor(date.getTime() / 1000) * 1000);
  return whole.getUTCFullYear() < 2050
    ? new asn1.UTCTime({ valueDate: whole })
    : new asn1.GeneralizedTime({ valueDate: whole });
}

function fromDer(bytes: Uint8Array): asn1.AsnType {
  const parsed = asn1.fromBER(bytes);
  if (parsed.offset === -1) throw new Error(`simulated certificates: bad DER (${parsed.result.error})`);
  return parsed.result;
}

/** SHA-1 of the public key's SubjectPublicKeyInfo: unique per key, as RFC 5280 4.2.1.2 asks. */
function keyIdentifier(publicKey: KeyObject): Uint8Array {
  return createHash('sha1')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest();
}

function serialNumber(): Uint8Array {
  // Positive, non-zero, 8 bytes: unique enough for certificates of one test run.
  const bytes = randomBytes(8);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes;
}

function toPem(der: Uint8Array, label: string): string {
  const base64 = Buffer.from(der).toString('base64');
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
