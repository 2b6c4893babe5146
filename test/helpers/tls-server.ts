/**
 * An https stand-in API server for the tests of what ctl sends a cluster: a kubeconfig user's
 * credentials go only over TLS (src/kube/plain-http.ts), as kubectl's, so a test that asserts
 * they arrive needs an https server. Its certificate is signed by one test CA per process (made
 * with the simulator's src/sim/tls.ts, as test/reliability/secret-encodings.test.ts makes its
 * own); a kubeconfig trusts it by `certificate-authority-data` (`caData`) or skips the check with
 * `insecure-skip-tls-verify: true`: client-node sends the credentials to either.
 */

import type { RequestListener } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  type CertificateAuthority,
  createCertificateAuthority,
  createServerCertificate,
  type ServerCertificate,
} from './simulator.js';

/** One CA and server certificate per test process: generating keys is the slow part. */
let made: Promise<{ ca: CertificateAuthority; certificate: ServerCertificate }> | undefined;

function testCertificate(): Promise<{ ca: CertificateAuthority; certificate: ServerCertificate }> {
  made ??= (async () => {
    const ca = await createCertificateAuthority('ctl test kube CA');
    return { ca, certificate: await createServerCertificate(ca) };
  })();
  return made;
}

export interface TlsTestServer {
  server: Server;
  /** `https://127.0.0.1:PORT`. */
  url: string;
  /** The CA's certificate as base64 PEM, for a kubeconfig's `certificate-authority-data`. */
  caData: string;
  /** The server's own certificate and key (PEM): a test may offer them as a client certificate too. */
  certificate: ServerCertificate;
}

/** An https server with `handler`, listening on a free loopback port. */
export async function listenTls(handler: RequestListener): Promise<TlsTestServer> {
  const { ca, certificate } = await testCertificate();
  const server = createServer({ key: certificate.keyPem, cert: certificate.certPem }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caData: Buffer.from(ca.certPem).toString('base64'),
    certificate,
  };
}
