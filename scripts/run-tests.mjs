#!/usr/bin/env node
// Runs the compiled tests with node's test runner (the files are collected here).
//
//   node scripts/run-tests.mjs              every folder of dist/test except upstream/, the unit
//                                           files in the few processes of unit-groups/, the other
//                                           short files in those of short-files/
//   node scripts/run-tests.mjs unit e2e     only these folders (a process for each file)
//   node scripts/run-tests.mjs e2e/demo.test.js   only these files (relative to dist/test)
//   node scripts/run-tests.mjs upstream     the fidelity tests against the upstream manifests, read
//                                           from CTL_UPSTREAM_DIR (default
//                                           ../shared/reference/redis-enterprise-k8s); fails when
//                                           that folder is missing
//
// Every run gets its own temporary folder: TMPDIR points at a fresh folder under the system's
// (under /dev/shm, in memory, when TMPDIR is not set and a tmpfs there has room: runBase below),
// removed when the run ends, pass, fail or interrupt. Whatever a test leaves in it is listed and
// fails the run. The run leaves nothing in the system's temporary folder: when its test runner
// child (scripts/run-test-files.mjs) has ended (done, or interrupted: SIGINT, SIGTERM, SIGHUP, the
// signal also passed on to it), the run's processes still running (a killed test file's ctl
// children, found by the run's TMPDIR or compile cache in their environment:
// scripts/run-processes.mjs) get the same signal, SIGKILL after CTL_TEST_STOP_GRACE_MS (default
// 10000; a second Ctrl-C ends the wait), and only then are the run's files removed, since node
// writes the compile cache when such a process exits. A runner killed outright (SIGKILL) cannot do
// that itself: its guard, a small process it starts first with an IPC channel
// (scripts/test-run-guard.mjs), sees the channel close and does the same (ends the run's processes,
// then removes its files). When the guard is killed too (SIGKILL to the whole process group), the
// next run's start removes what runs whose runner is gone left there (scripts/stale-test-runs.mjs).
//
// No test can hang the run: each test, and each test file as a whole, fails after
// CTL_TEST_TIMEOUT_MS (default 300000), and a file whose tests are done but whose process stays
// alive is failed by scripts/test-watchdog.mjs with the handles that keep it open. Each test file
// also loads client-node as ctl's bundle does (scripts/test-module-hooks.mjs): without its
// generated index, which cost a file that reached KubeConfig about 0.9 s of CPU. node:test's own
// async hook runs without its destroy callback there (scripts/test-harness-hook.mjs): that
// callback made Node track every promise for its collection.
//
// ctl runs on Node.js 22 and 24 only. Started by an older node (this development machine's is
// 20), the script runs the tests on Node 22 from the npm registry instead (scripts/node-runtime.mjs),
// first on the PATH so that ctl, npm and the tools started by name use it too.
//
// The last lines of a run name the slowest files, each failed test with its file, its error and
// its file's output (scripts/failures-reporter.mjs), then "N passed, M failed".
//
// Files start slowest first, by the times of the last run on this checkout (kept in
// node_modules/.cache/ctl-test-times.json): a long file started last would leave one core idle
// while it finishes alone. scripts/run-test-files.mjs starts them in that order (`node --test`
// sorts its files by name: until 2026-12-03 the unit groups and the worlds started last). A fresh
// clone (CI) has no such times: there the files listed in scripts/slow-test-files.json (the suite's
// slow files and their seconds, from a whole run) start first, slowest first, then the others in
// the order of their names. A file that neither knows starts first when the checkout has times (a
// new file may be slow), after the listed ones when it has none. Refresh the list from a whole
// run's times: `node scripts/run-tests.mjs --slow-list`.
import { spawn } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { envWithNode, nodeBinary } from './node-runtime.mjs';
import { endProcessesWith } from './run-processes.mjs';
import { RUN_PREFIX, removeStaleRuns } from './stale-test-runs.mjs';

