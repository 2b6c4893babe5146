import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { alive } from '../../helpers/processes.js';
import { repoRoot } from '../../helpers/tools.js';
import { tempDir } from '../../helpers/temp.js';
import { childRunnerEnv } from '../../helpers/test-env.js';
import { hangGuardMs } from '../../helpers/wait.js';

/**
 * scripts/run-tests.mjs leaves nothing in the system's temporary folder when it is interrupted
 * with its whole process group (Ctrl-C, `timeout`), even when a test file's child outlives the
 * test file and writes into the run's compile cache and TMPDIR after the signal (as ctl does:
 * node writes the compile cache when it exits); a runner killed outright (SIGKILL) alone has its
 * guard end what it started and remove its files, as does a runner whose own parent (the re-run
 * on an older node) is killed outright; and a run killed outright with its whole process group
 * has what it left removed by the next run's start. Each case starts the real runner on a test
 * file written here, with TMPDIR at a folder of this test's own, which stands for the system's
 * temporary folder; the runner gets a process group of its own, which the test signals.
 */

const RUN_TESTS = join(repoRoot, 'scripts', 'run-tests.mjs');
const STALE_RUNS = join(repoRoot, 'scripts', 'stale-test-runs.mjs');
const RUN_PROCESSES = join(repoRoot, 'scripts', 'run-processes.mjs');

interface StaleRuns {
  removeStaleRuns(
    dir: string,
    seams?: { running?: (pid: number) => boolean; carried?: (entries: string[]) => number[] },
  ): string[];
}
interface RunProcesses {
  processesWith(entries: string[]): number[];
}

/**
 * A test file whose test starts a child and waits for good. The child stands for a ctl: `late`,
 * on SIGINT, SIGTERM or SIGHUP it writes into the run's compile cache and TMPDIR a second later,
 * then exits; `stubborn`, it ignores them and writes there every 100 ms (only SIGKILL ends it).
 * The file says what it started in READY_FILE once the child has its handlers.
 */
const LINGERING_TEST = `
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
const child = \`
const fs = require('node:fs');
const write = () => {
  for (const dir of [process.env.NODE_COMPILE_CACHE, process.env.TMPDIR]) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(dir + '/written-after-the-signal', 'x');
  }
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (process.env.CHILD_MODE === 'late') setTimeout(() => { write(); process.exit(0); }, 1000);
  });
}
if (process.env.CHILD_MODE === 'stubborn') setInterval(write, 100);
else setInterval(() => {}, 1000);
process.stdout.write('ready\\\\n');
\`;
test('starts a child and waits', async () => {
  const c = spawn(process.execPath, ['-e', child], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => c.stdout.once('data', resolve));
  const { TMPDIR: tmpdir, NODE_COMPILE_CACHE: cache } = process.env;
  writeFileSync(process.env.READY_FILE, JSON.stringify({ pid: c.pid, tmpdir, cache }));
  await new Promise((resolve) => setTimeout(resolve, 120_000));
});
`;

const PASSING_TEST = `import { test } from 'node:test';\ntest('passes', () => {});\n`;

interface Runner {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | string | null>;
  hasExited(): boolean;
}

/**
 * Stands for the runner that re-runs itself on a supported node (scripts/run-tests.mjs, node older
 * than 22): starts the runner with an IPC channel, as that one does, and says its pid in
 * RUNNER_PID_FILE.
 */
const PARENT = `
const { spawn } = require('node:child_process');
const runner = spawn(process.execPath, process.argv.slice(1), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
require('node:fs').writeFileSync(process.env.RUNNER_PID_FILE, String(runner.pid));
runner.on('close', (code) => process.exit(code ?? 1));
`;

/**
 * The runner on `testFile`, in a process group of its own, with TMPDIR at `tmp`; `viaParent`:
 * started by PARENT, which is then the process the test holds.
 */
