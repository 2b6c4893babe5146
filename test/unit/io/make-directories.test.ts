import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { makeDirectories } from '../../../src/io/make-directories.js';

/** A hang guard: the promise, or a failure naming what it waited for after `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms from ${what}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe('makeDirectories: mkdir -p that always ends', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctl-make-directories-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('makes each missing folder, with the mode asked for, and is a no-op on one that exists', async () => {
    const deep = path.join(dir, 'a', 'b', 'c');
    await makeDirectories(deep, 0o700);
    for (const folder of [path.join(dir, 'a'), path.join(dir, 'a', 'b'), deep]) {
      assert.ok(statSync(folder).isDirectory(), folder);
      assert.equal(statSync(folder).mode & 0o777, 0o700, folder);
    }
    await makeDirectories(deep, 0o700);
    await makeDirectories(dir);
  });

  it('a file in the way: ENOTDIR, as mkdir -p says it', async () => {
    const file = path.join(dir, 'file');
    writeFileSync(file, '');
    await assert.rejects(makeDirectories(path.join(file, 'below')), { code: 'ENOTDIR' });
  });

  it("a folder under procfs (where Node's recursive mkdir never returns): the kernel's ENOENT", async () => {
    assert.ok(existsSync('/proc/self'), 'this test needs Linux procfs (/proc/self)');
    await assert.rejects(
      within(makeDirectories('/proc/self/ctl-test/report'), 10_000, 'makeDirectories under /proc/self'),
      { code: 'ENOENT' },
    );
  });
});
