import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/**
 * The folder of the package that ships the simulator (where `scenarios/` lives), found by
 * walking up from this module: the same answer from dist/src/, dist/bundle/ and src/. The
 * simulator's own copy, so it needs nothing from ctl's modules.
 */
export function simPackageRoot(): string {
  if (root) return root;
  const start = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (packageNameAt(dir) === 'redis-enterprise-upgrade') {
      root = dir;
      return dir;
    }
    if (path.dirname(dir) === dir) throw new Error(`the package.json of ctl was not found above ${start}`);
  }
}

function packageNameAt(dir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string }).name;
  } catch {
    return undefined;
  }
}