function startRunner(
  dir: string,
  tmp: string,
  testFile: string,
  env: Record<string, string> = {},
  viaParent = false,
): Runner {
  const runnerEnv = childRunnerEnv({
    TMPDIR: tmp,
    READY_FILE: join(dir, 'ready.json'),
    // Not the checkout's file of test times: these test files are this test's own.
    CTL_TEST_TIMES_FILE: join(dir, 'times.json'),
    ...env,
  });
  const args = viaParent ? ['-e', PARENT, RUN_TESTS, testFile] : [RUN_TESTS, testFile];
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: runnerEnv,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let done = false;
  const exited = new Promise<number | string | null>((resolve) =>
    child.on('close', (code, signal) => {
      done = true;
      resolve(code ?? signal);
    }),
  );
  return { child, output: () => output, exited, hasExited: () => done };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the test file started: its child, and the run's TMPDIR and compile cache it was given. */
interface Ready {
  pid: number;
  tmpdir: string;
  cache: string;
}

async function readyOf(dir: string, runner: Runner): Promise<Ready> {
  const file = join(dir, 'ready.json');
  const until = Date.now() + 120_000;
  while (!existsSync(file)) {
    assert.ok(Date.now() < until, `the test file never said it was ready:\n${runner.output()}`);
    await sleep(100);
  }
  await sleep(100); // written in one call; let it land whole
  return JSON.parse(readFileSync(file, 'utf8')) as Ready;
}

/**
 * The run's processes must be gone, whatever happens to the assertions: the group while the
 * runner runs (once it is gone, its pid may be another process's), and whatever still carries the
 * run's TMPDIR or compile cache.
 */
async function killAll(runner: Runner, ready: Ready | undefined): Promise<void> {
  if (!runner.hasExited()) {
    try {
      process.kill(-(runner.child.pid ?? 0), 'SIGKILL');
    } catch {
      // gone already
    }
  }
  for (const pid of ready ? await processesOf(ready) : []) process.kill(pid, 'SIGKILL');
}

function setUp(testSource: string): { dir: string; tmp: string; testFile: string } {
  const dir = tempDir('run-tests-cleanup-');
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  const testFile = join(dir, 'lingering.test.js');
  writeFileSync(testFile, testSource);
  return { dir, tmp, testFile };
}

/** A process's parent pid and command line, from /proc (Linux). */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}
function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim().slice(0, 160);
  } catch {
    return '(gone)';
  }
}

/** Waits until none of `pids` runs; fails after `ms` naming each one still running. */
async function allGone(pids: Map<number, string>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const running = [...pids].filter(([pid]) => alive(pid));
    if (running.length === 0) return;
    if (Date.now() >= until) {
      assert.fail(
        `after ${ms} ms, still running of what the killed runner had started:\n` +
          running.map(([pid, what]) => `  pid ${pid}: ${what}`).join('\n'),
      );
    }
    await sleep(100);
  }
}

async function processesOf(ready: Ready): Promise<number[]> {
  const { processesWith } = (await import(pathToFileURL(RUN_PROCESSES).href)) as RunProcesses;
  return processesWith([`TMPDIR=${ready.tmpdir}`, `NODE_COMPILE_CACHE=${ready.cache}`]);
}

