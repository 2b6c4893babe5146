/**
 * `ctl sim up` as a child process of the built CLI, for the tests that run it as users do
 * (sim-up.test.ts, sim-capture.test.ts).
 */

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { spawnCtl } from '../helpers/run-ctl.js';

export interface Ready {
  dir: string;
  kubeUrl: string;
  apiUrl: string;
  artifactsUrl: string;
}

export interface SimProcess {
  child: ChildProcessWithoutNullStreams;
  ready: Ready;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `ctl sim up ...` (spawnCtl) and resolves once it printed its ready line. */
export async function startSimUp(args: string[], cwd: string): Promise<SimProcess> {
  // It serves until it is stopped: the spawner's deadline only guards against a test that forgets it.
  const ctl = spawnCtl(['sim', 'up', ...args], { cwd, env: { HOME: cwd }, timeoutMs: 15 * 60_000 });
  const exited = ctl.result.then(({ code, signal }) => ({ code, signal }));
  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ready line after 60 s; stderr:\n${ctl.stderr()}`)),
      60_000,
    );
    ctl.onLine((line) => {
      if (!line.startsWith('ready ')) return;
      clearTimeout(timer);
      resolve(JSON.parse(line.slice('ready '.length)) as Ready);
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`ctl sim up exited ${code} before it was ready; stderr:\n${ctl.stderr()}`));
    });
  });
  return { child: ctl.child, ready, stdout: ctl.stdout, stderr: ctl.stderr, exited };
}

/** `export KEY='value'` lines of the env file, as a shell would read them. */
export function readEnvFile(file: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^export ([A-Z_]+)='(.*)'$/.exec(line);
    if (match) env[match[1] ?? ''] = (match[2] ?? '').replaceAll(`'\\''`, "'");
  }
  return env;
}
