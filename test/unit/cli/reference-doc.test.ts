import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { repoRoot } from '../../helpers/tools.js';

/**
 * Issue 38: docs/reference.md (every command's flags, every check, the exit codes) is generated
 * from the code by scripts/reference.mjs; this fails when the committed page is not what the
 * code says now, so it cannot drift.
 */
describe('docs/reference.md', () => {
  it('is what scripts/reference.mjs makes from the code now', async () => {
    const { renderReference } = (await import(
      pathToFileURL(path.join(repoRoot, 'scripts', 'reference.mjs')).href
    )) as {
      renderReference: () => Promise<string>;
    };
    const expected = await renderReference();
    const committed = readFileSync(path.join(repoRoot, 'docs', 'reference.md'), 'utf8');
    assert.ok(
      committed === expected,
      'docs/reference.md is stale: run npm run build && node scripts/reference.mjs, and commit it',
    );
    for (const heading of [
      '### ctl upgrade plan',
      '### ctl auth trust',
      '### ctl version',
      '| `api-reachable` |',
      '| 3 | preflight |',
    ])
      assert.ok(committed.includes(heading), heading);
  });
});
