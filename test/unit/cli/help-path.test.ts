import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { HELP_COMMANDS } from '../../../bench/benchmarks.js';
import { repoRoot } from '../../../bench/lib.js';
import { commandTree } from '../../helpers/command-tree.js';

/**
 * What keeps `ctl <command> --help` fast (docs/performance.md, "Start-up"), checked without a
 * clock: the bench times every command of the tree, and the modules that declare the tree load
 * nothing but commander and the few base modules until an action runs.
 */
describe('the --help path', () => {
  it('the start-up bench times --help of every command in the tree', async () => {
    const tree = (await commandTree()).map((c) => c.path.join(' ')).sort();
    assert.deepEqual([...HELP_COMMANDS.map((words) => words.join(' '))].sort(), tree);
  });

  it('the modules that declare the tree import only commander, each other and base modules', () => {
    // Anything else here would land in the bundle's first file or a chunk that --help reads.
    const declaring = ['program', 'globals', 'connection', 'auth', 'upgrade', 'sim', 'demo', 'completion'];
    const allowed = new Set([
      'commander',
      '../errors.js',
      '../io/safe-text.js',
      ...declaring.map((name) => `./${name}.js`),
    ]);
    for (const name of declaring) {
      const source = readFileSync(path.join(repoRoot, 'src', 'cli', `${name}.ts`), 'utf8');
      const statics = [...source.matchAll(/^import (?!type )[^;]*? from '([^']+)';/gms)].map((m) => m[1]);
      for (const specifier of statics) {
        assert.ok(allowed.has(specifier as string), `src/cli/${name}.ts imports ${specifier} at load time`);
      }
    }
  });
});
