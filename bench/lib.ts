/**
 * What every benchmark shares: running a command and timing it, alternating two sides, medians,
 * and the result rows `npm run bench` prints. Timing uses only Node (no hyperfine), so the bench
 * runs wherever the tests run.
 */

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { lineSplitter } from '../test/helpers/lines.js';

/** dist/bench/lib.js -> the repository root. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ctlBin = path.join(repoRoot, 'bin', 'ctl.js');
export const runbookDir = path.join(repoRoot, 'bench', 'runbook');
/** Preloaded into ctl to report its peak RSS (`--import`), only in the runs that measure memory. */
export const rssProbe = path.join(repoRoot, 'bench', 'rss-probe.mjs');

export interface RunResult {
  ms: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Called with each complete stdout line and the time it arrived (performance.now()). */
  onLine?: (line: string, at: number) => void;
  timeoutMs?: number;
}

/** Runs a command to its end; wall time from spawn to exit, in milliseconds. */
export function run(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      cwd: options.cwd ?? tmpdir(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    // Each line is stamped with the time its chunk came.
    let at = 0;
    const onLine = options.onLine;
    const toLines = onLine ? lineSplitter((line) => onLine(line, at)) : undefined;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (!toLines) return;
      at = performance.now();
      toLines(chunk);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ ms: performance.now() - start, code, stdout, stderr });
    });
  });
}

/** Fails loudly when a measured command did not succeed: a fast failure is not a result. */
export function expectExit(result: RunResult, what: string, codes: number[] = [0]): RunResult {
  if (result.code === null || !codes.includes(result.code)) {
    throw new Error(
      `${what} exited ${result.code}\n--- stdout:\n${result.stdout.slice(-2000)}\n--- stderr:\n${result.stderr.slice(-2000)}`,
    );
  }
  return result;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Runs each side `runs` times, interleaved (A B C A B C ...) after one untimed warm-up of each,
 * so that a noisy neighbour slows every side alike. Returns the times of each side.
 */
export async function alternate(
  sides: Record<string, () => Promise<number>>,
  runs: number,
): Promise<Record<string, number[]>> {
  const names = Object.keys(sides);
  const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (const name of names) await (sides[name] as () => Promise<number>)();
  for (let i = 0; i < runs; i++) {
    for (const name of names) (times[name] as number[]).push(await (sides[name] as () => Promise<number>)());
  }
  return times;
}

/** One printed figure. `ratio` is ctl's median over the compared command's. */
export interface Figure {
  bench: string;
  figure: string;
  value: string;
  target: string;
  ok: boolean | undefined;
  compared?: string;
  ratio?: number | undefined;
  note?: string;
}

export function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 1 : 0)} ms`;
}

export function which(tool: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, tool);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** A temporary folder for one benchmark (HOME for kubectl's cache, XDG_STATE_HOME for ctl). */
export function scratch(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The peak RSS in MB written by rss-probe.mjs to the file named in CTL_BENCH_RSS_FILE. */
export function readRssMb(file: string): number {
  return Number(readFileSync(file, 'utf8').trim()) / 1024;
}
