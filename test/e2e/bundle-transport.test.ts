/**
 * The plan's `target-available` check holds a bundle to the rules the run's download reads it by
 * (src/kube/download.ts): plain http to another machine only with --allow-http, never a redirect
 * from https to http, at most 5 redirects. Before, the plan's probe followed whatever fetch
 * follows (20 redirects, https to http) and asked plain http anywhere: it said Ready, and the
 * operator step stopped in the change window with "refusing the bundle".
 *
 * The https host is a server of this test with a certificate of its own CA, which ctl trusts
 * through NODE_EXTRA_CA_CERTS (as a company CA would be); it redirects to the simulator's
 * artifacts server, where the bundle is.
 */

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createServerCertificate } from '../helpers/simulator.js';
import { tempDir } from '../helpers/temp.js';
import { testCa } from '../unit/sim/rest/fixture.js';
import { assertExit, SharedUpgradeSim, TARGET } from './upgrade-support.js';

const BLOCKED = 3;

describe('the plan reads a bundle location by the run download rules (e2e)', { timeout: 300_000 }, () => {
  const sim = new SharedUpgradeSim('happy-path');
  let server: Server;
  let httpsBase: string;
  let caFile: string;
  /** Where the simulator serves the bundles (plain http on this machine: allowed). */
  let artifacts = '';

  before(async () => {
    const ca = await testCa();
    const certificate = await createServerCertificate(ca);
    caFile = path.join(tempDir('ctl-bundle-transport-'), 'ca.pem');
    writeFileSync(caFile, ca.certPem);
    server = createServer({ cert: certificate.certPem, key: certificate.keyPem }, (req, res) => {
      const url = new URL(req.url ?? '/', 'https://localhost');
      // /to-http/<path>: one redirect to the simulator's plain http.
      if (url.pathname.startsWith('/to-http/')) {
        res.writeHead(302, { location: `${artifacts}/${url.pathname.slice('/to-http/'.length)}` }).end();
        return;
      }
      // /hops/<n>/<path>: n redirects on this https host, then the bundle's https path here.
      const hops = /^\/hops\/(\d+)\/(.*)$/.exec(url.pathname);
      if (hops) {
        const left = Number(hops[1]);
        res
          .writeHead(302, { location: left > 1 ? `/hops/${left - 1}/${hops[2]}` : `/served/${hops[2]}` })
          .end();
        return;
      }
      if (url.pathname.startsWith('/served/')) {
        res
          .writeHead(200, { 'content-type': 'application/yaml' })
          .end(req.method === 'HEAD' ? undefined : 'kind: List\n');
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    httpsBase = `https://localhost:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await sim.close();
  });

  async function plan(bundle: string, extra: string[] = []) {
    return sim.use(`plan --bundle ${bundle}`, async (s) => {
      artifacts = new URL(s.env.CTL_BUNDLE ?? '').origin;
      return s.ctl(['upgrade', 'plan', '--to', TARGET, '--bundle', bundle, ...extra], {
        env: { NODE_EXTRA_CA_CERTS: caFile },
      });
    });
  }

  it('plain http to another machine: blocked, with --allow-http named; with it, not refused', async () => {
    const location = 'http://bundles.example.invalid/{version}/bundle.yaml';
    const result = await plan(location);
    assertExit(result, BLOCKED, 'plan with a plain http bundle elsewhere');
    assert.match(
      result.stdout,
      /target-available\s+the operator step would not download the bundle of \S+: http:\/\/bundles\.example\.invalid\/\S+\/bundle\.yaml: plain http can be read and changed on the way/,
    );
    assert.match(result.stdout, /fix: Use an https location, or, knowingly, pass --allow-http/);

    const allowed = await plan(location, ['--allow-http']);
    assert.doesNotMatch(allowed.stdout, /would not download/, allowed.stdout);
  });

  it('an https location that redirects to plain http: blocked, as the run would stop', async () => {
    await sim.use('artifacts origin', async (s) => {
      artifacts = new URL(s.env.CTL_BUNDLE ?? '').origin;
    });
    const result = await plan(`${httpsBase}/to-http/bundles/{version}/bundle.yaml`);
    assertExit(result, BLOCKED, 'plan with an https bundle that redirects to http');
    assert.match(
      result.stdout,
      /would not download the bundle of \S+: https:\/\/localhost:\d+\/to-http\/bundles\/\S+\/bundle\.yaml: redirects to http:\/\/127\.0\.0\.1:\d+\/bundles\/\S+\/bundle\.yaml, from https to plain http/,
    );
  });

  it('5 redirects are followed; 6 are more than the run follows', async () => {
    const five = await plan(`${httpsBase}/hops/5/{version}/bundle.yaml`);
    assert.match(five.stdout, /ok\s+target-available\s+the bundle of \S+ is there/, five.stdout);
    const six = await plan(`${httpsBase}/hops/6/{version}/bundle.yaml`);
    assertExit(six, BLOCKED, 'plan with a bundle 6 redirects away');
    assert.match(six.stdout, /would not download the bundle of \S+: .*more than 5 redirects/);
  });
});
