import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { repoRoot } from '../helpers/run-ctl.js';
import { missedBlocker, uncaughtStop } from './property.js';
import { tryWorld } from './try-world.js';
import { parseWorld } from './world.js';

/**
 * Every world the generated-world test found broken (a Ready plan, then a run that did not
 * finish), kept as it was shrunk, with the reason in its file's comment. Each must now keep the
 * promise: its plan stops it (not Ready), or its run finishes at the target; and a world blocked
 * on purpose (`blockedBy`) must be stopped by one of those checks.
 */

const FOUND = path.join(repoRoot, 'test', 'worlds', 'found');
const files = readdirSync(FOUND).filter((name) => name.endsWith('.yaml'));

describe('worlds the generated-world test found', () => {
  test('there are found worlds to replay', () => assert.ok(files.length > 0));
  for (const name of files) {
    test(name, async () => {
      const world = parseWorld(readFileSync(path.join(FOUND, name), 'utf8'));
      const outcome = await tryWorld(world);
      assert.notEqual(outcome.kind, 'broken', outcome.kind === 'broken' ? outcome.why : '');
      // A world blocked on purpose: its plan must catch the blocker.
      assert.equal(missedBlocker(world, outcome), undefined);
      // A world whose run may stop on purpose: the plan made next must catch it.
      assert.equal(uncaughtStop(world, outcome), undefined);
    });
  }
});
