import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The npm package's name (issue 38: `ctl` alone is not a name the registry would give it).
const PACKAGE_NAME = 'redis-enterprise-upgrade';

interface Manifest {
  name?: string;
  version: string;
}

let found: { root: string; manifest: Manifest } | undefined;

/**
 * ctl's package.json and its folder, found by walking up from this module: the same answer
 * from dist/src/ (tsc), dist/bundle/ and its chunks (the bundled build), and src/ (a TypeScript
 * loader), whatever the file's depth. Read once: `ctl --version` is on this path.
 */
function findPackage(): { root: string; manifest: Manifest } {
  if (found) return found;
  const start = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = readManifest(path.join(dir, 'package.json'));
    if (manifest?.name === PACKAGE_NAME) {
      found = { root: dir, manifest };
      return found;
    }
    if (path.dirname(dir) === dir) throw new Error(`ctl's package.json was not found above ${start}`);
  }
}

function readManifest(file: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

/** The folder of ctl's package.json (where `scenarios/` is). */
export function packageRoot(): string {
  return findPackage().root;
}

/** The docs/ folder beside ctl's package.json, when it is there (not in the single executable). */
export function docsFolder(): string | undefined {
  const docs = path.join(packageRoot(), 'docs');
  return existsSync(path.join(docs, 'README.md')) ? docs : undefined;
}

/** ctl's version from its package.json. */
export function packageVersion(): string {
  return findPackage().manifest.version;
}
