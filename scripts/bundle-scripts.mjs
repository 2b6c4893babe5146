// The split bundle as scripts, for scripts/bundle.mjs (issue 39): main.js and every chunk that
// esbuild's code splitting wrote as an ES module become CommonJS-shaped scripts, which
// bin/load-bundle.js compiles with V8's code cache itself. Why: Node's compile cache keeps what V8
// compiled when it compiled a file, its top level, so every function a command calls is compiled
// again on every run (~650 of the bundle's in a plan); a script's code cache made at the end of a
// run (vm.Script#createCachedData) keeps them too. esbuild splits only ES modules, so the split
// output is converted file by file: its static imports become require() calls of sibling files
// and its import() calls `Promise.resolve().then(() => require(...))`, both answered by the
// loader; `import.meta` becomes the loader's names for the file.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { transform } from 'esbuild';

/** The names bin/load-bundle.js passes each script for its own `import.meta` (its wrapper's parameters). */
const SCRIPT_META = {
  'import.meta.url': '__ctlScriptUrl',
  'import.meta.filename': '__ctlScriptFile',
  'import.meta.dirname': '__ctlScriptDir',
};

/** The first line of main.js: the build the scripts' code caches belong to (BUILD_LINE of bin/load-bundle.js). */
const BUILD_LINE = '// ctl-bundle ';

/**
 * Converts the ES module files of `metafile`'s outputs under `outdir` (the split build of
 * main.js) into scripts, and writes the build's id (a hash of every script) as main.js's first
 * line. Fails (throws) when a file imports anything but another file of the bundle or a module of
 * Node's own: the loader answers nothing else.
 */
export async function bundleAsScripts(metafile, outdir) {
  const outputs = Object.entries(metafile.outputs)
    .filter(([file]) => file.endsWith('.js'))
    .map(([file, output]) => ({ file: path.resolve(file), imports: output.imports }));
  const inBundle = new Set(outputs.map((output) => output.file));
  const strays = outputs.flatMap(({ file, imports }) =>
    imports
      // require() calls inside bundled packages go to Node's own require (the banner's), not here.
      .filter((imported) => imported.kind === 'import-statement' || imported.kind === 'dynamic-import')
      .filter((imported) => !isBuiltin(imported.path) && !inBundle.has(path.resolve(imported.path)))
      .map((imported) => `${path.relative(outdir, file)}: ${imported.kind} of ${imported.path}`),
  );
  if (strays.length > 0)
    throw new Error(`bundle: imports the script loader cannot answer:\n  ${strays.join('\n  ')}`);
  const build = createHash('sha256');
  const scripts = new Map();
  for (const { file } of outputs.sort((a, b) => a.file.localeCompare(b.file))) {
    const converted = await transform(readFileSync(file, 'utf8'), {
      format: 'cjs',
      loader: 'js',
      target: 'node22',
      // import() of a sibling file as require() inside a promise: a script has no import().
      supported: { 'dynamic-import': false },
      define: SCRIPT_META,
      // Any other use of import.meta would be an empty object in a script: fail the build instead.
      logOverride: { 'empty-import-meta': 'error' },
      logLevel: 'warning',
      sourcefile: path.relative(outdir, file),
    });
    build.update(`${path.relative(outdir, file)}\n${converted.code}\n`);
    scripts.set(file, converted.code);
  }
  const id = build.digest('hex').slice(0, 16);
  for (const [file, code] of scripts) {
    const head = path.resolve(file) === path.join(outdir, 'main.js') ? `${BUILD_LINE}${id}\n` : '';
    writeFileSync(file, head + code);
  }
  return id;
}