describe('scripts/run-tests.mjs interrupted', () => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${signal} to its process group: waits for a test's child that writes after the signal, then leaves nothing`, async () => {
      const { dir, tmp, testFile } = setUp(LINGERING_TEST);
      const runner = startRunner(dir, tmp, testFile, { CHILD_MODE: 'late' });
      let ready: Ready | undefined;
      try {
        ready = await readyOf(dir, runner);
        assert.deepEqual(
          readdirSync(tmp).sort(),
          [
            ...[ready.tmpdir, ready.cache].map((path) => path.slice(tmp.length + 1)),
            `${ready.tmpdir.slice(tmp.length + 1)}.failures`,
          ].sort(),
        );
        process.kill(-(runner.child.pid ?? 0), signal);
        await runner.exited;
        assert.deepEqual(readdirSync(tmp), [], runner.output());
        await sleep(1500); // past the child's second, had it been left running
        assert.deepEqual(readdirSync(tmp), []);
        assert.deepEqual(await processesOf(ready), []);
      } finally {
        await killAll(runner, ready);
      }
    });
  }

  it('SIGKILLs a child that ignores the signal once the grace is over, then leaves nothing', async () => {
    const { dir, tmp, testFile } = setUp(LINGERING_TEST);
    const runner = startRunner(dir, tmp, testFile, { CHILD_MODE: 'stubborn', CTL_TEST_STOP_GRACE_MS: '500' });
    let ready: Ready | undefined;
    try {
      ready = await readyOf(dir, runner);
      process.kill(-(runner.child.pid ?? 0), 'SIGTERM');
      await runner.exited;
      assert.deepEqual(readdirSync(tmp), [], runner.output());
      await sleep(500); // five of the child's writes, had it been left running
      assert.deepEqual(readdirSync(tmp), []);
      assert.deepEqual(await processesOf(ready), []);
    } finally {
      await killAll(runner, ready);
    }
  });

  it("SIGKILL to the runner alone: its guard ends the test runner child and the test's child, then removes the run's files", async () => {
    const { dir, tmp, testFile } = setUp(LINGERING_TEST);
    const runner = startRunner(dir, tmp, testFile, { CHILD_MODE: 'late', CTL_TEST_STOP_GRACE_MS: '5000' });
    let ready: Ready | undefined;
    try {
      ready = await readyOf(dir, runner);
      const runnerPid = runner.child.pid ?? 0;
      // What the run consists of now: the test runner (run-test-files.mjs) and the guard (the runner's children), the test
      // file's process, and the child it started (which writes a second after a signal).
      const run = new Map<number, string>();
      for (const pid of await processesOf(ready)) {
        const role = parentOf(pid) === runnerPid ? 'the test runner child' : 'a process of the run';
        run.set(pid, `${pid === ready.pid ? "the test's child" : role}: ${commandOf(pid)}`);
      }
      assert.ok(
        [...run.values()].some((what) => what.startsWith('the test runner child')),
        [...run.values()].join('\n'),
      );
      assert.ok(run.has(ready.pid), [...run.values()].join('\n'));
      // The guard carries none of the run's entries (it is found as the runner's other child).
      for (const pid of readdirSync('/proc')
        .filter((name) => /^\d+$/.test(name))
        .map(Number)) {
        try {
          if (parentOf(pid) === runnerPid && commandOf(pid).includes('test-run-guard.mjs'))
            run.set(pid, `the run's guard: ${commandOf(pid)}`);
        } catch {
          // gone meanwhile
        }
      }
      assert.ok(
        [...run.values()].some((what) => what.startsWith("the run's guard")),
        [...run.values()].join('\n'),
      );

      process.kill(runnerPid, 'SIGKILL');
      await allGone(run, hangGuardMs(30_000));
      assert.equal(await runner.exited, 'SIGKILL');
      assert.deepEqual(readdirSync(tmp), [], runner.output());
      assert.match(runner.output(), /the runner was killed; its guard stopped the run's processes \(pid /);
      await sleep(1500); // past the child's second, had it been left running
      assert.deepEqual(readdirSync(tmp), []);
    } finally {
      await killAll(runner, ready);
    }
  });

  it('SIGKILL to the runner that re-ran it on a newer node: the run ends as if interrupted, leaving nothing', async () => {
    const { dir, tmp, testFile } = setUp(LINGERING_TEST);
    const pidFile = join(dir, 'runner.pid');
    const parent = startRunner(dir, tmp, testFile, { CHILD_MODE: 'late', RUNNER_PID_FILE: pidFile }, true);
    let ready: Ready | undefined;
    try {
      ready = await readyOf(dir, parent);
      const runnerPid = Number(readFileSync(pidFile, 'utf8'));
      const run = new Map<number, string>([[runnerPid, `the runner: ${commandOf(runnerPid)}`]]);
      for (const pid of await processesOf(ready)) run.set(pid, `a process of the run: ${commandOf(pid)}`);

      process.kill(parent.child.pid ?? 0, 'SIGKILL');
      await allGone(run, hangGuardMs(30_000));
      assert.equal(await parent.exited, 'SIGKILL');
      assert.deepEqual(readdirSync(tmp), [], parent.output());
    } finally {
      await killAll(parent, ready);
    }
  });

  it("SIGKILL to its process group: the next run's start removes what the killed run left", async () => {
    const { dir, tmp, testFile } = setUp(LINGERING_TEST);
    const killed = startRunner(dir, tmp, testFile, { CHILD_MODE: 'late' });
    let left: string[];
    let ready: Ready | undefined;
    try {
      ready = await readyOf(dir, killed);
      process.kill(-(killed.child.pid ?? 0), 'SIGKILL');
      assert.equal(await killed.exited, 'SIGKILL');
      const until = Date.now() + 10_000;
      while ((await processesOf(ready)).length > 0 && Date.now() < until) await sleep(100);
      left = readdirSync(tmp).sort();
      // The case the start must mend: the killed run's folder, compile cache and failures file.
      assert.equal(left.length, 3, left.join(', '));
      assert.ok(
        left.every((name) => name.startsWith(`ctl-test-run-${killed.child.pid}-`)),
        left.join(', '),
      );
    } finally {
      await killAll(killed, ready);
    }
    const passing = join(dir, 'passing.test.js');
    writeFileSync(passing, PASSING_TEST);
    const next = startRunner(dir, tmp, passing);
    try {
      assert.equal(await next.exited, 0, next.output());
      assert.deepEqual(readdirSync(tmp), []);
      assert.ok(
        next.output().includes(`what runs killed outright left (their runner gone): ${left.join(', ')}\n`),
        next.output(),
      );
    } finally {
      await killAll(next, undefined);
    }
  });
});

