import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { shellQuote } from '../../src/io/shell-words.js';
import { ctlBin, ctlEnv, type CtlResult } from './run-ctl.js';
import { testProcessEnv } from './test-env.js';

export interface PasteOptions {
  /** The shell's environment (ctlEnv's base under it); KUBECONFIG unset unless given. */
  env: Record<string, string | undefined>;
  /** The folder the person pastes in. */
  cwd: string;
  /** A hang guard: the shell is killed, and the paste fails naming the command, after this. */
  timeoutMs?: number;
}

/**
 * A printed command run by `sh -c` as a person pastes it into a fresh shell: `ctl` on the PATH
 * is the built ctl (a script in `sandboxDir`), so only the command's own words name the cluster,
 * the state and the files.
 */
export async function pasteInShell(
  sandboxDir: string,
  command: string,
  options: PasteOptions,
): Promise<CtlResult> {
  const bin = path.join(sandboxDir, 'paste-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    path.join(bin, 'ctl'),
    `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(ctlBin)} "$@"\n`,
    {
      mode: 0o755,
    },
  );
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? 120_000;
  const child = spawn('sh', ['-c', command], {
    cwd: options.cwd,
    env: ctlEnv({
      KUBECONFIG: undefined,
      ...options.env,
      PATH: `${bin}:${testProcessEnv.PATH ?? '/usr/bin:/bin'}`,
    }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let timedOut = false;
  const guard = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  try {
    const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
    if (timedOut)
      throw new Error(`the pasted command did not end within ${timeoutMs} ms: ${command}\n${stderr}`);
    return { code, signal, stdout, stderr, durationMs: Date.now() - started };
  } finally {
    clearTimeout(guard);
  }
}
