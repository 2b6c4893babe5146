import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { assertExit, assertNoChanges, startUpgradeSim, TARGET, type UpgradeSim } from './upgrade-support.js';

/**
 * Issue 36, item 4: `ctl upgrade status` knows whose state it shows. Two simulated `happy-path`
 * clusters have the same context name (`ctl-sim-happy-path`), namespace and REC name, so a state
 * written on X is found by status on Y. Status reads Y's cluster resource, sees another uid and
 * says so (and offers no "resume with"); on X it says the state is X's; with X's API server
 * gone it shows the file and says it could not check. Status writes nothing, on any of them.
 */

/** Every file under `dir` with its size and modification time: what "writes nothing" compares. */
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const file = path.join(at, name);
      const stat = statSync(file);
      if (stat.isDirectory()) walk(file);
      else out.push(`${path.relative(dir, file)} ${stat.size} ${stat.mtimeMs}`);
    }
  };
  walk(dir);
  return out.sort();
}

/** `ctl upgrade status` on `sim`'s cluster, with `stateOf`'s state folder. */
function statusOn(sim: UpgradeSim, stateOf: UpgradeSim, extra: string[] = []) {
  return sim.ctl(['upgrade', 'status', ...extra], {
    env: { XDG_STATE_HOME: stateOf.env.XDG_STATE_HOME ?? '' },
    timeoutMs: 60_000,
  });
}

describe('ctl upgrade status: whose state it shows (e2e)', () => {
  test("X's state is X's on X, another cluster's on a fresh Y with the same context name, unchecked with X gone", async () => {
    const x = await startUpgradeSim('happy-path');
    const y = await startUpgradeSim('happy-path');
    let xClosed = false;
    try {
      assert.equal(x.cluster.env.KUBECONFIG === y.cluster.env.KUBECONFIG, false, 'two clusters');
      // A run on X that stopped after its preflight step (as an interrupted run records it).
      assertExit(await x.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '--only', 'preflight']), 0);
      const saved = JSON.parse(readFileSync(x.statePath, 'utf8')) as Record<string, unknown>;
      writeFileSync(x.statePath, JSON.stringify({ ...saved, result: 'interrupted' }), { mode: 0o600 });
      const stateDir = x.env.XDG_STATE_HOME ?? '';
      const before = listing(stateDir);

      const onX = await statusOn(x, x);
      assertExit(onX, 0, 'status on X');
      assert.match(
        onX.stdout,
        /^identity {2}this cluster's: the cluster resource redis\/rec .* has the recorded uid /m,
      );
      assert.match(onX.stdout, /resume with: /);

      const auditY = y.cluster.audit.entries.length;
      const onY = await statusOn(y, x);
      assertExit(onY, 0, 'status on Y');
      assert.match(
        onY.stdout,
        /^identity {2}this state is not this cluster's: .*another cluster with the same names/m,
      );
      assert.match(onY.stderr, /this state is not this cluster's/);
      assert.doesNotMatch(onY.stdout, /resume with:/);
      assert.match(onY.stdout, /not resumable here: .*--state NEW_FILE/);
      const json = await statusOn(y, x, ['-o', 'json']);
      assertExit(json, 0, 'status -o json on Y');
      const identity = (JSON.parse(json.stdout) as { identity: Record<string, unknown> }).identity;
      assert.equal(identity.checked, true);
      assert.equal(identity.belongsHere, false);
      assertNoChanges(y, auditY, 'status on Y');

      await x.cluster.stop();
      xClosed = true;
      const unreachable = await statusOn(x, x);
      assertExit(unreachable, 0, 'status with X gone');
      assert.match(unreachable.stdout, /^identity {2}could not check that this state is this cluster's: /m);
      assert.match(unreachable.stdout, /^target {4}operator 7\.8\.2-6/m);
      assert.deepEqual(listing(stateDir), before, 'status wrote nothing');

      // X's run recorded as succeeded: nothing of it to resume, and a run on Y starts its own
      // record (src/run/cluster-identity.ts finishedRunOfAnotherCluster), so no move-aside advice.
      writeFileSync(x.statePath, JSON.stringify({ ...saved, result: 'succeeded' }), { mode: 0o600 });
      const finished = await statusOn(y, x);
      assertExit(finished, 0, 'status on Y of a finished run of X');
      assert.match(finished.stdout, /^identity {2}this state is not this cluster's: /m);
      assert.match(
        finished.stdout,
        /\nthat upgrade succeeded: nothing to resume; ctl upgrade run starts a new record for this cluster\n/,
      );
      assert.doesNotMatch(finished.stdout, /not resumable here|--state NEW_FILE/);
    } finally {
      if (xClosed) x.sandbox.cleanup();
      else await x.close();
      await y.close();
    }
  });
});
