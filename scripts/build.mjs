#!/usr/bin/env node
// `npm run build`: tsc's output (dist/src, dist/test, dist/bench) and the bundle that bin/ctl.js
// runs (dist/bundle, scripts/bundle.mjs). Everything is built in a fresh folder beside dist/ and
// swapped in at the end, so a ctl started meanwhile (another terminal, a test) keeps running on
// the previous build instead of finding dist/ half deleted. Each stage says what it does: this
// runs inside `npm ci` (the prepare script), where a silent minute looks like a hang.
//
//   node scripts/build.mjs                 build
//   node scripts/build.mjs --if-stale      only when no build is there or a source is newer than
//                                          it (the prepare script: `npx ctl` in the checkout runs
//                                          prepare again, which must not rebuild for nothing; and
//                                          `npm test`, right after the build npm ci made)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.join(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const stamp = path.join(dist, '.built');
// What the build reads: a change to any of them makes the build stale.
const INPUTS = ['src', 'test', 'bench', 'scripts', 'tsconfig.json', 'package-lock.json'];

function say(message) {
  process.stderr.write(`build: ${message}\n`);
}

function newestInput(entry) {
  const stats = statSync(entry, { throwIfNoEntry: false });
  if (!stats) return 0;
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const name of readdirSync(entry)) newest = Math.max(newest, newestInput(path.join(entry, name)));
  return newest;
}

function upToDate() {
  const built = statSync(stamp, { throwIfNoEntry: false });
  if (!built || !existsSync(path.join(dist, 'bundle', 'main.js'))) return false;
  return INPUTS.every((input) => newestInput(path.join(root, input)) <= built.mtimeMs);
}

class BuildFailed extends Error {}

function run(what, argv) {
  const started = Date.now();
  say(`${what}...`);
  const result = spawnSync(process.execPath, argv, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new BuildFailed(`${what} failed (exit ${result.status ?? result.signal})`);
  say(`${what}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

if (process.argv.includes('--if-stale') && upToDate()) {
  say('dist/ is up to date with the sources: nothing to build');
  process.exit(0);
}

// A build stopped midway (Ctrl-C, a killed CI job) leaves its folder beside dist/: removed here,
// unless the build that owns it still runs.
for (const name of readdirSync(root)) {
  const owner = /^dist\.(?:next|previous)-(\d+)$/.exec(name)?.[1];
  if (owner && !isRunning(Number(owner))) rmSync(path.join(root, name), { recursive: true, force: true });
}

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

const next = `${dist}.next-${process.pid}`;
const previous = `${dist}.previous-${process.pid}`;
rmSync(next, { recursive: true, force: true });
const startedAt = new Date();
try {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  run('compiling the TypeScript (tsc)', [tsc, '-p', 'tsconfig.json', '--outDir', next]);
  run('bundling ctl (esbuild)', [path.join(root, 'scripts', 'bundle.mjs'), next]);
  run("bundling the tests' simulator (esbuild)", [path.join(root, 'scripts', 'bundle-simulator.mjs'), next]);
  // Stamped with the time the build started: a source saved while it ran is newer than the
  // stamp, so the next --if-stale build (npm test, prepare) does not take this build for it.
  writeFileSync(path.join(next, '.built'), `${startedAt.toISOString()}\n`);
  utimesSync(path.join(next, '.built'), startedAt, startedAt);
  // Two renames: dist/ is missing only between them, for microseconds.
  if (existsSync(dist)) renameSync(dist, previous);
  renameSync(next, dist);
  rmSync(previous, { recursive: true, force: true });
  say('dist/ is ready');
} catch (error) {
  if (!(error instanceof BuildFailed)) throw error;
  say(error.message);
  process.exitCode = 1;
} finally {
  rmSync(next, { recursive: true, force: true });
}
