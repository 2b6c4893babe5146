/**
 * Issue 20: a path flag that names a FIFO, a device, a folder or a socket is refused at once with
 * exit 2 (opening a FIFO would block forever); a missing output is fine; the state file's symbolic
 * link is resolved so every link shares one lock.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ExitCode, UsageError } from '../../../src/errors.js';
import { checkFilePath, checkPathList, resolveStatePath } from '../../../src/io/paths.js';

function refused(run: () => unknown, kind: RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof UsageError);
    assert.equal(error.exitCode, ExitCode.usage);
    assert.match(error.message, kind);
    assert.match(error.hint ?? '', /regular file/);
    return true;
  });
}

describe('path flags', () => {
  let dir: string;
  let fifo: string;
  let file: string;
  const server = createServer();
  let socket: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ctl-paths-'));
    fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    file = join(dir, 'state.json');
    writeFileSync(file, '{}');
    socket = join(dir, 'sock');
    await new Promise<void>((resolve) => server.listen(socket, resolve));
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a FIFO, a folder, a socket and a device, inputs and outputs alike', () => {
    for (const role of ['input', 'output'] as const) {
      refused(() => checkFilePath('--state', fifo, role), /--state .*pipe is a FIFO \(named pipe\)/);
      refused(() => checkFilePath('--plan', dir, role), /is a directory/);
      refused(() => checkFilePath('--ca-file', socket, role), /is a socket/);
      refused(() => checkFilePath('--report', '/dev/null', role), /is a character device/);
    }
  });

  it('lets a regular file, a missing file and a link to a regular file pass', () => {
    checkFilePath('--state', file, 'output');
    checkFilePath('--report', join(dir, 'missing.json'), 'output');
    checkFilePath('--password-file', join(dir, 'missing'), 'input');
    const link = join(dir, 'link.json');
    symlinkSync(file, link);
    checkFilePath('--kubeconfig', link, 'input');
    checkFilePath('--kubeconfig', undefined, 'input');
  });

  it('refuses a link to a FIFO', () => {
    const link = join(dir, 'to-pipe');
    symlinkSync(fifo, link);
    refused(() => checkFilePath('--module-file', link, 'input'), /FIFO/);
  });

  it('checks every file of KUBECONFIG, skipping the missing ones', () => {
    checkPathList('KUBECONFIG', `${join(dir, 'nope')}:${file}`, ':');
    refused(() => checkPathList('KUBECONFIG', `${file}:${fifo}`, ':'), /KUBECONFIG .*FIFO/);
  });

  it('resolves a state file link to its real path, also before the file exists', () => {
    const nested = join(dir, 'links');
    mkdirSync(nested);
    const link = join(nested, 'state-link.json');
    symlinkSync(file, link);
    assert.equal(resolveStatePath('--state', link), realpathSync(file));
    assert.equal(resolveStatePath('--state', file), file);
    assert.equal(resolveStatePath('--state', join(dir, 'first-run.json')), join(dir, 'first-run.json'));
    const dangling = join(nested, 'dangling.json');
    symlinkSync(join(dir, 'gone.json'), dangling);
    assert.equal(resolveStatePath('--state', dangling), join(dir, 'gone.json'));
    refused(() => resolveStatePath('--state', fifo), /FIFO/);
    symlinkSync(join(nested, 'loop-b'), join(nested, 'loop-a'));
    symlinkSync(join(nested, 'loop-a'), join(nested, 'loop-b'));
    assert.throws(() => resolveStatePath('--state', join(nested, 'loop-a')), /a loop of symbolic links/);
  });
});
