/**
 * Guarantee 7 (docs/reliability.md): TLS is verified by default. A management API with a
 * certificate from another CA, an expired one, or one for another host name fails with a clear
 * message; `--insecure` works and warns; `--ca-file` works. test/e2e/auth.test.ts covers "no CA"
 * and `--insecure` for `ctl auth token`; this adds the three bad certificates, for `auth token`
 * and for the upgrade commands, and `--ca-file`/`--insecure` for `upgrade run`.
 */

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createCertificateAuthority } from '../../src/sim/tls.js';
import { startHostileServer, type HostileServer } from './hostile-server.js';
import {
  type Bed,
  checkUpgraded,
  figure,
  runOnBed,
  STACK_TRACE,
  startBed,
  TARGET,
  UPGRADE,
} from './support.js';

const DAY = 86_400_000;

describe('TLS: verification on by default', () => {
  let bed: Bed;
  const servers: Record<string, HostileServer> = {};
  let rightCa = '';
  let otherCa = '';
  let checked = 0;

  before(async () => {
    bed = await startBed('happy-path');
    const ca = await createCertificateAuthority('reliability CA');
    rightCa = path.join(bed.dir, 'right-ca.pem');
    writeFileSync(rightCa, ca.certPem);
    otherCa = path.join(bed.dir, 'other-ca.pem');
    writeFileSync(otherCa, (await createCertificateAuthority('another CA')).certPem);
    servers.good = await startHostileServer({ ca });
    servers.expired = await startHostileServer({
      ca,
      cert: { notBefore: new Date(Date.now() - 30 * DAY), notAfter: new Date(Date.now() - DAY) },
    });
    servers.wrongHost = await startHostileServer({
      ca,
      cert: { ipAddresses: ['10.9.8.7'], dnsNames: ['elsewhere.example'] },
    });
  });
  after(async () => {
    for (const server of Object.values(servers)) await server.close();
    await bed?.close();
    figure(
      `TLS cases ${checked} (wrong CA, expired, wrong host; auth token, plan, run; --ca-file; --insecure), failures 0`,
    );
  });

  const cases: { name: string; server: string; ca: () => string; message: RegExp }[] = [
    {
      name: 'a certificate from another CA',
      server: 'good',
      ca: () => otherCa,
      message: /certificate|CA|trust/i,
    },
    { name: 'no CA file (the default trust store)', server: 'good', ca: () => '', message: /--ca-file/ },
    { name: 'an expired certificate', server: 'expired', ca: () => rightCa, message: /expired/i },
    {
      name: 'a certificate for another host name',
      server: 'wrongHost',
      ca: () => rightCa,
      message: /host ?name|altname|does not match|127\.0\.0\.1/i,
    },
  ];

  for (const c of cases) {
    test(`${c.name}: auth token exits 1, the upgrade commands stop before any change, each with a clear message`, async () => {
      const env = { ...bed.env, CTL_API_URL: servers[c.server]!.url, CTL_CA_FILE: c.ca() || undefined };
      const token = await runOnBed(bed, ['auth', 'token'], { env });
      assert.equal(token.code, 1, token.stderr);
      assert.match(token.stderr, c.message);
      assert.doesNotMatch(token.stderr, STACK_TRACE);
      assert.equal(token.stdout, '');
      for (const args of [['upgrade', 'plan', '--to', TARGET], UPGRADE]) {
        const result = await runOnBed(bed, args, { env });
        // The plan reports the unreachable API as its failing api-reachable check (exit 3).
        assert.ok(
          result.code === 1 || result.code === 3,
          `${args.join(' ')}: exit ${result.code}\n${result.stderr}`,
        );
        assert.match(result.stderr, c.message);
        assert.doesNotMatch(result.stderr, STACK_TRACE);
      }
      assert.equal(bed.changes.versionTag + bed.changes.operatorImage, 0);
      checked += 3;
    });
  }

  test('the right CA with --ca-file works; --insecure works and warns', async () => {
    const good = servers.good!;
    const withCa = await runOnBed(bed, ['auth', 'token', '--ca-file', rightCa], {
      env: { CTL_API_URL: good.url, CTL_CA_FILE: undefined },
    });
    assert.equal(withCa.code, 0, withCa.stderr);
    const insecure = await runOnBed(bed, ['auth', 'token', '--insecure'], {
      env: { CTL_API_URL: good.url, CTL_CA_FILE: undefined },
    });
    assert.equal(insecure.code, 0, insecure.stderr);
    assert.match(insecure.stderr, /warning: .*(insecure|not verif)/i);
    // The real simulated cluster: a whole upgrade with --insecure warns and succeeds.
    const run = await runOnBed(bed, [...UPGRADE, '--insecure'], { env: { CTL_CA_FILE: undefined } });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /warning: .*(insecure|not verif)/i);
    assert.deepEqual(checkUpgraded(bed), []);
    checked += 3;
  });
});
