import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PeerCertificate } from 'node:tls';
import { clusterServiceNames } from '../../../src/api/connect.js';
import { HttpClient, verifyNames } from '../../../src/api/http.js';
import { OperationError } from '../../../src/errors.js';
import { createServerCertificate } from '../../../src/sim/tls.js';
import { type SimFixture, startSim, testCa } from '../sim/rest/fixture.js';

const DAY = 24 * 60 * 60 * 1000;

/** Both transports verify alike: undici, and Node's https module (`ctl auth token`). */
const TRANSPORTS = ['undici', 'node-https'] as const;

async function expectTlsError(
  url: string,
  options: {
    ca?: string;
    servername?: string;
    alternativeNames?: string[];
    transport: (typeof TRANSPORTS)[number];
  },
  pattern: RegExp,
  hint: RegExp,
): Promise<void> {
  const http = new HttpClient({ baseUrl: url, ...options });
  try {
    await assert.rejects(http.request({ method: 'GET', path: '/v1/cluster' }), (error: OperationError) => {
      assert.ok(error instanceof OperationError, String(error));
      assert.equal(error.exitCode, 1);
      assert.match(error.message, pattern);
      assert.match(error.hint ?? '', hint);
      return true;
    });
  } finally {
    await http.close();
  }
}

for (const transport of TRANSPORTS)
  describe(`TLS (${transport})`, () => {
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
        { transport },
        /TLS: the certificate of https:\/\/127\.0\.0\.1:\d+ is not trusted/,
        /--ca-file.*--insecure/,
      );
      assert.equal(sim.audit.entries.length, 0);
    });

    it('trusts the CA given, and connects without verification when insecure', async () => {
      for (const options of [{ ca: sim.ca.certPem }, { insecure: true }]) {
        const http = new HttpClient({ baseUrl: sim.url, ...options, transport });
        const response = await http.request({ method: 'GET', path: '/v1/cluster' });
        assert.equal(response.status, 401);
        await http.close();
      }
      assert.equal(process.env.NODE_TLS_REJECT_UNAUTHORIZED, undefined);
    });

    it('refuses a wrong CA', async () => {
      const { createCertificateAuthority } = await import('../../../src/sim/tls.js');
      const other = await createCertificateAuthority('another CA');
      await expectTlsError(sim.url, { ca: other.certPem, transport }, /not trusted/, /--ca-file/);
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
          { ca: ca.certPem, transport },
          /expired or not yet valid \(CERT_HAS_EXPIRED\)/,
          /clock/,
        );
        await expectTlsError(
          misnamed.url,
          { ca: ca.certPem, transport },
          /does not name that host/,
          /--api-url/,
        );
      } finally {
        await expired.close();
        await misnamed.close();
      }
    });

    describe('a TLS server name (the service, reached through a port-forward to 127.0.0.1)', () => {
      const service = clusterServiceNames('rec', 'redis');

      it('verifies the certificate against the service name, not 127.0.0.1', async () => {
        const ca = await testCa();
        // No IP address in it: only the name can make it pass.
        const named = await startSim({
          certificate: await createServerCertificate(ca, {
            ipAddresses: [],
            dnsNames: [service[0] as string],
          }),
        });
        // Any of the service's names will do: <svc>.<ns>.svc.cluster.local, or the bare <svc>.
        const longName = await startSim({
          certificate: await createServerCertificate(ca, {
            ipAddresses: [],
            dnsNames: [service[1] as string],
          }),
        });
        try {
          for (const server of [named, longName]) {
            assert.match(server.url, /^https:\/\/127\.0\.0\.1:/);
            const http = new HttpClient({
              baseUrl: server.url,
              ca: ca.certPem,
              servername: 'rec.redis.svc',
              alternativeNames: service.slice(1),
              transport,
            });
            try {
              const response = await http.request({ method: 'GET', path: '/v1/cluster' });
              assert.equal(response.status, 401);
            } finally {
              await http.close();
            }
          }
          // Without the server name the same certificate fails for 127.0.0.1.
          await expectTlsError(
            named.url,
            { ca: ca.certPem, transport },
            /does not name that host/,
            /--api-url/,
          );
        } finally {
          await named.close();
          await longName.close();
        }
      });

      it('refuses a certificate without the service name, naming the names it wanted (exit 1)', async () => {
        const ca = await testCa();
        const loopbackOnly = await startSim({
          certificate: await createServerCertificate(ca, {
            ipAddresses: ['127.0.0.1'],
            dnsNames: ['localhost'],
          }),
        });
        try {
          await expectTlsError(
            loopbackOnly.url,
            { ca: ca.certPem, servername: 'rec.redis.svc', alternativeNames: service.slice(1), transport },
            /TLS: the certificate of https:\/\/127\.0\.0\.1:\d+ \(verified as rec\.redis\.svc\) names none of rec\.redis\.svc, rec\.redis\.svc\.cluster\.local, rec /,
            /service name.*--api-url.*--insecure/,
          );
        } finally {
          await loopbackOnly.close();
        }
      });

      it('verifyNames accepts any of the names and reports the first otherwise', async () => {
        const check = verifyNames(['a.ns.svc', 'a']);
        const cert = { subject: { CN: 'x' }, subjectaltname: 'DNS:a' } as unknown as PeerCertificate;
        assert.equal(check('127.0.0.1', cert), undefined);
        const wrong = { subject: { CN: 'x' }, subjectaltname: 'DNS:b' } as unknown as PeerCertificate;
        assert.match(String(check('127.0.0.1', wrong)), /a\.ns\.svc/);
      });
    });
  });
