/**
 * The entry of ctl as one executable file (scripts/sea.mjs, `npm run sea`): Node's single
 * executable application runs this, bundled into one CommonJS file, in place of bin/ctl.js.
 *
 * ctl reads two things from its package folder: package.json (its version: src/package-root.ts)
 * and scenarios/ (the simulator's built-in worlds: src/sim/world/package-root.ts). The executable
 * carries them as SEA assets (listed in the asset `ctl-assets.json`). They are written once into
 * a folder of the user's cache named by their hash (a new build gets a new folder; a folder is
 * complete or absent: it is renamed into place whole), and the bundle's `import.meta.url`, which
 * only those two modules read, points into it. No other file is read from beside the binary.
 */
import { createHash } from 'node:crypto';
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { getAsset } from 'node:sea';
import { makeDirectories } from './io/make-directories.js';

declare global {
  // Set before ctl's modules load; scripts/sea.mjs defines `import.meta.url` as this name.
  var __ctlSeaModuleUrl: string | undefined;
}

const MANIFEST = 'ctl-assets.json';

async function packageFolder(): Promise<string> {
  const keys = JSON.parse(getAsset(MANIFEST, 'utf8')) as string[];
  const files = keys.map((key) => ({ key, data: new Uint8Array(getAsset(key)) }));
  const hash = createHash('sha256');
  for (const file of files) hash.update(file.key).update('\0').update(file.data).update('\0');
  const base = process.env.XDG_CACHE_HOME || path.join(process.env.HOME || homedir(), '.cache');
  const dir = path.join(base, 'ctl', 'sea', hash.digest('hex').slice(0, 16));
  if (existsSync(path.join(dir, 'package.json'))) return dir;
  const partial = `${dir}.partial-${process.pid}`;
  try {
    for (const file of files) {
      // The keys are ctl's own (package.json, scenarios/<name>.yaml), never a path from outside.
      const target = path.join(partial, file.key);
      // Bounded `mkdir -p`: Node's recursive mkdir never returns under /proc (XDG_CACHE_HOME=/proc/self/x).
      await makeDirectories(path.dirname(target));
      writeFileSync(target, file.data);
    }
    renameSync(partial, dir);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    // Another ctl renamed the same folder into place first: it holds the same files.
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      `error: ctl cannot write its files under ${base}: ${reason}\nhint: set XDG_CACHE_HOME to a folder you can write, and run ctl again.\n`,
    );
    process.exit(1);
  }
  return dir;
}

/**
 * node-fetch 2 (inside @kubernetes/client-node) calls `url.parse()`, deprecated at run time on
 * Node.js 24 (DEP0169): the same filter as bin/ctl.js, so the executable prints what ctl prints.
 */
function hideDependencyDeprecation(): void {
  const emitWarning = process.emitWarning.bind(process);
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const first = rest[0] as { code?: unknown } | string | undefined;
    const code = typeof first === 'object' && first !== null ? first.code : rest[1];
    if (code === 'DEP0169') return;
    (emitWarning as (...args: unknown[]) => void)(warning, ...rest);
  }) as typeof process.emitWarning;
}

async function start(): Promise<void> {
  globalThis.__ctlSeaModuleUrl = pathToFileURL(path.join(await packageFolder(), 'sea', 'ctl.cjs')).href;
  hideDependencyDeprecation();
  const { run } = await import('./main.js');
  await run();
}

// A CommonJS main has no top-level await; run() ends the process itself (src/cli/run-cli.ts).
start().catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
