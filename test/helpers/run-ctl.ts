import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
}

/**
 * The environment a test gives ctl: PATH, HOME and NO_COLOR, then `overrides` (undefined removes
 * a variable). It starts almost empty so a developer's CTL_* variables cannot leak into tests.
 */
export function ctlEnv(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    NO_COLOR: '1',
  };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/**
 * Runs the BUILT ctl (`node bin/ctl.js ...`, which imports the bundle in dist/bundle/) as a user
 * would, in the environment of ctlEnv.
 */
export function runCtl(args: string[], options: RunCtlOptions = {}): Promise<CtlResult> {
  const env = ctlEnv(options.env);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [ctlBin, ...args], {
      cwd: options.cwd ?? repoRoot,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timeoutMs = options.timeoutMs ?? 60_000;
    let forced: NodeJS.Timeout | undefined;
    // Past its time ctl is killed, and the result says so. Should a process ctl started still hold
    // its stdout or stderr open, 'close' would never come: the streams are dropped 5 s later.
    const timer = setTimeout(() => {
      stderr += `\n[runCtl] ctl ${args.join(' ')} did not end within ${timeoutMs} ms: killed\n`;
      child.kill('SIGKILL');
      forced = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        resolvePromise({ code: child.exitCode, signal: child.signalCode ?? 'SIGKILL', stdout, stderr });
      }, 5_000);
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      clearTimeout(forced);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(forced);
      resolvePromise({ code, signal, stdout, stderr });
    });
    // A child that exits before reading stdin must not crash the test with EPIPE.
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');
  });
}
