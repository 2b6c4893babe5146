/**
 * The bench's runbook (bench/runbook/upgrade.sh, what `npm run bench` times ctl against) still
 * upgrades the built-in scenario it runs on: when the scenarios moved to the real product's field
 * names (issue 38), the script kept patching the neutral ones and waited five minutes for a change
 * that never came, and the reaction and overhead benchmarks failed with nothing in the suite to
 * say so. Real kubectl (the devDependencies'), no timing: only that it ends, and how.
 */

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runbookEnv, withKubectl } from '../../bench/benchmarks.js';
import { runbookDir } from '../../bench/lib.js';
import { loadScenario, type SimulatedCluster, startSimulatedCluster } from '../helpers/simulator.js';
import { tempDir } from '../helpers/temp.js';

describe('the bench runbook upgrades the scenario it is timed on', () => {
  let cluster: SimulatedCluster;
  before(async () => {
    cluster = await startSimulatedCluster({ scenario: loadScenario('happy-path'), fast: true });
  });
  after(async () => {
    await cluster?.stop();
  });

  it('upgrade.sh: the operator, the cluster and every database, each seen done', async () => {
    const env = {
      ...withKubectl(runbookEnv(cluster, tempDir('ctl-runbook-')), cluster.scenario.kubernetesVersion),
      POLL: '0.2',
      MAX_WAIT: '60',
    };
    // Not spawnSync: the simulator answers kubectl from this process's event loop. The hang
    // guard: MAX_WAIT ends the script with a message; the timeout ends a script that ignores it.
    const result = await new Promise<{ status: number | string | null; stdout: string; stderr: string }>(
      (resolve) => {
        execFile(
          'bash',
          [path.join(runbookDir, 'upgrade.sh')],
          { env, timeout: 90_000 },
          (error, stdout, stderr) =>
            resolve({ status: error ? (error.code ?? error.signal ?? 'failed') : 0, stdout, stderr }),
        );
      },
    );
    assert.equal(result.status, 0, `upgrade.sh exited ${result.status}: ${result.stderr}`);
    const events = result.stdout.split('\n').map((line) => line.split(' ').slice(1).join(' '));
    assert.ok(events.includes('cluster-running'), result.stdout);
    const databases = cluster.scenario.databases.map((db) => `database-active ${db.namespace}/${db.name}`);
    for (const database of databases) assert.ok(events.includes(database), `${database} in ${result.stdout}`);
  });
});
