import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { defaultStatePath } from '../../../src/run/state.js';
import { repoRoot } from '../../helpers/tools.js';

/**
 * The rehearsal on the simulator keeps its state where ctl keeps it by default, and the pages
 * that walk through it say the same place: upgrade.md exported an XDG_STATE_HOME of its own
 * ("keep rehearsal state apart") while the quick start, and ctl, used ~/.local/state.
 */
describe('the rehearsal state in the docs is where ctl keeps it', () => {
  // ctl sim up names its context ctl-sim-<scenario> (src/sim/cluster.ts): happy-path's, redis/rec.
  const file = defaultStatePath(
    { context: 'ctl-sim-happy-path', namespace: 'redis', cluster: 'rec' },
    { HOME: '~' },
  );
  const folder = `${path.dirname(path.dirname(file))}/`;

  for (const page of ['docs/quickstart.md', 'docs/upgrade.md']) {
    it(`${page} names ${folder} and sets no state folder of its own`, () => {
      const text = readFileSync(path.join(repoRoot, page), 'utf8');
      assert.equal(folder, '~/.local/state/ctl/ctl-sim-happy-path/');
      assert.ok(text.includes(`\`${folder}\``), `${page} does not name ${folder}`);
      assert.doesNotMatch(text, /XDG_STATE_HOME=/, `${page} sets XDG_STATE_HOME`);
    });
  }
});
