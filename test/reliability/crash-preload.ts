/**
 * Loaded into a ctl child with `node --import` by the crash trials: SIGKILLs the process in the
 * middle of its Nth state-file write, at the phase named by CTL_TEST_CRASH=<phase>:<n>:
 * - open:    the temp file was just created (empty);
 * - write:   half of the new state is in the temp file (a torn write);
 * - rename:  the temp file is complete and synced, the rename has not happened;
 * - renamed: the rename happened, the mode fix and the folder fsync have not.
 * Only temp files of JSON files under CTL_TEST_CRASH_DIR count (src/run/atomic-write.ts names them
 * `<file>.<uuid>.<pid>@<host>.tmp`). ctl's own code is untouched: this patches node:fs from outside.
 */

import fs from 'node:fs';

const [phase = '', nth = '0'] = (process.env.CTL_TEST_CRASH ?? '').split(':');
const dir = process.env.CTL_TEST_CRASH_DIR ?? '';
const target = Number(nth);
let writes = 0;
const tempFds = new Map<number, number>();

function isStateTemp(file: unknown): boolean {
  return (
    typeof file === 'string' &&
    dir !== '' &&
    file.startsWith(dir) &&
    /\.json\.[0-9a-f-]{36}\.\d+@[^/]+\.tmp$/.test(file)
  );
}

function die(): never {
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL is delivered at once; this only satisfies the type checker.
  throw new Error('unreachable');
}

type Callback = (error: NodeJS.ErrnoException | null, ...results: unknown[]) => void;

if (target > 0 && ['open', 'write', 'rename', 'renamed'].includes(phase)) {
  const open = fs.open;
  const write = fs.write;
  const rename = fs.rename;

  (fs as { open: unknown }).open = (file: fs.PathLike, ...rest: unknown[]): void => {
    const callback = rest.pop() as Callback;
    (open as (...args: unknown[]) => void)(
      file,
      ...rest,
      (error: NodeJS.ErrnoException | null, fd: number) => {
        if (!error && isStateTemp(file)) {
          writes += 1;
          tempFds.set(fd, writes);
          if (phase === 'open' && writes === target) die();
        }
        callback(error, fd);
      },
    );
  };

  (fs as { write: unknown }).write = (fd: number, data: unknown, ...rest: unknown[]): void => {
    if (phase === 'write' && tempFds.get(fd) === target && typeof data === 'string') {
      fs.writeSync(fd, data.slice(0, Math.floor(data.length / 2)));
      fs.fsyncSync(fd);
      die();
    }
    (write as (...args: unknown[]) => void)(fd, data, ...rest);
  };

  (fs as { rename: unknown }).rename = (from: fs.PathLike, to: fs.PathLike, callback: Callback): void => {
    const isTarget = isStateTemp(from) && writes === target;
    if (isTarget && phase === 'rename') die();
    rename(from, to, (error) => {
      if (isTarget && phase === 'renamed') die();
      callback(error);
    });
  };
}
