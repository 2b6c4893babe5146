/**
 * `ctl sim capture` round trips, the first quarter of the built-in scenarios (the others in
 * sim-capture-2, -3 and -4: sim-capture-support.ts says why), and `ctl sim up` serving a
 * capture. What a round trip checks: sim-capture-support.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { runCtl } from '../helpers/run-ctl.js';
import { within } from '../helpers/wait.js';
import { readEnvFile, startSimUp } from './sim-process.js';
import { assertExit, withUpgradeSim } from './upgrade-support.js';
import {
  describeRoundTrips,
  normalized,
  planOf,
  scenariosOfPart,
  TARGET,
  TIMEOUT,
} from './sim-capture-support.js';

describeRoundTrips('1 of 4', scenariosOfPart(1));

describe('ctl sim up --scenario <captured file> (child process)', () => {
  it(
    'serves the capture with a new random password, and plans as the original does; -o json; exit 2 without a cluster, 4 with refused credentials',
    TIMEOUT,
    async () => {
      await withUpgradeSim('happy-path', async (sim) => {
        const file = path.join(sim.sandbox.dir, 'captured.yaml');
        assertExit(await sim.ctl(['sim', 'capture', '--out', file]), 0, 'ctl sim capture');
        const asJson = await sim.ctl(['sim', 'capture', '-o', 'json']);
        assertExit(asJson, 0, 'ctl sim capture -o json');
        assert.deepEqual(
          JSON.parse(asJson.stdout),
          parse(readFileSync(file, 'utf8')),
          '-o json: the same scenario',
        );
        const nowhere = await sim.ctl(['sim', 'capture', '-n', 'nowhere']);
        assertExit(nowhere, 2, 'ctl sim capture -n nowhere');
        assert.match(nowhere.stderr, /no cluster resource in namespace nowhere: nothing to capture/);
        assert.match(nowhere.stderr, /hint: Pass the namespace of the cluster resource with -n/);
        const refused = await sim.ctl(['sim', 'capture'], { env: { CTL_PASSWORD: 'not-the-password' } });
        assertExit(refused, 4, 'ctl sim capture with a wrong password');
        assert.match(refused.stderr, /the management API refused the credentials/);
        const original = await planOf(sim);
        const copy = await startSimUp(['--scenario', file, '--fast', '--dir', 'copy'], sim.sandbox.dir);
        try {
          const env = readEnvFile(path.join(copy.ready.dir, 'env'));
          assert.equal(env.CTL_USERNAME, 'admin@example.com');
          assert.notEqual(env.CTL_PASSWORD, sim.env.CTL_PASSWORD, 'not the original password');
          assert.ok((env.CTL_PASSWORD ?? '').length >= 16, 'a random password');
          assert.ok(
            !readFileSync(file, 'utf8').includes(env.CTL_PASSWORD ?? ''),
            'made by the simulator, not written',
          );
          const result = await runCtl(['upgrade', 'plan', '--to', TARGET, '-o', 'json'], {
            env: { ...env, HOME: sim.env.HOME },
            cwd: sim.sandbox.dir,
            timeoutMs: 60_000,
          });
          assertExit(result, original.code ?? 0, 'ctl upgrade plan on the capture');
          // The copy is named after the scenario captured, not after the simulator's context: its
          // context is ctl-sim-happy-path again, never ctl-sim-ctl-sim-happy-path.
          assert.equal((parse(readFileSync(file, 'utf8')) as { name: string }).name, 'happy-path');
          assert.equal(
            (JSON.parse(result.stdout) as { cluster: { context: string } }).cluster.context,
            'ctl-sim-happy-path',
          );
          assert.deepEqual(
            normalized(JSON.parse(result.stdout) as Record<string, unknown>),
            normalized(original.plan),
          );
        } finally {
          copy.child.kill('SIGTERM');
          await within('ctl sim up to stop after SIGTERM', 30_000, copy.exited);
        }
      });
    },
  );
});