describe('scripts/stale-test-runs.mjs removeStaleRuns', () => {
  it("removes only a gone runner's entries, and none another process still carries", async () => {
    const { removeStaleRuns } = (await import(pathToFileURL(STALE_RUNS).href)) as StaleRuns;
    const dir = tempDir('stale-runs-');
    const make = (name: string, folder = true) =>
      folder ? mkdirSync(join(dir, name)) : writeFileSync(join(dir, name), 'x');
    // 101: gone; 102: running; 103: gone, but a process still carries its compile cache.
    for (const pid of [101, 102, 103]) {
      make(`ctl-test-run-${pid}-aB3dE6`);
      make(`ctl-test-run-${pid}-aB3dE6.compile-cache`);
      make(`ctl-test-run-${pid}-aB3dE6.failures`, false);
    }
    make('ctl-test-run-104-xY9zW1.failures', false); // a gone runner's lone file
    make('ctl-test-run-O54Iwc'); // the earlier naming, without the runner's pid: whose, unknown
    make('ctl-test-run-105-short'); // not a name the runner makes
    make('other-105-aB3dE6');
    const carriedAsked: string[][] = [];
    const removed = removeStaleRuns(dir, {
      running: (pid) => pid === 102,
      carried: (entries) => {
        carriedAsked.push(entries);
        return entries.some((entry) => entry.includes('ctl-test-run-103-')) ? [4242] : [];
      },
    });
    assert.deepEqual(removed, [
      'ctl-test-run-101-aB3dE6',
      'ctl-test-run-101-aB3dE6.compile-cache',
      'ctl-test-run-101-aB3dE6.failures',
      'ctl-test-run-104-xY9zW1.failures',
    ]);
    assert.deepEqual(readdirSync(dir).sort(), [
      'ctl-test-run-102-aB3dE6',
      'ctl-test-run-102-aB3dE6.compile-cache',
      'ctl-test-run-102-aB3dE6.failures',
      'ctl-test-run-103-aB3dE6',
      'ctl-test-run-103-aB3dE6.compile-cache',
      'ctl-test-run-103-aB3dE6.failures',
      'ctl-test-run-105-short',
      'ctl-test-run-O54Iwc',
      'other-105-aB3dE6',
    ]);
    assert.deepEqual(carriedAsked[0], [
      `TMPDIR=${join(dir, 'ctl-test-run-101-aB3dE6')}`,
      `NODE_COMPILE_CACHE=${join(dir, 'ctl-test-run-101-aB3dE6')}.compile-cache`,
    ]);
  });
});
