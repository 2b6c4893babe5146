/**
 * `mkdir -p`, bounded. Node's own `mkdir(path, { recursive: true })` never returns where the
 * kernel answers ENOENT for a directory whose parent exists: under procfs (`/proc/self/x`) it
 * makes the parent again, finds it there, and tries the child again, for ever, at full CPU (Node
 * 22 and 24). ctl makes the folders of paths it is given (`--report`, `--state`, `--out`), and
 * must end on any of them. Here each missing folder is made once, from the nearest one that
 * exists down: at most one `mkdir` per level of the path, and the kernel's error as it is.
 */

import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

export async function makeDirectories(path: string, mode?: number): Promise<void> {
  const missing: string[] = [];
  for (let current = resolve(path); ; current = dirname(current)) {
    const found = await stat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (found) {
      if (found.isDirectory()) break;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), {
        code: 'ENOTDIR',
        syscall: 'mkdir',
        path: current,
      });
    }
    missing.push(current);
    if (dirname(current) === current) break;
  }
  for (const folder of missing.reverse()) {
    await mkdir(folder, mode === undefined ? {} : { mode }).catch((error: NodeJS.ErrnoException) => {
      // Made meanwhile by another process: as good as made here.
      if (error.code !== 'EEXIST') throw error;
    });
  }
}
