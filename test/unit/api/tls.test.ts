// @peculiar/x509 (behind src/sim/tls.ts) needs a Reflect metadata polyfill loaded before it.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HttpClient } from '../../../src/api/http.js';
import { OperationError } from '../../../src/errors.js';
import { createServerCertificate } from '../../../src/sim/tls.js';
import { type SimFixture, startSim, testCa } from '../sim/rest/fixture.js';

const DAY = 24 * 60 * 60 * 1000;

async function expectTlsError(
  url: string,
  options: { ca?: string },
  pattern: RegExp,
  hint: RegExp,
): Promise<void> {
  const http = new HttpClient({ baseUrl: url, ...options });
  try {
    await assert.rejects(http.request({ method: 'GET', path: '/v1/cluster' }), (error: OperationError) => {
      assert.ok(error instanceof OperationError, String(error));
      assert.match(error.message, pattern);
      assert.match(error.hint ?? '', hint);
      return true;
    });
  } finally {
    await http.close();
  }
}

describe('TLS', () => {
  let sim: SimFixture;
  before(async () => {
    sim = await startSim();
  });
  after(async () => {
    await sim.close();
  });

  it('refuses an unknown CA and names --ca-file and --insecure', async () => {
    await expectTlsError(
      sim.url,
      {},
      /TLS: the certificate of https:\/\/127\.0\.0\.1:\d+ is not trusted/,
      /--ca-file.*--insecure/,
    );
    assert.equal(sim.audit.entries.length, 0);
  });

  it('trusts the CA given, and connects without verification when insecure', async () => {
    for (const options of [{ ca: sim.ca.certPem }, { insecure: true }]) {
      const http = new HttpClient({ baseUrl: sim.url, ...options });
      const response = await http.request({ method: 'GET', path: '/v1/cluster' });
      assert.equal(response.status, 401);
      await http.close();
    }
    assert.equal(process.env.NODE_TLS_REJECT_UNAUTHORIZED, undefined);
  });

  it('refuses a wrong CA', async () => {
    const { createCertificateAuthority } = await import('../../../src/sim/tls.js');
    const other = await createCertificateAuthority('another CA');
    await expectTlsError(sim.url, { ca: other.certPem }, /not trusted/, /--ca-file/);
  });

  it('refuses an expired certificate and a wrong host name, saying which', async () => {
    const ca = await testCa();
    const now = Date.now();
    const expired = await startSim({
      certificate: await createServerCertificate(ca, {
        notBefore: new Date(now - 10 * DAY),
        notAfter: new Date(now - DAY),
      }),
    });
    const misnamed = await startSim({
      certificate: await createServerCertificate(ca, {
        ipAddresses: ['10.9.9.9'],
        dnsNames: ['api.example.test'],
      }),
    });
    try {
      await expectTlsError(
        expired.url,
        { ca: ca.certPem },
        /expired or not yet valid \(CERT_HAS_EXPIRED\)/,
        /clock/,
      );
      await expectTlsError(misnamed.url, { ca: ca.certPem }, /does not name that host/, /--api-url/);
    } finally {
      await expired.close();
      await misnamed.close();
    }
  });
});
