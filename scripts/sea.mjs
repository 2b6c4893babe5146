// ctl as one executable file (Node's single executable applications, issue 38 item 9):
// dist/sea/ctl (ctl.exe on Windows), a copy of a Node.js 22 or 24 binary with ctl injected.
// Run by `npm run sea` after the build (dist/src/); `--node 24` picks the line (default: the
// running node when it is 22 or newer, else 22 from scripts/node-runtime.mjs); `--out <dir>`
// builds elsewhere than dist/sea (the test builds into its own folder).
//
// How (Node's doc/api/single-executable-applications.md, v22 and v24):
// 1. The main script of a SEA is ONE CommonJS file (an ES module main is not supported on 22):
//    esbuild bundles dist/src/sea-main.js and every dependency into dist/sea/ctl.cjs.
// 2. What ctl reads from its package folder (package.json for --version and reports, scenarios/
//    for the simulator: src/package-root.ts, src/sim/world/package-root.ts) goes into the blob
//    as SEA assets; src/sea-main.ts writes them once into a folder of the user's cache, keyed
//    by their hash, and the bundle's `import.meta.url` points into that folder.
// 3. `node --experimental-sea-config` writes the blob; postject injects it into a copy of the
//    same node binary (the blob is only valid for the node that wrote it).
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { nodeBinary } from './node-runtime.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outArg = process.argv.indexOf('--out');
const outdir = path.resolve(outArg >= 0 ? (process.argv[outArg + 1] ?? '') : path.join(root, 'dist', 'sea'));
const nodeArg = process.argv.indexOf('--node');
const major = Number(process.versions.node.split('.')[0]);
const node =
  nodeArg >= 0
    ? nodeBinary(process.argv[nodeArg + 1] ?? '22')
    : major >= 22
      ? process.execPath
      : nodeBinary('22');
const exe = path.join(outdir, process.platform === 'win32' ? 'ctl.exe' : 'ctl');

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });

// 1. One CommonJS file. `import.meta.url` (read by the two package-root modules only) becomes
// the folder src/sea-main.ts extracts the assets into, set before any module runs.
const bundled = await build({
  entryPoints: [path.join(root, 'dist', 'src', 'sea-main.js')],
  metafile: true,
  outfile: path.join(outdir, 'ctl.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  define: { 'import.meta.url': 'globalThis.__ctlSeaModuleUrl' },
  // tr46 requires Node's deprecated `punycode` (scripts/bundle.mjs says why the userland one).
  alias: { punycode: 'punycode/' },
  logLevel: 'warning',
});

// The blob carries V8's code cache of ctl.cjs (useCodeCache below): the executable starts without
// compiling its 6 MB of JavaScript first (`ctl upgrade plan --help` 0.14 -> 0.08 s, `ctl sim
// scenarios` 0.22 -> 0.17 s, Node 22, 2026-11-29). Node's doc says import() does not work in a main
// script with a code cache; esbuild turns the bundle's own dynamic imports into require() calls,
// so only one of a Node module or an external package could still be an import() (esbuild's
// metafile lists each): none may be.
const dynamicImports = Object.values(bundled.metafile.outputs)
  .flatMap((output) => output.imports)
  .filter((imported) => imported.kind === 'dynamic-import')
  .map((imported) => imported.path);
if (dynamicImports.length > 0) {
  process.stderr.write(
    `sea: ctl.cjs still calls import(): ${[...new Set(dynamicImports)].join(', ')}; import those modules statically\n`,
  );
  process.exit(1);
}

// 2. The assets: package.json and every built-in scenario, by their path in the package.
const assets = { 'package.json': path.join(root, 'package.json') };
for (const file of readdirSync(path.join(root, 'scenarios'))
  .filter((name) => name.endsWith('.yaml'))
  .sort())
  assets[`scenarios/${file}`] = path.join(root, 'scenarios', file);

// src/sea-main.ts reads the list from an asset of its own (getAssetKeys is not in Node 22).
const manifest = path.join(outdir, 'ctl-assets.json');
writeFileSync(manifest, `${JSON.stringify(Object.keys(assets))}\n`);
assets['ctl-assets.json'] = manifest;

// 3. The blob, then the executable.
const config = path.join(outdir, 'sea-config.json');
const blob = path.join(outdir, 'sea-prep.blob');
writeFileSync(
  config,
  `${JSON.stringify(
    {
      main: path.join(outdir, 'ctl.cjs'),
      output: blob,
      disableExperimentalSEAWarning: true,
      useCodeCache: true,
      assets,
    },
    null,
    2,
  )}\n`,
);
run(node, ['--experimental-sea-config', config]);
copyFileSync(node, exe);
chmodSync(exe, 0o755);
const postject = path.join(root, 'node_modules', 'postject', 'dist', 'cli.js');
run(process.execPath, [
  postject,
  exe,
  'NODE_SEA_BLOB',
  blob,
  '--sentinel-fuse',
  'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
  ...(process.platform === 'darwin' ? ['--macho-segment-name', 'NODE_SEA'] : []),
]);
// macOS refuses a binary whose signature no longer matches: sign it again, ad hoc.
if (process.platform === 'darwin') run('codesign', ['--sign', '-', exe]);
rmSync(blob, { force: true });
process.stderr.write(`sea: ${path.relative(process.cwd(), exe)} (Node.js ${versionOf(node)})\n`);

function run(command, args) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  // postject warns once per ELF note it cannot name ("Can't find string offset for section
  // name '.note...'"): harmless on Linux, and the binary is run by the test as built.
  const stderr = (result.stderr ?? '')
    .split('\n')
    .filter(
      (line) =>
        line &&
        !/^(warning: Can't find string offset for section name|Wrote single executable preparation blob)/.test(
          line,
        ),
    );
  if (stderr.length > 0) process.stderr.write(`${stderr.join('\n')}\n`);
  if (result.status !== 0) {
    process.stderr.write(
      `sea: ${path.basename(command)} ${args[0]} failed (${result.status ?? result.signal})\n`,
    );
    process.exit(1);
  }
}

function versionOf(bin) {
  return spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
}
