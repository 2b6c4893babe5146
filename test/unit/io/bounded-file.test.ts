/**
 * src/io/bounded-file.ts: the one reader of files from outside ctl. A regular file within its
 * bound is read whole; a FIFO, a device or a directory is refused without waiting; a file past
 * the bound is refused by its size, and one whose stat says less than it holds (it grew, or a
 * procfs file whose size is 0) is read no further than one byte past the bound.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  FileTooLargeError,
  formatBytes,
  NotRegularFileError,
  readBoundedFile,
  readBoundedFileSync,
  readBoundedText,
} from '../../../src/io/bounded-file.js';
import { ExitCode, UsageError } from '../../../src/errors.js';
import { readInputBytes } from '../../../src/io/paths.js';

describe('bounded file reads', () => {
  let dir: string;
  let fifo: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ctl-bounded-file-'));
    fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const readers = {
    async: (path: string, max: number) => readBoundedFile(path, max),
    sync: async (path: string, max: number) => readBoundedFileSync(path, max),
  };

  for (const [name, read] of Object.entries(readers)) {
    it(`${name}: reads a regular file whole, up to exactly its bound`, async () => {
      const file = join(dir, `exact-${name}`);
      writeFileSync(file, 'x'.repeat(1000));
      assert.equal((await read(file, 1000)).toString(), 'x'.repeat(1000));
      const empty = join(dir, `empty-${name}`);
      writeFileSync(empty, '');
      assert.equal((await read(empty, 10)).length, 0);
    });

    it(`${name}: refuses a FIFO, a directory and a device by kind, without waiting`, async () => {
      for (const [path, kind] of [
        [fifo, 'a FIFO (named pipe)'],
        [dir, 'a directory'],
        ['/dev/zero', 'a character device'],
      ] as const) {
        await assert.rejects(read(path, 1024), (error: unknown) => {
          assert.ok(error instanceof NotRegularFileError, String(error));
          assert.equal(error.kind, kind);
          assert.equal(error.message, `${path} is ${kind}, not a regular file`);
          return true;
        });
      }
    });

    it(`${name}: refuses a file past the bound by its size, a sparse one too`, async () => {
      const file = join(dir, `sparse-${name}`);
      writeFileSync(file, '');
      truncateSync(file, 300 * 1024 * 1024);
      await assert.rejects(read(file, 256 * 1024 * 1024), (error: unknown) => {
        assert.ok(error instanceof FileTooLargeError);
        assert.equal(error.size, 300 * 1024 * 1024);
        assert.equal(error.message, `${file} is 300 MiB, more than 256 MiB`);
        return true;
      });
      const one = join(dir, `one-over-${name}`);
      writeFileSync(one, 'x'.repeat(1001));
      await assert.rejects(read(one, 1000), FileTooLargeError);
    });

    it(`${name}: a file that holds more than stat says is read no further than its bound`, async () => {
      // procfs says 0 bytes and holds more: as a file that grew after the stat.
      const proc = '/proc/self/maps';
      assert.ok(readFileSync(proc).length > 64, 'the test needs a procfs file of more than 64 bytes');
      await assert.rejects(read(proc, 64), (error: unknown) => {
        assert.ok(error instanceof FileTooLargeError);
        assert.equal(error.size, undefined, 'found by the read, not by stat');
        assert.equal(error.message, `${proc} is more than 64 bytes`);
        return true;
      });
      // Within a bound it does fit, it is read whole though stat said 0.
      assert.ok((await read('/proc/self/status', 1024 * 1024)).toString().includes('Name:'));
    });

    it(`${name}: a missing file is the file system's error, for the reader to word`, async () => {
      await assert.rejects(read(join(dir, 'absent'), 10), { code: 'ENOENT' });
    });
  }

  it('readBoundedText is the UTF-8 text', async () => {
    const file = join(dir, 'text');
    writeFileSync(file, 'é\n');
    assert.equal(await readBoundedText(file, 10), 'é\n');
  });

  it('readInputBytes: a refusal is exit 2 naming the flag, the path, what is wrong and what to do', async () => {
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    await assert.rejects(readInputBytes('--module-file', folder, 1024), (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.equal(error.exitCode, ExitCode.usage);
      assert.equal(error.message, `--module-file ${folder} is a directory, not a regular file`);
      assert.match(error.hint ?? '', /ctl reads --module-file as a regular file: give the path of a file/);
      return true;
    });
    await assert.rejects(readInputBytes('--module-file', '/proc/self/maps', 64), (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.equal(
        error.message,
        '--module-file /proc/self/maps holds more than the 64 bytes ctl reads of it; ctl read no further',
      );
      return true;
    });
  });

  it('formats sizes for messages', () => {
    assert.equal(formatBytes(12), '12 bytes');
    assert.equal(formatBytes(64 * 1024), '64 KiB');
    assert.equal(formatBytes(256 * 1024 * 1024), '256 MiB');
    assert.equal(formatBytes(1.25 * 1024 * 1024), '1.3 MiB');
  });
});
