import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { lineSplitter } from './lines.js';
import { testProcessEnv } from './test-env.js';

/** The repository root (dist/test/helpers -> three levels up). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const ctlBin = resolve(repoRoot, 'bin', 'ctl.js');

export interface RunCtlOptions {
  /** Added to a minimal environment (PATH, HOME, NO_COLOR); undefined values remove a variable. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, then stdin is closed. Without it stdin is empty (closed at once). */
  stdin?: string;
  cwd?: string;
  /** Kill the process after this long (generous: the machine is noisy). */
  timeoutMs?: number;
}

export interface CtlResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/**
 * The environment a test gives ctl: PATH, HOME, TMPDIR and NO_COLOR, then `overrides` (undefined
 * removes a variable). It starts almost empty so a developer's CTL_* variables cannot leak into
 * tests. The defaults are the test process's own (./test-env.ts), never those of a ctl running in
 * the process at that moment.
 */
export function ctlEnv(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const own = testProcessEnv;
  const env: Record<string, string> = {
    PATH: own.PATH ?? '/usr/bin:/bin',
    HOME: own.HOME ?? '/tmp',
    NO_COLOR: '1',
    // The run's temporary folder (scripts/run-tests.mjs): what ctl leaves there (a `ctl sim`'s
    // files) is found and fails the run, where /tmp would keep it unseen.
    ...(own.TMPDIR ? { TMPDIR: own.TMPDIR } : {}),
    // The run's one compile cache (scripts/run-tests.mjs), so that each ctl of the suite reads
    // the bundle's compiled code instead of compiling it again in every fresh sandbox.
    ...(own.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: own.NODE_COMPILE_CACHE } : {}),
  };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export interface SpawnCtlOptions extends RunCtlOptions {
  /** A module loaded with `node --import` before ctl (test/reliability/crash-preload.ts). */
  preload?: string;
  /** The script node runs instead of bin/ctl.js (test/helpers/whole-tree-ctl.ts). */
  entry?: string;
}

/** A running ctl: its process, its output so far, its lines as they come, and how it ended. */
export interface CtlProcess {
  child: ChildProcessWithoutNullStreams;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Calls `listener` with every complete stdout line (NDJSON events with `-o json`). */
  onLine(listener: (line: string) => void): void;
  result: Promise<CtlResult>;
}

/**
 * Starts the BUILT ctl (`node bin/ctl.js ...`, which imports the bundle in dist/bundle/) as a
 * user would, in the environment of ctlEnv: the one way every test starts ctl. Past `timeoutMs`
 * it is killed and the result says so; should a process ctl started still hold its stdout or
 * stderr open, 'close' would never come, so the streams are dropped 5 s later.
 */
export function spawnCtl(args: string[], options: SpawnCtlOptions = {}): CtlProcess {
  const nodeArgs = options.preload ? ['--import', pathToFileURL(options.preload).href] : [];
  const started = Date.now();
  const child = spawn(process.execPath, [...nodeArgs, options.entry ?? ctlBin, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: ctlEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners: ((line: string) => void)[] = [];
  const toLines = lineSplitter((line) => {
    for (const listener of listeners) listener(line);
  });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    toLines(chunk);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const timeoutMs = options.timeoutMs ?? 60_000;
  const result = new Promise<CtlResult>((resolvePromise, reject) => {
    let forced: NodeJS.Timeout | undefined;
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      clearTimeout(timer);
      clearTimeout(forced);
      resolvePromise({ code, signal, stdout, stderr, durationMs: Date.now() - started });
    };
    const timer = setTimeout(() => {
      stderr += `\n[spawnCtl] ctl ${args.join(' ')} did not end within ${timeoutMs} ms: killed\n`;
      child.kill('SIGKILL');
      forced = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(child.exitCode, child.signalCode ?? 'SIGKILL');
      }, 5_000);
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      clearTimeout(forced);
      reject(error);
    });
    child.on('close', finish);
  });
  // A child that exits before reading stdin must not crash the test with EPIPE.
  child.stdin.on('error', () => {});
  child.stdin.end(options.stdin ?? '');
  return {
    child,
    pid: child.pid ?? -1,
    stdout: () => stdout,
    stderr: () => stderr,
    onLine: (listener) => listeners.push(listener),
    result,
  };
}

/** Runs the built ctl to its end (spawnCtl). */
export function runCtl(args: string[], options: SpawnCtlOptions = {}): Promise<CtlResult> {
  return spawnCtl(args, options).result;
}
