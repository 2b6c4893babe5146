#!/usr/bin/env node
// Checks the Node version before anything else loads, then runs the built CLI. The supported
// lines are Node.js 22 and 24 (package.json "engines"; Node 20 reached its end of life on
// 2026-04-30): on an older one ctl says so in two lines instead of failing somewhere inside.
const [major] = process.versions.node.split('.').map(Number);
if (major < 22) {
  process.stderr.write(`error: ctl needs Node.js 22 or newer; this is ${process.version}.\n`);
  process.stderr.write('hint: install Node.js 22 or 24 (LTS, https://nodejs.org) and run ctl again.\n');
  process.exit(1);
}
const args = process.argv.slice(2);
// Answered before anything else loads: scripts call `ctl --version` a lot.
if (args.length === 1 && args[0] === '--version') {
  const { readFileSync } = await nodeFs();
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${manifest.version}\n`);
} else if (!(await helpFromBuild(args))) {
  // The bundled build (scripts/bundle.mjs): the same code as dist/src, in a few files.
  const { run } = await loadBuild(args);
  await run();
}

/**
 * The bundle's entry point: `ctl auth token`'s own (token-main.js: one file without commander or
 * the Kubernetes client, for the runs src/token-main.ts says it serves, an ES module) or the whole
 * tree's (main.js and its chunks, scripts that load-bundle.js runs with a code cache of whole
 * runs). A checkout that was never built (or whose dist/ a rebuild is swapping at this very
 * moment) has none: one line that says what to do, not a stack trace.
 */
async function loadBuild(words) {
  const token = new URL('../dist/bundle/token-main.js', import.meta.url);
  await keepCompiledCode();
  hideDependencyDeprecation();
  let main;
  try {
    if (words.includes('token')) {
      const entry = await import(token.href);
      if (entry.isAuthTokenCommand(words, process.env)) return entry;
    }
    // Only the whole tree's path: the token's own entry pays for nothing it does not use.
    const { fileURLToPath } = await import('node:url');
    main = fileURLToPath(new URL('../dist/bundle/main.js', import.meta.url));
    const { loadBundle } = await import('./load-bundle.js');
    return loadBundle(main, words, process.env);
  } catch (error) {
    const missing =
      (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error?.message).includes(token.pathname)) ||
      (error?.code === 'ENOENT' && main !== undefined && error?.path === main);
    if (!missing) throw error;
    process.stderr.write('error: ctl is not built: run npm run build\n');
    process.exit(1);
  }
}

/**
 * `ctl <command...> --help` with stdout not a terminal: the text the command tree rendered at
 * build time (scripts/help-texts.mjs), where commander wraps at 80 columns too. False when the
 * words are not exactly a command path and --help (anything else goes to the tree).
 */
async function helpFromBuild(words) {
  const last = words[words.length - 1];
  if ((last !== '--help' && last !== '-h') || process.stdout.isTTY) return false;
  const { readFileSync } = await nodeFs();
  let texts;
  try {
    // Run as the kubectl plugin (`kubectl-rec`: src/io/program-name.ts), its texts say `kubectl rec`.
    const file = /(^|[\\/])kubectl-rec(\.[a-z]+)?$/i.test(process.argv[1] ?? '')
      ? 'help-kubectl-rec.json'
      : 'help.json';
    texts = JSON.parse(readFileSync(new URL(`../dist/bundle/${file}`, import.meta.url), 'utf8'));
  } catch {
    return false;
  }
  const text = texts[words.slice(0, -1).join(' ')];
  if (typeof text !== 'string') return false;
  process.stdout.write(text);
  return true;
}

/**
 * Most of a command's start-up is V8 compiling the bundle's code. Node (22.1 and newer) keeps
 * what it compiled in a cache folder when asked (module.enableCompileCache), and the next ctl
 * reads it instead: `ctl auth token` measured in docs/performance.md. The folder is the user's
 * cache, ctl's own part of it; Node writes it atomically and checks it against the code and its
 * own version. NODE_DISABLE_COMPILE_CACHE=1 turns it off; a folder that cannot be written only
 * means no cache.
 */
async function keepCompiledCode() {
  const { enableCompileCache } = await import('node:module');
  if (typeof enableCompileCache !== 'function') return;
  const { homedir } = await import('node:os');
  const { join } = await import('node:path');
  const base = process.env.XDG_CACHE_HOME || join(process.env.HOME || homedir(), '.cache');
  const folder = join(base, 'ctl', 'compile-cache');
  // Made here first: Node's own making of it never returns under procfs (cache-folder.js).
  const { makeCacheFolder } = await import('./cache-folder.js');
  if (!makeCacheFolder(folder)) return;
  try {
    enableCompileCache(folder);
  } catch {
    // No cache: ctl runs the same, compiling as it goes.
  }
}

/**
 * node-fetch 2, inside @kubernetes/client-node, parses every request URL with `url.parse()`, which
 * Node.js 24 deprecates at run time (DEP0169): a warning on every command that its user can do
 * nothing about. Only that code is dropped; every other warning still prints.
 */
function hideDependencyDeprecation() {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    const code = typeof rest[0] === 'object' && rest[0] !== null ? rest[0].code : rest[1];
    if (code === 'DEP0169') return;
    return emitWarning.call(process, warning, ...rest);
  };
}

/** node:fs by require: its ES facade would load fs's streams, which nothing here uses (load-bundle.js). */
async function nodeFs() {
  const { createRequire } = await import('node:module');
  return createRequire(import.meta.url)('node:fs');
}