if (Number(process.versions.node.split('.')[0]) < 22) {
  const node = nodeBinary('22');
  console.error(
    `run-tests: ctl needs Node.js 22 or newer, this is ${process.version}: running the tests with ${node}`,
  );
  // Waits for it, signals passed on: a Ctrl-C or `timeout` must not return before that run has
  // ended its processes and removed its files. The IPC channel tells it when this process is
  // killed outright: it then ends its run as if interrupted (below).
  const rerun = spawn(node, process.argv.slice(1), {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: envWithNode(node),
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => rerun.kill(signal));
  process.exit(
    await new Promise((resolve) => rerun.on('close', (code, signal) => resolve(code ?? (signal ? 130 : 1)))),
  );
}

const repo = join(import.meta.dirname, '..');
const root = join(repo, 'dist', 'test');
const only = process.argv.slice(2);
const UPSTREAM = 'upstream';
const folders = only.length > 0 ? only.map((name) => (isAbsolute(name) ? name : join(root, name))) : [root];
// The default run leaves the upstream fidelity tests out: they need files this repository does not
// hold. It runs the unit files through the files of unit-groups/, a few processes for all of them
// (test/unit-groups/groups.ts), and the other folders' short files through those of short-files/
// (test/short-files/groups.ts, which says which files those are), instead of one process each;
// naming a folder runs its files one by one.
const unitGroups = join(root, 'unit-groups');
const shortGroups = join(root, 'short-files', 'groups.js');
const excluded = new Set(
  only.length > 0
    ? []
    : [
        join(root, UPSTREAM),
        ...(existsSync(unitGroups) ? [join(root, 'unit')] : []),
        ...(existsSync(shortGroups)
          ? (await import(pathToFileURL(shortGroups).href)).shortFiles().map((file) => join(root, file))
          : []),
      ],
);

function collect(dir) {
  if (!existsSync(dir) || excluded.has(dir)) return [];
  if (!statSync(dir).isDirectory()) return dir.endsWith('.test.js') ? [dir] : [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return collect(path);
    return name.endsWith('.test.js') && !excluded.has(path) ? [path] : [];
  });
}

// CTL_TEST_TIMES_FILE: another file of times (test/unit/scripts/run-tests-cleanup.test.ts runs
// this runner on test files of its own, whose times are no concern of the checkout's).
const timesFile =
  process.env.CTL_TEST_TIMES_FILE ?? join(repo, 'node_modules', '.cache', 'ctl-test-times.json');
const slowListFile = join(repo, 'scripts', 'slow-test-files.json');
const SLOW_LIST_FROM_MS = 7_000;
// statfs(2)'s f_type of a tmpfs (linux/magic.h).
const TMPFS_MAGIC = 0x01021994;

