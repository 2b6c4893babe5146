#!/usr/bin/env node
// The simulated cluster as the tests load it (test/helpers/simulator.ts), bundled into one file
// in place of its compiled form: `node scripts/bundle-simulator.mjs <dist>`, run by build.mjs
// after tsc. Loaded module by module, the simulator and its packages are about 570 files and 0.6 s
// of CPU for every test file that starts one; as one file about 0.35 s (docs/reliability.md,
// "The suite's time"). Only the tests load it: ctl's own bundle (scripts/bundle.mjs) holds the
// simulator of `ctl sim` and `ctl demo`.
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';

// Node's own modules by require(), as ctl's bundle takes them (scripts/bundle.mjs): an ES import
// of node:http makes Node build its ES facade, which reads every export, and three of them
// (WebSocket, CloseEvent, MessageEvent) load Node's internal undici: about 65 ms of CPU in every
// process that loaded the simulator, on Node 22 and 24 alike.
const builtinsByRequire = {
  name: 'node-builtins-by-require',
  setup(bundle) {
    bundle.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, (args) =>
      args.kind === 'import-statement' && isBuiltin(args.path)
        ? { path: args.path.replace(/^node:/, ''), namespace: 'node-builtin' }
        : undefined,
    );
    bundle.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(`node:${args.path}`)});`,
      loader: 'js',
    }));
  },
};

const dist = path.resolve(process.argv[2] ?? 'dist');
const file = path.join(dist, 'test', 'helpers', 'simulator.js');
await build({
  entryPoints: [file],
  outfile: file,
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  logLevel: 'warning',
  // The CommonJS packages inside (ajv, ...) call require(): an ES module has none.
  plugins: [builtinsByRequire],
  banner: {
    js: "import { createRequire as __simRequire } from 'node:module'; const require = __simRequire(import.meta.url);",
  },
});
