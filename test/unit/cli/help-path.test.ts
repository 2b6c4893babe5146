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
    const declaring = [
      'program',
      'globals',
      'connection',
      'auth',
      'upgrade',
      'sim',
      'demo',
      'completion',
      'version',
      'declare-options',
      'option-specs',
      'invoked-branch',
      // The plugin's help named and wrapped (`kubectl rec`): imports program-name.js alone.
      'help-rename',
    ];
    const allowed = new Set([
      'commander',
      '../errors.js',
      '../io/safe-text.js',
      // The program's name as typed (`kubectl rec`): a few lines that import nothing.
      '../io/program-name.js',
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

  it("`ctl auth token`'s own entry is one file without commander or the Kubernetes client", () => {
    // What keeps the token near a bare HTTPS request (docs/performance.md, "The token against its
    // floor"): src/token-main.ts reads its arguments itself (token-args.ts) and its bundle
    // carries only the management API's code (scripts/bundle.mjs).
    const bundle = readFileSync(path.join(repoRoot, 'dist', 'bundle', 'token-main.js'), 'utf8');
    const imports = [...bundle.matchAll(/^import .*? from ['"]([^'"]+)['"];?$/gm)].map((m) => m[1] as string);
    assert.deepEqual(
      imports.filter((specifier) => !specifier.startsWith('node:')),
      [],
      'token-main.js imports no other file of the bundle',
    );
    assert.doesNotMatch(bundle, /node_modules\/commander\//, 'no commander');
    assert.doesNotMatch(bundle, /node_modules\/@kubernetes\//, 'no Kubernetes client');
    assert.doesNotMatch(bundle, /node_modules\/undici\//, 'no undici');
    for (const source of ['token-main.ts', 'cli/token-args.ts', 'cli/token-scope.ts', 'cli/auth-action.ts']) {
      const text = readFileSync(path.join(repoRoot, 'src', source), 'utf8');
      assert.doesNotMatch(
        text,
        /^import (?!type )[^;]*? from 'commander';/ms,
        `src/${source} loads commander`,
      );
    }
  });
});
