/**
 * A state file far larger than any ctl writes (copied over, appended to without end) is refused
 * before it is read: `ctl upgrade status` and `ctl upgrade run` say which file and why, read
 * none of it, keep it as it is (no `.corrupt-<ms>` copy of it either) and change nothing.
 * Before, both read it whole, however large: a gigabyte in memory for a status poll.
 */

import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { MAX_STATE_BYTES, newState, StateFile } from '../../src/run/state.js';
import { assertExit, SharedUpgradeSim, TARGET } from '../e2e/upgrade-support.js';

describe('a state file larger than any ctl writes (e2e)', { timeout: 300_000 }, () => {
  const sim = new SharedUpgradeSim('happy-path');
  after(() => sim.close());

  test('status and run refuse it unread, keep it, and change nothing', async () => {
    await sim.use('status and run on an oversized state file', async (s) => {
      const dir = path.join(s.sandbox.dir, 'oversized');
      mkdirSync(dir, { recursive: true });
      const statePath = path.join(dir, 'rec.json');
      const scenario = s.cluster.scenario;
      const state = newState(
        {
          context: `ctl-sim-${scenario.name}`,
          namespace: scenario.namespace,
          cluster: scenario.cluster.name,
        },
        { operator: TARGET },
        ['preflight'],
      );
      await new StateFile(statePath).save(state);
      // Still JSON (whitespace after the document), and past the limit.
      const pad = ' '.repeat(1024 * 1024);
      for (let written = 0; written <= MAX_STATE_BYTES; written += pad.length) appendFileSync(statePath, pad);
      const size = statSync(statePath).size;

      const status = await s.ctl(['upgrade', 'status', '--state', statePath]);
      assertExit(status, 1, 'status on an oversized state file');
      assert.match(
        status.stderr,
        /the state file \S+rec\.json is 65(\.\d)? MiB, larger than any state ctl writes \(64 MiB at most\); ctl did not read it/,
      );
      assert.match(status.stderr, /hint: Inspect it, then move it aside \(mv /);

      const run = await s.ctl(['upgrade', 'run', '--to', TARGET, '--yes', '--state', statePath]);
      assertExit(run, 1, 'run on an oversized state file');
      assert.match(run.stderr, /larger than any state ctl writes/);

      assert.equal(statSync(statePath).size, size, 'the file is kept as it was');
      assert.deepEqual(
        readdirSync(dir).filter((name) => name.includes('corrupt')),
        [],
        'no copy of it is kept',
      );
    });
  });
});
