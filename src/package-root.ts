import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'ctl';
let cached: string | undefined;

/**
 * The folder of ctl's package.json, found by walking up from this module: the same answer from
 * dist/src/ (tsc), dist/bundle/ and its chunks (the bundled build), and src/ (a TypeScript
 * loader), whatever the file's depth.
 */
export function packageRoot(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === PACKAGE_NAME
    ) {
      cached = dir;
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new Error(`ctl's package.json was not found above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/** ctl's version from its package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string })
    .version;
}
