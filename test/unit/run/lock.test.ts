import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
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
function ghostOwner(): LockOwner {
  return {
    id: 'ghost',
    pid: 0,
    host: hostname(),
    user: 'someone',
    operation: 'upgrade run',
    createdAt: new Date(0).toISOString(),
  };
}

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
      // A process of this machine, alive: once it is gone, unlock needs no --force; the command
      // names the state file, so it unlocks this lock whatever --state or -n the run had.
      assert.equal(
        error.hint,
        `Wait for it to finish. If that process is gone for good, run: ctl upgrade unlock --lock-id ${held.owner.id} --state ${path.slice(0, -'.lock'.length)}`,
      );
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

  it('a run killed inside its takeover (its marker names a dead pid): the next run takes the stale lock at once', async () => {
    for (const content of ['identity', 'empty (killed between creating the marker and writing it)']) {
      const path = await tempLock();
      const dead = await deadPid();
      await writeFile(path, JSON.stringify({ ...ghostOwner(), pid: await deadPid() }));
      await mkdir(`${path}.takeover`);
      await writeFile(
        join(`${path}.takeover`, `${dead}@${hostname()}`),
        content === 'identity' ? JSON.stringify({ pid: dead, host: hostname(), user: 'someone' }) : '',
      );
      const started = Date.now();
      const held = await acquireLock(path, 'upgrade run');
      // Not a speed target: before the marker, this waited out the folder's 10 s grace (or gave up).
      assert.ok(Date.now() - started < 10_000, `${content}: took over without waiting for the folder to age`);
      assert.equal((await readLock(path))?.id, held.owner.id, content);
      await held.release();
      assert.deepEqual(await readdir(dirname(path)), [], `${content}: nothing left beside the lock`);
    }
  });

  it('a takeover folder without a marker (killed right after mkdir): waited for until 10 s old, then removed', async () => {
    const path = await tempLock();
    await writeFile(path, JSON.stringify({ ...ghostOwner(), pid: await deadPid() }));
    await mkdir(`${path}.takeover`);
    const almostOld = new Date(Date.now() - 9_000);
    await utimes(`${path}.takeover`, almostOld, almostOld);
    const held = await acquireLock(path, 'upgrade run');
    assert.equal((await readLock(path))?.id, held.owner.id);
    await held.release();
    assert.deepEqual(await readdir(dirname(path)), []);
  });

  it('a live run inside its takeover: the next run waits for it to leave instead of giving up', async () => {
    const path = await tempLock();
    await writeFile(path, JSON.stringify({ ...ghostOwner(), pid: await deadPid() }));
    await mkdir(`${path}.takeover`);
    // This process is the live taker; it leaves (removes its marker and the folder) after 300 ms.
    const marker = join(`${path}.takeover`, `${process.pid}@${hostname()}`);
    await writeFile(marker, JSON.stringify({ pid: process.pid, host: hostname(), user: 'me' }));
    let leftAt = 0;
    const leave = setTimeout(() => {
      leftAt = Date.now();
      rmSync(`${path}.takeover`, { recursive: true });
    }, 300);
    try {
      const held = await acquireLock(path, 'upgrade run');
      assert.ok(leftAt > 0, 'the lock was taken only after the live taker left');
      assert.equal((await readLock(path))?.id, held.owner.id);
      await held.release();
    } finally {
      clearTimeout(leave);
    }
  });

  it('does not judge a lock from another host stale, and says unlock needs --force for it', async () => {
    const path = await tempLock();
    const state = path.slice(0, -'.lock'.length);
    await writeFile(
      path,
      JSON.stringify({ id: 'far', pid: 1, host: 'another-host', user: 'x', operation: 'run', createdAt: '' }),
    );
    await assert.rejects(acquireLock(path, 'upgrade run'), (error: unknown) => {
      assert.ok(error instanceof LockedError);
      assert.match(error.message, /^another upgrade of this cluster is running: pid 1 on another-host /);
      // unlock without --force refuses an owner it cannot judge: the hint's command has it.
      assert.equal(
        error.hint,
        `Wait for it to finish. ctl cannot tell from here whether it still runs (it was started on host another-host); once you are sure it is not running there, run: ctl upgrade unlock --lock-id far --force --state ${state}`,
      );
      return true;
    });
    // What that hint warns of: without --force, unlock refuses, naming the host and --force.
    await assert.rejects(forceUnlock(path, { id: 'far' }), (error: unknown) => {
      assert.ok(error instanceof LockedError);
      assert.equal(error.exitCode, ExitCode.locked);
      assert.match(
        error.message,
        /^the lock is held by a process ctl cannot judge from here: pid 1 on another-host /,
      );
      assert.equal(
        error.hint,
        'It was started on host another-host. If it still runs, stop it there first (Ctrl-C saves its state); once you are sure it is not running there, pass --force with --lock-id far.',
      );
      return true;
    });
    assert.equal((await readLock(path))?.id, 'far', 'the refused unlock left the lock');
    assert.equal((await forceUnlock(path, { id: 'far', force: true }))?.id, 'far');
    assert.equal(await readLock(path), undefined);
  });

  it('a lock of this host in another PID namespace (a container): named so, and unlock needs --force', async () => {
    const path = await tempLock();
    const owner: LockOwner = {
      id: 'boxed',
      pid: process.pid,
      // Not this process's namespace: the same pid there is another process.
      pidNamespace: 'pid:[1]',
      host: hostname(),
      user: 'x',
      operation: 'upgrade run',
      createdAt: '',
    };
    await writeFile(path, JSON.stringify(owner));
    await assert.rejects(acquireLock(path, 'upgrade run'), (error: unknown) => {
      assert.ok(error instanceof LockedError);
      assert.match(
        error.hint ?? '',
        new RegExp(
          `^Wait for it to finish\\. ctl cannot tell from here whether it still runs \\(it was started in another container \\(PID namespace\\) on host ${hostname()}\\); once you are sure it is not running there, run: ctl upgrade unlock --lock-id boxed --force --state `,
        ),
      );
      return true;
    });
    await assert.rejects(forceUnlock(path, { id: 'boxed' }), /cannot judge from here/);
    assert.equal((await forceUnlock(path, { id: 'boxed', force: true }))?.id, 'boxed');
  });

  it('a live process of this host: unlock refuses it and says to stop it first', async () => {
    const path = await tempLock();
    const held = await acquireLock(path, 'upgrade run');
    await assert.rejects(forceUnlock(path, { id: held.owner.id }), (error: unknown) => {
      assert.ok(error instanceof LockedError);
      assert.match(error.message, /^the lock is held by a live process: /);
      assert.equal(
        error.hint,
        'Stop that run first (Ctrl-C saves its state), or pass --force if you are sure it is not running.',
      );
      return true;
    });
    await held.release();
  });

  it('the unlock of a hint is quoted for the shell: a lock id that is shell code stays one word', async () => {
    const path = await tempLock();
    const id = 'x; touch pwned';
    await writeFile(
      path,
      JSON.stringify({ id, pid: 1, host: 'another-host', user: 'x', operation: 'run', createdAt: '' }),
    );
    await assert.rejects(acquireLock(path, 'upgrade run'), (error: unknown) => {
      assert.ok((error as LockedError).hint?.includes(`--lock-id 'x; touch pwned' --force --state `));
      return true;
    });
    await assert.rejects(forceUnlock(path, { id }), (error: unknown) => {
      assert.ok((error as LockedError).hint?.endsWith(`pass --force with --lock-id 'x; touch pwned'.`));
      return true;
    });
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