// `--slow-list`: writes the committed list from this checkout's times (the files of 7 s or more).
// Only files whose test source is in this checkout: the times file is shared by every worktree
// that links this node_modules, and may name a test since removed or another worktree's copy.
if (process.argv[2] === '--slow-list') {
  const times = readTimes(timesFile);
  const sourceOf = (name) => join(repo, name.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
  const slow = Object.entries(times)
    .filter(([name, ms]) => typeof ms === 'number' && ms >= SLOW_LIST_FROM_MS && existsSync(sourceOf(name)))
    .sort((a, b) => b[1] - a[1]);
  if (slow.length === 0) {
    console.error(`run-tests: no times in ${timesFile}: run the whole suite first`);
    process.exit(1);
  }
  const list = Object.fromEntries(slow.map(([name, ms]) => [name, Math.round(ms / 1000)]));
  writeFileSync(slowListFile, `${JSON.stringify(list, null, 2)}\n`);
  console.error(
    `run-tests: ${slow.length} files of ${SLOW_LIST_FROM_MS / 1000} s or more in ${relative(repo, slowListFile)}`,
  );
  process.exit(0);
}
const files = slowestFirst(folders.flatMap(collect).sort());

/**
 * Where the run's temporary folder goes: the system's (TMPDIR, else /tmp), or, when TMPDIR is not
 * set, /dev/shm where it is a writable tmpfs with at least 2 GiB free. A suite writes and removes
 * thousands of small files (each test's kubectl and helm homes, simulators' files, ctl's state,
 * fsynced), and on a disk that is system CPU: a disk mounted with online discard (this
 * development machine's) spent 4.2-6.8 s of system time on three e2e files where tmpfs spent
 * 2.8-3.0 s (CPU 0.87x, docs/reliability.md). A run's files are a few hundred MB at most.
 */
function runBase() {
  if (process.env.TMPDIR) return tmpdir();
  const shm = '/dev/shm';
  try {
    const fs = statfsSync(shm);
    if (fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= 2 * 1024 ** 3) {
      accessSync(shm, constants.W_OK);
      return shm;
    }
  } catch {
    // No /dev/shm, or not writable here: the system's temporary folder.
  }
  return tmpdir();
}

/**
 * Each leftover entry and, under it, the files it holds (at most 40 in all), each with its size
 * and how many seconds before now it was last written.
 */
function describeLeftovers(base, names) {
  const now = Date.now();
  const lines = [];
  const walk = (path, depth) => {
    if (lines.length >= 40) return;
    let stats;
    try {
      stats = statSync(path);
    } catch {
      return; // removed while it was read
    }
    const age = `${((now - stats.mtimeMs) / 1000).toFixed(1)} s ago`;
    const name = relative(base, path);
    if (!stats.isDirectory()) {
      lines.push(`${'  '.repeat(depth)}${name} (${stats.size} bytes, written ${age})`);
      return;
    }
    lines.push(`${'  '.repeat(depth)}${name}/ (changed ${age})`);
    let entries = [];
    try {
      entries = readdirSync(path).sort();
    } catch {
      return;
    }
    for (const entry of entries) walk(join(path, entry), depth + 1);
  };
  for (const name of [...names].sort()) walk(join(base, name), 0);
  return lines;
}

/** A JSON object of numbers, or an empty one when the file is missing or not that. */
function readTimes(file) {
  try {
    const times = JSON.parse(readFileSync(file, 'utf8'));
    return times && typeof times === 'object' && !Array.isArray(times) ? times : {};
  } catch {
    return {};
  }
}

/**
 * The files slowest first: by the last run's time (ms) where this checkout has one, else by the
 * committed list's (s); a file in neither starts first beside earlier times, last without them.
 */
function slowestFirst(paths) {
  const times = readTimes(timesFile);
  const known = readTimes(slowListFile);
  const unknown = Object.keys(times).length > 0 ? Number.POSITIVE_INFINITY : 0;
  const timeOf = (file) => {
    const name = relative(repo, file);
    if (typeof times[name] === 'number') return times[name];
    if (typeof known[name] === 'number') return known[name] * 1000;
    return unknown;
  };
  return paths
    .map((file) => [file, timeOf(file)])
    .sort((a, b) => b[1] - a[1])
    .map(([file]) => file);
}
if (files.length === 0) {
  console.error(`no test files under ${folders.join(', ')}: run "npm run build" first`);
  process.exit(1);
}

const env = { ...process.env };
if (only.includes(UPSTREAM)) {
  const upstream = resolve(repo, process.env.CTL_UPSTREAM_DIR ?? '../shared/reference/redis-enterprise-k8s');
  if (!existsSync(join(upstream, 'bundle.yaml'))) {
    console.error(
      `run-tests: the upstream manifests are not at ${upstream} (no bundle.yaml there).\n` +
        "Set CTL_UPSTREAM_DIR to a checkout of the operator's deploy folder " +
        '(github.com/RedisLabs/redis-enterprise-k8s-docs); the upstream suite is never skipped.',
    );
    process.exit(1);
  }
  env.CTL_UPSTREAM_DIR = upstream;
}

// Files at a time: three per core, at most 8 (CTL_TEST_CONCURRENCY sets it). A file spends most of
// its time waiting (a simulated roll, a lease, a plugin's 60 s limit): in run 76 of
// docs/reliability.md its files used 725 s of CPU in 1,795 s of file time, and 4 at a time on 2
// cores kept them 80% busy (451 s); 6 at a time took 407 s with 3% more CPU (run 77), and 470
// against 474 s on a busier hour (runs 85 and 86): never slower.
const concurrency = process.env.CTL_TEST_CONCURRENCY ?? String(Math.min(3 * availableParallelism(), 8));
const timeoutMs = process.env.CTL_TEST_TIMEOUT_MS ?? '300000';
const base = runBase();
for (const dir of new Set([base, tmpdir()])) {
  const stale = removeStaleRuns(dir);
  if (stale.length > 0) {
    console.error(
      `run-tests: removed from ${dir} what runs killed outright left (their runner gone): ${stale.join(', ')}`,
    );
  }
}
// Named after this process, so that a later run can tell whether the run that made it is gone.
const runTmp = mkdtempSync(join(base, `${RUN_PREFIX}${process.pid}-`));
env.TMPDIR = runTmp;
// One module compile cache for the whole run, beside its temporary folder (a cache is no test's
// output, so it is not written inside): the test files and every ctl they start
// (test/helpers/run-ctl.ts) read the code compiled once instead of compiling it in each fresh
// sandbox. npm 11 on Node 22 would otherwise keep one in <TMPDIR>/node-compile-cache.
const compileCache = `${runTmp}.compile-cache`;
env.NODE_COMPILE_CACHE = compileCache;
delete env.NODE_DISABLE_COMPILE_CACHE;
env.TMP = runTmp;
// Where failures-reporter.mjs keeps each file's time for the next run's order.
env.CTL_TEST_TIMES_FILE = timesFile;
env.CTL_TEST_REPO = repo;
env.TEMP = runTmp;

// Beside the runner's own, so the last lines of the run name each failure. Its file is written
// next to the run's temporary folder (not inside, where it would count as a leftover).
const failuresFile = `${runTmp}.failures`;
const reporters = [
  `--reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
  `--failures-reporter=${join(repo, 'scripts', 'failures-reporter.mjs')}`,
  `--failures-file=${failuresFile}`,
];

// Before any process of the run exists: the guard ends them should this runner be killed outright.
// It gets this process's environment, not the run's (it is none of the run's processes).
const guard = spawn(
  process.execPath,
  [join(repo, 'scripts', 'test-run-guard.mjs'), runTmp, compileCache, failuresFile],
  {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: process.env,
  },
);
// The channel must not keep this runner alive, nor its end look like a failure of the run.
guard.channel?.unref();
guard.on('error', (error) => console.error(`run-tests: the run's guard did not start: ${error.message}`));

const child = spawn(
  process.execPath,
  [
    // Each file's process gets these flags (run-test-files.mjs runs them as `node --test` would).
    // Young generations of at most 16 MB semi-spaces, Node 22's own: Node 24 lets one grow to 64
    // MB, and six files' processes at a time with such heaps made every process of the run slower,
    // kubectl's and ctl's too (Node 24, 6 at a time: 924 s of CPU, 825 and 858 s with the bound;
    // runs 80-82 of docs/reliability.md). ctl's own processes keep Node's default.
    '--max-semi-space-size=16',
    // First, before anything loads node:test: its async hook without the destroy callback.
    '--import',
    join(repo, 'scripts', 'test-harness-hook.mjs'),
    '--import',
    join(repo, 'scripts', 'test-watchdog.mjs'),
    '--import',
    join(repo, 'scripts', 'test-module-hooks.mjs'),
    join(repo, 'scripts', 'run-test-files.mjs'),
    ...reporters,
    `--concurrency=${concurrency}`,
    `--timeout=${timeoutMs}`,
    '--',
    ...files,
  ],
  { stdio: 'inherit', env },
);

// The whole run has a deadline too (CTL_TEST_RUN_TIMEOUT_MS, default 40 minutes): should a file
// hang past every timeout above, the run still ends, failed, saying so.
const runTimeoutMs = Number(process.env.CTL_TEST_RUN_TIMEOUT_MS ?? 40 * 60_000);
const deadline = setTimeout(() => {
  console.error(`run-tests: the run did not end within ${runTimeoutMs} ms: stopping it`);
  signalled = 'timeout';
  child.kill('SIGTERM');
  setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
}, runTimeoutMs);

let signalled;
let interrupts = 0;
let ending;
function interrupt(signal) {
  signalled = signal;
  interrupts += 1;
  child.kill(signal);
  if (interrupts > 1) ending?.stop();
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => interrupt(signal));
// Started by the re-run above (node older than 22) with an IPC channel: when that runner is
// killed outright, the channel closes and this run ends as if interrupted.
if (process.channel) {
  process.channel.unref();
  process.on('disconnect', () => interrupt('SIGTERM'));
}
// The terminal may be gone (SIGHUP): a failed write must not end the runner before its cleanup.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

child.on('close', async (code, signal) => {
  clearTimeout(deadline);
  ending = endProcessesWith([`TMPDIR=${runTmp}`, `NODE_COMPILE_CACHE=${compileCache}`], {
    signal: signalled && signalled !== 'timeout' ? signalled : 'SIGTERM',
    graceMs: Number(process.env.CTL_TEST_STOP_GRACE_MS ?? 10_000),
  });
  if (interrupts > 1) ending.stop();
  const strays = await ending.done;
  const leftovers = existsSync(runTmp) ? readdirSync(runTmp) : [];
  // What each leftover holds, read before it is removed: the files name the writer (a state
  // file, a helm cache, a simulator's capture) and their times say how late it wrote.
  const leftoverFiles = leftovers.length > 0 ? describeLeftovers(runTmp, leftovers) : [];
  rmSync(runTmp, { recursive: true, force: true });
  rmSync(compileCache, { recursive: true, force: true });
  const failures = existsSync(failuresFile) ? readFileSync(failuresFile, 'utf8') : '';
  rmSync(failuresFile, { force: true });
  let status = code ?? (signal || signalled ? 130 : 1);
  if (strays.length > 0 && !signalled) {
    console.error(
      `run-tests: ${strays.length} process${strays.length === 1 ? '' : 'es'} of the run still ran after the test files ended (pid ${strays.join(', ')}), now stopped; each test must end what it starts`,
    );
  }
  if (leftovers.length > 0) {
    console.error(
      `run-tests: the tests left ${leftovers.length} entr${leftovers.length === 1 ? 'y' : 'ies'} in ` +
        `${runTmp} (TMPDIR), now removed; each test must remove ` +
        `what it creates:\n  ${leftoverFiles.join('\n  ')}`,
    );
    if (status === 0) status = 1;
  }
  // Last: the failures, each with its file and output, then the counts.
  if (failures) process.stdout.write(failures);
  // Done what the guard is there for: it must not outlive this run (it ignores the signals).
  guard.kill('SIGKILL');
  process.exit(status);
});
