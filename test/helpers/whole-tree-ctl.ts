// ctl through the whole command tree (dist/bundle/main.js, through bin/load-bundle.js) whatever
// the arguments: what bin/ctl.js runs for every command but the runs `ctl auth token`'s own entry
// serves (src/token-main.ts). test/e2e/auth-token-entry.test.ts compares the two. Run as
// `node whole-tree-ctl.js <args>`.
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const { loadBundle } = (await import(pathToFileURL(resolve(repoRoot, 'bin', 'load-bundle.js')).href)) as {
  loadBundle(main: string, words: string[], env: NodeJS.ProcessEnv): { run(): Promise<void> };
};
await loadBundle(resolve(repoRoot, 'dist', 'bundle', 'main.js'), process.argv.slice(2), process.env).run();
