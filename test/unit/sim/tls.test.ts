import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import { createCertificateAuthority, createServerCertificate } from '../../../src/sim/tls.js';

/**
 * The simulator's certificates, read back by Node's X.509 parser (OpenSSL). Go's stricter parser
 * reads them in every end-to-end test that runs kubectl or helm against a simulated cluster.
 */

test('the CA: self-signed, a CA, valid from yesterday for a year', async () => {
  const ca = await createCertificateAuthority('test CA');
  const cert = new X509Certificate(ca.certPem);
  assert.equal(cert.subject, 'CN=test CA');
  assert.equal(cert.issuer, 'CN=test CA');
  assert.equal(cert.ca, true);
  assert.ok(cert.checkIssued(cert), 'issued by itself');
  assert.ok(cert.verify(cert.publicKey), 'signed by its own key');
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  assert.ok(from < Date.now() && Date.now() < to, `valid now: ${cert.validFrom} to ${cert.validTo}`);
  assert.ok(Math.abs(to - from - 366 * 24 * 3600 * 1000) <= 1000, 'a day back and a year ahead');
  assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
});

test('a server certificate: signed by the CA, its names, for server authentication only', async () => {
  const ca = await createCertificateAuthority('names CA');
  const server = await createServerCertificate(ca, {
    ipAddresses: ['127.0.0.1', '10.9.8.7'],
    dnsNames: ['localhost', 'rec.my-ns.svc'],
  });
  const cert = new X509Certificate(server.certPem);
  const caCert = new X509Certificate(ca.certPem);
  assert.equal(cert.subject, 'CN=localhost');
  assert.equal(cert.issuer, 'CN=names CA');
  assert.equal(cert.ca, false);
  assert.ok(cert.checkIssued(caCert), 'issued by the CA (names and key identifiers)');
  assert.ok(cert.verify(caCert.publicKey), "signed by the CA's key");
  assert.equal(
    cert.subjectAltName,
    'IP Address:127.0.0.1, IP Address:10.9.8.7, DNS:localhost, DNS:rec.my-ns.svc',
  );
  assert.equal(cert.checkIP('10.9.8.7'), '10.9.8.7');
  assert.equal(cert.checkHost('rec.my-ns.svc'), 'rec.my-ns.svc');
  assert.equal(cert.checkHost('elsewhere.example'), undefined);
  assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  assert.ok(cert.checkPrivateKey(createPrivateKey(server.keyPem)), 'the key is the certificate’s');
  assert.match(server.keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
});

test('a server certificate of a past window, and one past 2049 (GeneralizedTime)', async () => {
  const ca = await createCertificateAuthority();
  const expired = new X509Certificate(
    (
      await createServerCertificate(ca, {
        notBefore: new Date('2020-01-01T00:00:00Z'),
        notAfter: new Date('2021-01-01T00:00:00Z'),
      })
    ).certPem,
  );
  assert.equal(new Date(expired.validTo).toISOString(), '2021-01-01T00:00:00.000Z');
  assert.equal(expired.subjectAltName, 'IP Address:127.0.0.1, DNS:localhost', 'the default names');
  const late = new X509Certificate(
    (await createServerCertificate(ca, { notAfter: new Date('2051-06-30T12:34:56.789Z') })).certPem,
  );
  assert.equal(new Date(late.validTo).toISOString(), '2051-06-30T12:34:56.000Z');
});

test('each certificate its own serial and key; an IPv6 name is refused by name', async () => {
  const ca = await createCertificateAuthority();
  const a = new X509Certificate((await createServerCertificate(ca)).certPem);
  const b = new X509Certificate((await createServerCertificate(ca)).certPem);
  assert.notEqual(a.serialNumber, b.serialNumber);
  assert.notEqual(a.publicKey.export({ format: 'jwk' }).x, b.publicKey.export({ format: 'jwk' }).x);
  assert.doesNotMatch(a.serialNumber, /^[89A-F]/, 'a positive serial');
  await assert.rejects(createServerCertificate(ca, { ipAddresses: ['::1'] }), /IPv4 addresses only, not ::1/);
});
