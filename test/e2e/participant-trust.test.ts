/**
 * Issue 35, finding 1, end to end: an Active-Active participant's credentials go only to the
 * host its RERC names, from the Secret the RERC documentation requires, with trust of its own.
 * The BUILT ctl plans against a simulated cluster with a participant elsewhere; the RERC is then
 * patched to point at a listener of the test's (through the `/#` port override, a port in the
 * host, an IP address) and at the local REC's admin Secret: the listener gets no connection, and
 * the plan says why. The local --insecure does not reach the participant;
 * CTL_PARTICIPANT_INSECURE=<name> does.
 */

import assert from 'node:assert/strict';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type Socket } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCertificateAuthority, createServerCertificate } from '../helpers/simulator.js';
import { assertExit, withUpgradeSim, type UpgradeSim } from './upgrade-support.js';

const TARGET = '8.0.20-27';

interface PlanParticipants {
  participants?: { name: string; secret?: string; sentTo?: string; error?: string }[];
}

describe('participant credentials go only where their RERC may send them', { timeout: 600_000 }, () => {
  let dir: string;
  let scenario: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ctl-participant-trust-'));
    scenario = path.join(dir, 'aa-trust.yaml');
    writeFileSync(
      scenario,
      [
        'name: aa-trust',
        'description: "An REAADB with a participant on another cluster"',
        'dialect: redis',
        'operator: { version: 7.22.2-40 }',
        'cluster: { versionTag: 7.22.2-133, apiVersion: 7.22.2-133 }',
        'remoteClusters:',
        '  - { name: rerc-east, rsVersion: 8.0.20-108 }',
        'databases:',
        '  - { name: geo, version: "7.4", activeActive: true, participants: [rerc-east] }',
        '',
      ].join('\n'),
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A listener that counts the connections it gets (a hostile API would read the password). */
  async function listener(): Promise<{
    port: number;
    connections: () => number;
    close: () => Promise<void>;
  }> {
    let count = 0;
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      count++;
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    return {
      port,
      connections: () => count,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  async function plan(
    sim: UpgradeSim,
    env: Record<string, string> = {},
  ): Promise<PlanParticipants & { stderr: string }> {
    const result = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json'], { env });
    assert.ok(result.code === 0 || result.code === 3, `plan: exit ${result.code}\n${result.stderr}`);
    return { ...(JSON.parse(result.stdout) as PlanParticipants), stderr: result.stderr };
  }

  async function patchRerc(sim: UpgradeSim, spec: Record<string, unknown>): Promise<void> {
    await sim.kubectl([
      'patch',
      'redisenterpriseremoteclusters',
      'rerc-east',
      '--type=merge',
      '-p',
      JSON.stringify({ spec }),
    ]);
  }

  it('the plan names the Secret and the host; a hostile RERC gets nothing, with the reason', async () => {
    await withUpgradeSim(scenario, async (sim) => {
      const remote = sim.cluster.remoteClusters.endpoints[0]!;
      const text = await sim.ctl(['upgrade', 'plan', '--to', TARGET]);
      assertExit(text, 0, 'plan');
      assert.match(
        text.stdout,
        new RegExp(
          `participant rerc-east: credentials of Secret redis-enterprise-rerc-east sent to localhost:${remote.port}`,
        ),
      );
      const good = await plan(sim);
      assert.deepEqual(good.participants, [
        { name: 'rerc-east', secret: 'redis-enterprise-rerc-east', sentTo: `localhost:${remote.port}` },
      ]);

      const hostile = await listener();
      try {
        const attacks: [Record<string, unknown>, RegExp][] = [
          // The reproduced attack: the local admin Secret, and a host that overrides the port.
          [
            { secretName: 'rec', apiFqdnUrl: `127.0.0.1:${hostile.port}/#`, apiPort: 443 },
            /spec\.apiFqdnUrl .*ctl sends no credentials/,
          ],
          [
            { secretName: 'rec', apiFqdnUrl: 'localhost', apiPort: hostile.port },
            /spec\.secretName "rec" is not redis-enterprise-rerc-east.*own admin Secret/,
          ],
          [
            {
              secretName: 'redis-enterprise-rerc-east',
              apiFqdnUrl: `localhost:${hostile.port}`,
              apiPort: 443,
            },
            /names a port/,
          ],
          [{ apiFqdnUrl: '127.0.0.1', apiPort: hostile.port }, /is an IP address/],
          [{ apiFqdnUrl: `x@localhost`, apiPort: hostile.port }, /user information/],
        ];
        for (const [spec, why] of attacks) {
          await patchRerc(sim, spec);
          const refused = await plan(sim);
          const participant = refused.participants?.[0];
          assert.equal(participant?.sentTo, undefined, JSON.stringify(spec));
          assert.match(participant?.error ?? '', why, JSON.stringify(spec));
          const dry = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--dry-run']);
          assert.ok(dry.code === 0 || dry.code === 3, `run --dry-run: ${dry.code}\n${dry.stderr}`);
          assert.equal(
            hostile.connections(),
            0,
            `a connection reached the listener for ${JSON.stringify(spec)}`,
          );
        }
      } finally {
        await hostile.close();
      }
    });
  });

  it('the local --insecure never applies to a participant; CTL_PARTICIPANT_INSECURE names the one', async () => {
    await withUpgradeSim(scenario, async (sim) => {
      const remote = sim.cluster.remoteClusters.endpoints[0]!;
      // No participant CA: the local --insecure (and CTL_INSECURE) leave its certificate verified.
      const untrusted = await plan(sim, { CTL_PARTICIPANT_CA_FILE: '', CTL_INSECURE: '1' });
      assert.match(untrusted.participants?.[0]?.error ?? '', /certificate/i);
      const chosen = await plan(sim, { CTL_PARTICIPANT_CA_FILE: '', CTL_PARTICIPANT_INSECURE: 'rerc-east' });
      assert.deepEqual(chosen.participants, [
        { name: 'rerc-east', secret: 'redis-enterprise-rerc-east', sentTo: `localhost:${remote.port}` },
      ]);
      assert.match(
        chosen.stderr,
        /CTL_PARTICIPANT_INSECURE=rerc-east: the certificate of https:\/\/localhost:\d+ is NOT verified/,
      );
    });
  });

  it('a participant whose API quotes the request in its 401: its password is in no output, state or status', async () => {
    await withUpgradeSim(scenario, async (sim) => {
      const secret = await sim.get(['secret', 'redis-enterprise-rerc-east']);
      const password = Buffer.from(String(secret.data?.password), 'base64').toString('utf8');
      assert.ok(password.length >= 8, 'the participant has a password');
      // An API that refuses the participant's credentials and quotes them back (body and header).
      const ca = await createCertificateAuthority('echoing participant CA');
      const certificate = await createServerCertificate(ca);
      const echo = createHttpsServer({ key: certificate.keyPem, cert: certificate.certPem }, (req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        req.on('end', () => {
          res.writeHead(401, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              error_code: 'unauthorized',
              message: `rejected ${body} ${req.headers.authorization ?? ''}`,
            }),
          );
        });
      });
      await new Promise<void>((resolve) => echo.listen(0, 'localhost', resolve));
      try {
        const address = echo.address();
        await patchRerc(sim, {
          apiFqdnUrl: 'localhost',
          apiPort: typeof address === 'object' && address ? address.port : 0,
        });
        const env = { CTL_PARTICIPANT_INSECURE: 'rerc-east' };
        const planned = await plan(sim, env);
        assert.match(planned.participants?.[0]?.error ?? '', /rejected .*\[REDACTED\]/);
        const run = await sim.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '-o', 'json'], { env });
        assertExit(run, 0, 'run');
        const state = readFileSync(sim.statePath, 'utf8');
        assert.match(state, /held|heldBack/, 'the state records the held-back database');
        const status = await sim.ctl(['upgrade', 'status'], { env });
        assertExit(status, 0, 'status');
        assert.match(status.stdout, /redis\/geo: .*rejected/);
        for (const [what, text] of [
          ['the run', run.stdout + run.stderr],
          ['the state file', state],
          ['ctl upgrade status', status.stdout + status.stderr],
        ] as const)
          assert.ok(!text.includes(password), `${what} holds the participant's password`);
      } finally {
        await new Promise<void>((resolve) => echo.close(() => resolve()));
      }
    });
  });
});
