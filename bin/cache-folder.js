// The folder of ctl's compile caches, made the bounded way. Node's own recursive mkdir (and
// module.enableCompileCache, which makes its folder so) never returns where the kernel answers
// ENOENT for a folder whose parent exists: with XDG_CACHE_HOME under procfs (`/proc/self/x`) it
// makes the parent again, finds it there and tries the child again, for ever, at full CPU (Node 22
// and 24; src/io/make-directories.ts says the same for the paths a command is given). Here each
// missing folder is made once, from the nearest one that exists down. Synchronous: the code cache
// of whole runs is written as the process exits (load-bundle.js).
import { createRequire } from 'node:module';
import path from 'node:path';

// node:fs by require: an ES import of it makes Node build its ES facade, which reads every export,
// and fs.ReadStream's getter loads fs's streams: about 6 ms of CPU at every start (issue 39).
const { mkdirSync, statSync } = createRequire(import.meta.url)('node:fs');

/** Makes `folder` and its missing parents; true when it is there afterwards, false otherwise. */
export function makeCacheFolder(folder) {
  const missing = [];
  for (let current = path.resolve(folder); ; current = path.dirname(current)) {
    let found;
    try {
      found = statSync(current, { throwIfNoEntry: false });
    } catch {
      return false;
    }
    if (found) {
      if (!found.isDirectory()) return false;
      break;
    }
    missing.push(current);
    if (path.dirname(current) === current) return false;
  }
  for (const current of missing.reverse()) {
    try {
      mkdirSync(current);
    } catch (error) {
      // Made meanwhile by another ctl: as good as made here.
      if (error?.code !== 'EEXIST') return false;
    }
  }
  return true;
}
