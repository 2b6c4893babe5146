/**
 * Guarantee 7 (docs/reliability.md): TLS is verified by default. A management API with a
 * certificate from another CA, an expired one, or one for another host name fails with a clear
 * message; `--insecure` works and warns; `--ca-file` works. test/e2e/auth.test.ts covers "no CA"
 * and `--insecure` for `ctl auth token`; this adds the three bad certificates, for `auth token`
 * and for the upgrade commands, and `--ca-file`/`--insecure` for `upgrade run`.
 */

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createCertificateAuthority } from '../helpers/simulator.js';
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
        // Every TLS failure is exit 1 (docs/exit-codes.md "Decisions"), plan and run alike.
        assert.equal(result.code, 1, `${args.join(' ')}: exit ${result.code}\n${result.stderr}`);
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

/**
 * A TCP relay in front of the management API that the test can turn, mid-run, towards another
 * HTTPS server: what a certificate replaced under a running ctl looks like (a new CA, or the
 * load balancer in front of the API re-pointed). Turning it also drops the open connections, so
 * the next call makes a new TLS handshake, as a real client's would after a keep-alive timeout.
 */
async function startSwitchableRelay(
  first: string,
): Promise<{ url: string; turnTo(next: string): void; close(): Promise<void> }> {
  let target = new URL(first);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `https://127.0.0.1:${port}`,
    turnTo: (next) => {
      target = new URL(next);
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('TLS: a certificate that stops being trusted mid-run', () => {
  // When the relay turns, from inside the emulator's change event, so before ctl can see the change.
  const moments: { name: string; turnWhen: (bed: Bed) => boolean; message: RegExp }[] = [
    {
      name: 'during the roll (the monitor reads the nodes)',
      turnWhen: (bed) => bed.changes.versionTag > 0,
      message: /\[monitor\]|monitor/,
    },
    {
      name: 'after the last step (the verification reads the nodes and databases)',
      turnWhen: (bed) => bed.changes.databaseVersion.size === 3,
      message: /could not be verified/,
    },
  ];
  for (const moment of moments) {
    test(`${moment.name}: exit 1 with the TLS message and its fix, not a warning and exit 0`, async () => {
      const bed = await startBed('happy-path');
      // A certificate from a CA the run was not given, behind the same host and port.
      const stranger = await startHostileServer();
      const relay = await startSwitchableRelay(bed.cluster.apiUrl);
      let turned = false;
      bed.cluster.kube.store.on('change', () => {
        if (turned || !moment.turnWhen(bed)) return;
        turned = true;
        relay.turnTo(stranger.url);
      });
      try {
        const result = await runOnBed(bed, UPGRADE, { env: { CTL_API_URL: relay.url } });
        assert.ok(turned, 'the relay turned mid-run');
        assert.equal(result.code, 1, result.stderr);
        assert.match(result.stderr, /TLS: the certificate of .* is not trusted/);
        assert.match(result.stderr, /--ca-file/);
        assert.match(result.stderr, moment.message);
        assert.doesNotMatch(result.stderr, STACK_TRACE);
        assert.doesNotMatch(result.stdout, /result: succeeded/);
        figure(`TLS: a certificate untrusted ${moment.name}: exit 1`);
      } finally {
        await relay.close();
        await stranger.close();
        await bed.close();
      }
    });
  }
});
