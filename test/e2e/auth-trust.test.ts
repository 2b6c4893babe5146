/**
 * Issue 38, trust on first contact: without a CA file, the management API's certificate is not
 * trusted, and ctl says in its hint where the certificate is and how to get it; `ctl auth trust`
 * reads it through the Kubernetes API (the port-forward into the pod), prints its fingerprint,
 * pins it, and from then on the same plan passes without --ca-file. A certificate nobody pinned
 * is never accepted.
 */

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, rootCertificates } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { loadScenario, type SimulatedCluster, startSimulatedCluster } from '../helpers/simulator.js';
import { runCtl } from '../helpers/run-ctl.js';

/** The SHA-256 of the certificate the management API presents, read directly (not through ctl). */
function presentedFingerprint(apiUrl: string, ca: string): Promise<string> {
  const url = new URL(apiUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: url.hostname, port: Number(url.port), ca, servername: 'localhost' },
      () => {
        const der = socket.getPeerCertificate().raw;
        socket.end();
        resolve(createHash('sha256').update(der).digest('hex').toUpperCase().match(/../g)!.join(':'));
      },
    );
    socket.on('error', reject);
  });
}

describe('ctl auth trust: the API certificate through the Kubernetes API', () => {
  let dir: string;
  let cluster: SimulatedCluster;
  let env: Record<string, string | undefined>;
  const TARGET = '8.2.0-18';

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-trust-'));
    cluster = await startSimulatedCluster({
      scenario: loadScenario('happy-path'),
      dir: path.join(dir, 'sim'),
      fast: true,
    });
    env = {
      KUBECONFIG: cluster.kubeconfigPath,
      CTL_BUNDLE: cluster.env.CTL_BUNDLE,
      HOME: dir,
      XDG_STATE_HOME: path.join(dir, 'state'),
      XDG_CONFIG_HOME: path.join(dir, 'config'),
      // Unset on purpose: a newcomer has neither the CA nor the URL.
      CTL_CA_FILE: undefined,
      CTL_API_URL: undefined,
      CTL_USERNAME: undefined,
      CTL_PASSWORD: undefined,
    };
  });

  after(async () => {
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('not trusted: exit 1, and the hint names ctl auth trust; nothing is accepted silently', async () => {
    const plan = await runCtl(['upgrade', 'plan', '--to', TARGET], { env, cwd: dir });
    assert.equal(plan.code, 1, plan.stderr);
    assert.match(plan.stderr, /TLS: the certificate of https:\/\/127\.0\.0\.1:\d+ is not trusted/);
    assert.match(
      plan.stderr,
      /hint: Redis Enterprise signs the API certificate itself .*ctl auth trust reads it through the Kubernetes API, prints its fingerprint and pins it/,
    );
    assert.match(
      plan.stdout,
      /FAIL api-reachable .*\n {6}fix: Redis Enterprise signs the API certificate itself/,
    );
    assert.doesNotMatch(plan.stdout, /kubectl port-forward/, 'no advice to set up what ctl already did');
  });

  test('ctl auth trust pins what the pod presents, prints its fingerprint; the plan then passes', async () => {
    const expected = await presentedFingerprint(
      cluster.env.CTL_API_URL ?? '',
      readFileSync(cluster.caPath, 'utf8'),
    );
    const trust = await runCtl(['auth', 'trust'], { env, cwd: dir });
    assert.equal(trust.code, 0, trust.stderr);
    assert.match(
      trust.stderr,
      /from pod port 9443 of cluster redis\/rec, through the Kubernetes API \(port-forward\)/,
    );
    assert.match(trust.stderr, new RegExp(`SHA-256 {2}${expected}\\n`));
    const pinned = path.join(dir, 'config', 'ctl', 'trusted', 'ctl-sim-happy-path', 'redis', 'rec.pem');
    assert.equal(trust.stdout, `${pinned}\n`);
    assert.match(readFileSync(pinned, 'utf8'), /^-----BEGIN CERTIFICATE-----/);

    const json = await runCtl(['auth', 'trust', '-o', 'json', '--out', path.join(dir, 'rec-ca.pem')], {
      env,
      cwd: dir,
    });
    assert.equal(json.code, 0, json.stderr);
    assert.equal((JSON.parse(json.stdout) as { fingerprint: string }).fingerprint, `sha256:${expected}`);

    const plan = await runCtl(['upgrade', 'plan', '--to', TARGET, '-v'], { env, cwd: dir });
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stderr, /TLS: trusting the certificate ctl auth trust pinned: /);
    assert.match(plan.stdout, /ok {3}api-reachable/);
    const token = await runCtl(['auth', 'token'], { env, cwd: dir });
    assert.equal(token.code, 0, token.stderr);

    // The API presents another certificate than the pinned one (replaced, or a simulated
    // cluster started anew): the error names the pin and how to renew it. Here the pin is a
    // certificate that did not sign the API's (one of Node's root CAs).
    writeFileSync(pinned, rootCertificates[0] ?? '');
    const changed = await runCtl(['upgrade', 'plan', '--to', TARGET], { env, cwd: dir });
    assert.equal(changed.code, 1, changed.stderr);
    assert.match(changed.stderr, /is not trusted/);
    assert.ok(
      changed.stderr.includes(
        `The certificate ctl auth trust pinned for this cluster (${pinned}) is not the one the API presents now: if it was replaced on purpose (or the simulated cluster started anew), check the new one's fingerprint with ctl auth trust, which pins it.`,
      ),
      changed.stderr,
    );

    // The pin is what made it trusted: without it, the same plan fails as before.
    rmSync(pinned);
    const again = await runCtl(['upgrade', 'plan', '--to', TARGET], { env, cwd: dir });
    assert.equal(again.code, 1, again.stderr);
    assert.match(again.stderr, /is not trusted/);
    assert.doesNotMatch(again.stderr, /pinned for this cluster/, 'no pin, no word of one');
  });
});
