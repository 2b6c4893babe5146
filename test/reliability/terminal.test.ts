/**
 * Issue 28, item 4 (docs/reliability.md guarantee 11): any terminal. A pty that reports 0
 * columns and 0 rows (what `script`, some CI wrappers and `docker run -t` give) gets plain
 * progress lines: the run ends, writes a bounded number of bytes, and stops on time. Before,
 * the spinner library cleared infinitely many lines per redraw and the run never ended.
 */

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, test } from 'node:test';
import { ctlBin, ctlEnv } from '../helpers/run-ctl.js';
import { figure, startBed, UPGRADE } from './support.js';

const SCRIPT = '/usr/bin/script';
/** A whole upgrade in plain lines is a few KiB; the runaway spinner wrote megabytes a second. */
const MAX_BYTES = 256 * 1024;
const MAX_MS = 90_000;

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Runs `args` of the built ctl on a fresh pty (util-linux `script`), forcing 0 columns and rows. */
function onZeroSizePty(
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number | null; bytes: number; ms: number; tail: string; killed: boolean }> {
  const command = `stty cols 0 rows 0 && exec ${[process.execPath, ctlBin, ...args].map(quote).join(' ')}`;
  const started = Date.now();
  // Its own process group, so a runaway ctl under the pty is killed with `script` itself.
  const child = spawn(SCRIPT, ['-qec', command, '/dev/null'], {
    cwd,
    env: ctlEnv({ ...env, NO_COLOR: undefined, CI: undefined, GITHUB_ACTIONS: undefined }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let bytes = 0;
  let tail = '';
  const take = (chunk: Buffer): void => {
    bytes += chunk.length;
    tail = (tail + chunk.toString('utf8')).slice(-2000);
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  let killed = false;
  const kill = (): void => {
    killed = true;
    try {
      process.kill(-(child.pid ?? 0), 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(kill, MAX_MS);
  const watch = setInterval(() => {
    if (bytes > MAX_BYTES * 4) kill();
  }, 100);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      clearInterval(watch);
      resolve({ code, bytes, ms: Date.now() - started, tail, killed });
    });
  });
}

describe('any terminal', () => {
  test('a run on a pty with 0 columns and 0 rows ends, with bounded output', async () => {
    assert.ok(existsSync(SCRIPT), `${SCRIPT} (util-linux) is needed for a real pty`);
    const bed = await startBed('happy-path');
    try {
      const run = await onZeroSizePty(UPGRADE, bed.env, bed.dir);
      figure(
        `0-column pty: upgrade run exit ${run.code}, ${run.bytes} bytes in ${run.ms} ms (bounds ${MAX_BYTES} bytes, ${MAX_MS} ms)`,
      );
      assert.equal(run.killed, false, `killed after ${run.ms} ms and ${run.bytes} bytes:\n${run.tail}`);
      assert.equal(run.code, 0, run.tail);
      assert.ok(run.bytes < MAX_BYTES, `${run.bytes} bytes written`);
      assert.match(run.tail, /upgrade to 7\.8\.2-6 complete/);
    } finally {
      await bed.close();
    }
  });
});
