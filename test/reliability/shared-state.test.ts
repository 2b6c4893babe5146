/**
 * Issue 28, item 7 (docs/reliability.md guarantee 14): a state file or folder that other users
 * may write is refused with the chmod that fixes it (exit 2), by `upgrade run` and `upgrade
 * status` alike, before any change; once fixed, the same commands work.
 */

import assert from 'node:assert/strict';
import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { checkUpgraded, figure, runOnBed, STACK_TRACE, startBed, UPGRADE } from './support.js';

describe('a state others may write is refused', () => {
  test('a folder writable by others, then by the group: the run exits 2 with chmod go-w, nothing changed; fixed, the run completes', async () => {
    const bed = await startBed('happy-path');
    try {
      const folder = path.dirname(bed.statePath);
      mkdirSync(folder, { recursive: true });
      for (const mode of [0o777, 0o770]) {
        chmodSync(folder, mode);
        const result = await runOnBed(bed, UPGRADE);
        assert.equal(result.code, 2, `mode ${mode.toString(8)}\n${result.stderr}`);
        assert.match(result.stderr, /can be written by other users/);
        assert.ok(result.stderr.includes(`chmod go-w ${folder}`), result.stderr);
        assert.doesNotMatch(result.stderr, STACK_TRACE);
      }
      assert.equal(bed.changes.versionTag + bed.changes.operatorImage, 0);
      chmodSync(folder, 0o700);
      const run = await runOnBed(bed, UPGRADE);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(checkUpgraded(bed), []);
    } finally {
      await bed.close();
    }
  });

  test('a state file writable by others: status and run exit 2 with chmod 600; fixed, status works', async () => {
    const bed = await startBed('happy-path');
    try {
      const run = await runOnBed(bed, UPGRADE);
      assert.equal(run.code, 0, run.stderr);
      chmodSync(bed.statePath, 0o666);
      for (const args of [['upgrade', 'status'], UPGRADE]) {
        const result = await runOnBed(bed, args);
        assert.equal(result.code, 2, `${args.join(' ')}\n${result.stderr}`);
        assert.ok(result.stderr.includes(`chmod 600 ${bed.statePath}`), result.stderr);
      }
      chmodSync(bed.statePath, 0o600);
      const status = await runOnBed(bed, ['upgrade', 'status']);
      assert.equal(status.code, 0, status.stderr);
      figure('shared state: folder 777 and 770, file 666 refused (exit 2, chmod named) by run and status');
    } finally {
      await bed.close();
    }
  });
});
