import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { ExitCode, LockedError, OperationError } from '../../../src/errors.js';
import { acquireLock, forceUnlock, type LockOwner, readLock } from '../../../src/run/lock.js';
import { tempDir } from '../../helpers/temp.js';

async function tempLock(): Promise<string> {
  return join(tempDir('ctl-lock-'), 'rec.json.lock');
}

/** A pid that surely belongs to no live process: a child that has already exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('lock', () => {
  it('a FIFO or a folder at the lock path: refused at once, never read (a FIFO would hold the run)', async () => {
    for (const [kind, make] of [
      ['a FIFO (named pipe)', (path: string) => execFileSync('mkfifo', [path])],
      ['a directory', (path: string) => mkdirSync(path)],
    ] as const) {
      const path = await tempLock();
      make(path);
      assert.equal(await readLock(path), undefined);
      await assert.rejects(acquireLock(path, 'upgrade run'), (error: unknown) => {
        assert.ok(error instanceof OperationError, String(error));
        assert.equal(error.message, `the lock ${path} is ${kind}, not a regular file: ctl cannot take it`);
        assert.match(error.hint ?? '', /--state/);
        return true;
      });
    }
  });

  it('lets exactly one holder in and names it to the other', async () => {
    const path = await tempLock();
    const held = await acquireLock(path, 'upgrade run');
    await assert.rejects(acquireLock(path, 'upgrade run'), (error: unknown) => {
      assert.ok(error instanceof LockedError);
      assert.equal(error.exitCode, ExitCode.locked);
      assert.match(error.message, new RegExp(`pid ${process.pid} on ${hostname()}`));
      assert.match(error.hint ?? '', /ctl upgrade unlock --lock-id /);
      return true;
    });
    await held.release();
    const again = await acquireLock(path, 'upgrade run');
    await again.release();
    assert.equal(await readLock(path), undefined);
  });

  it('takes over a lock whose owner died (SIGKILL leaves one behind)', async () => {
    const path = await tempLock();
    const ghost: LockOwner = {
      id: 'ghost',
      pid: await deadPid(),
      host: hostname(),
      user: 'someone',
      operation: 'upgrade run',
      createdAt: new Date(0).toISOString(),
    };
    await writeFile(path, JSON.stringify(ghost));
    const held = await acquireLock(path, 'upgrade run');
    assert.notEqual(held.owner.id, 'ghost');
    assert.equal((await readLock(path))?.id, held.owner.id);
    await held.release();
  });

  it('a takeover folder left by a run killed mid-takeover goes once a run holds the lock', async () => {
    const path = await tempLock();
    await mkdir(`${path}.takeover`);
    const held = await acquireLock(path, 'upgrade run');
    await held.release();
    assert.deepEqual(await readdir(dirname(path)), []);
  });

  it('does not judge a lock from another host stale', async () => {
    const path = await tempLock();
    await writeFile(
      path,
      JSON.stringify({ id: 'far', pid: 1, host: 'another-host', user: 'x', operation: 'run', createdAt: '' }),
    );
    await assert.rejects(acquireLock(path, 'upgrade run'), LockedError);
  });

  it('unlock refuses a wrong id and a live owner, and removes a dead one', async () => {
    const path = await tempLock();
    const held = await acquireLock(path, 'upgrade run');
    await assert.rejects(forceUnlock(path, { id: 'wrong' }), /held by/);
    await assert.rejects(forceUnlock(path, { id: held.owner.id }), LockedError);
    const removed = await forceUnlock(path, { id: held.owner.id, force: true });
    assert.equal(removed?.id, held.owner.id);
    await assert.rejects(readFile(path));
  });

  it('processes racing for the lock: exactly one wins, every round', async () => {
    const lockModule = new URL('../../../src/run/lock.js', import.meta.url).href;
    for (let round = 0; round < 3; round += 1) {
      const path = await tempLock();
      // Each loser leaves a mark here; the winner holds the lock until all three have, so a
      // racer that starts late on a busy machine finds it held, never released (a 60 s guard).
      const losers = tempDir('ctl-lock-losers-');
      // A start barrier makes the racers really concurrent.
      const startAt = Date.now() + 1500;
      const script = `const { acquireLock } = await import(${JSON.stringify(lockModule)});
        const { readdirSync, writeFileSync } = await import('node:fs');
        const sleep = (ms) => new Promise(r => setTimeout(r, ms));
        while (Date.now() < ${startAt}) await sleep(1);
        try {
          await acquireLock(${JSON.stringify(path)}, 'race');
          console.log('won');
          const guard = Date.now() + 60000;
          while (readdirSync(${JSON.stringify(losers)}).length < 3 && Date.now() < guard) await sleep(10);
        } catch (e) {
          writeFileSync(${JSON.stringify(losers)} + '/' + process.pid, '');
          console.log('lost ' + e.exitCode);
        }`;
      const run = () =>
        new Promise<string>((resolve) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', script]);
          let out = '';
          child.stdout.on('data', (chunk) => {
            out += chunk;
          });
          child.on('exit', () => resolve(out.trim()));
        });
      const results = await Promise.all([run(), run(), run(), run()]);
      assert.equal(results.filter((r) => r === 'won').length, 1, results.join(', '));
      assert.equal(results.filter((r) => r === `lost ${ExitCode.locked}`).length, 3, results.join(', '));
    }
  });

  it('never takes over a lock file that is still being written, but does take an old unreadable one', async () => {
    const path = await tempLock();
    await writeFile(path, '');
    await assert.rejects(acquireLock(path, 'upgrade run'), (error: unknown) => {
      assert.ok(error instanceof LockedError);
      assert.match(error.message, /cannot be read/);
      return true;
    });
    const old = new Date(Date.now() - 60_000);
    await utimes(path, old, old);
    const held = await acquireLock(path, 'upgrade run');
    assert.equal((await readLock(path))?.id, held.owner.id);
    await held.release();
  });
});
