// Runs the bundle's scripts (dist/bundle/main.js and its chunks: scripts/bundle-scripts.mjs says
// why they are scripts) with V8's code cache of whole runs. Node's compile cache keeps what V8
// compiled when it compiled a file, its top level; the functions a command calls (~650 in a
// plan) were compiled again on every run. Here each script's cache is made when the process
// exits (vm.Script#createCachedData), so it also holds every function the run compiled, and the
// next run of the same command reads them instead (docs/performance.md, "A code cache of whole
// runs"). A cache is kept per command (`upgrade-plan`, `sim-start`, ...), since each calls other
// functions of the same chunks, and per build and Node version, in the user's cache folder
// beside Node's compile cache. Nothing there is needed: a cache that is missing, damaged (its
// checksum), made by another V8 or with other flags (V8 says so) is not used, and the exit writes
// a new one. The cache holds compiled code of the bundle, never a value of the run (V8's own
// guarantee for code caches; test/e2e/code-cache.test.ts looks for the run's secrets in it).
import { createRequire, isBuiltin } from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { makeCacheFolder } from './cache-folder.js';

// node:fs by require: an ES import of it makes Node build its ES facade, which reads every export,
// and fs.ReadStream's getter loads fs's streams (cache-folder.js).
const {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} = createRequire(import.meta.url)('node:fs');

// The first line scripts/bundle-scripts.mjs writes into main.js, and the names it gives `import.meta`
// (the wrapper's last three parameters, below).
const BUILD_LINE = '// ctl-bundle ';
const MAGIC = 0x3163_7463; // "ctc1", the format of a cache file: magic, checksum, length, data
const HEADER_BYTES = 12;
// Far more than any script's cache (main's is a few MB): a larger file there is not one ctl wrote.
const MAX_CACHE_BYTES = 64 * 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;
// Beside each command's caches: what the run that wrote them reached (readWriter). No script of
// the bundle is named so (main.js and chunks/<name>-<hash>.js).
const WRITER_FILE = 'writer.cache';

/**
 * Loads `main` (an absolute path to dist/bundle/main.js) and returns its exports. `words` (the
 * command line) names the command whose cache is used; `env` locates the cache folder.
 *
 * `compiled`, given by a process that runs ctl more than once (the test suite's in-process ctl,
 * test/helpers/in-process-ctl.ts), keeps each script compiled by an earlier load, and no code
 * cache is read or written then: every load still runs the scripts anew, so each run's modules,
 * and whatever they hold, are its own, and only V8's compiled code is shared.
 */
export function loadBundle(main, words, env, compiled) {
  const source = readFileSync(main, 'utf8');
  const nodeRequire = createRequire(main);
  const cache = compiled ? undefined : codeCache(source, words, env, nodeRequire);
  const loaded = new Map();
  const load = (file, text) => {
    const known = loaded.get(file);
    if (known) return known.exports;
    const script = compiled?.get(file) ?? compile(file, text);
    compiled?.set(file, script);
    const module = { exports: {} };
    loaded.set(file, module);
    const dir = path.dirname(file);
    const require = (id) => {
      if (id.startsWith('./') || id.startsWith('../')) return load(path.join(dir, id));
      if (isBuiltin(id)) return nodeRequire(id);
      throw new Error(
        `internal: the bundle's ${path.basename(file)} requires ${id}, which is not in the bundle`,
      );
    };
    script.runInThisContext()(module.exports, require, module, pathToFileURL(file).href, file, dir);
    return module.exports;
  };
  const compile = (file, text) => {
    const code = text ?? readFileSync(file, 'utf8');
    const cachedData = cache?.read(file);
    // The same first line as Node's CommonJS wrapper: a stack trace's line numbers stay the file's.
    const script = new vm.Script(
      `(function (exports, require, module, __ctlScriptUrl, __ctlScriptFile, __ctlScriptDir) {"use strict";${code}\n})`,
      { filename: file, cachedData },
    );
    if (cache) {
      cache.used.push({ file, script });
      if (cachedData === undefined || script.cachedDataRejected) cache.toWrite.push({ file, script });
    }
    return script;
  };
  if (cache) process.on('exit', (code) => cache.write(code));
  return load(main, source);
}

/**
 * The code caches of this build, Node version and command, or undefined where there can be none:
 * NODE_DISABLE_COMPILE_CACHE=1 (as for Node's own cache), a main.js without its build line, a
 * Node without zlib.crc32 (22.2).
 */
function codeCache(source, words, env, nodeRequire) {
  if (env.NODE_DISABLE_COMPILE_CACHE === '1') return undefined;
  const build = source.startsWith(BUILD_LINE) ? source.slice(BUILD_LINE.length, source.indexOf('\n')) : '';
  if (!/^[0-9a-f]{16}$/.test(build)) return undefined;
  let crc32;
  try {
    crc32 = nodeRequire('node:zlib').crc32;
  } catch {
    return undefined;
  }
  if (typeof crc32 !== 'function') return undefined;
  // Node's compile cache folder when the environment names one (the test suite shares one), else
  // ctl's part of the user's cache (bin/ctl.js: keepCompiledCode).
  const base = env.NODE_COMPILE_CACHE
    ? path.resolve(env.NODE_COMPILE_CACHE)
    : path.join(env.XDG_CACHE_HOME || path.join(env.HOME || homedir(), '.cache'), 'ctl', 'compile-cache');
  const buildDir = `scripts-${build}-${process.version}-${process.arch}`;
  const dir = path.join(base, buildDir, commandKey(words));
  const fileOf = (script) => path.join(dir, `${path.basename(script, '.js')}.cache`);
  const readData = (file) => {
    let bytes;
    try {
      bytes = readCacheFile(file);
    } catch {
      return undefined;
    }
    if (bytes === undefined || bytes.length < HEADER_BYTES || bytes.readUInt32LE(0) !== MAGIC)
      return undefined;
    const data = bytes.subarray(HEADER_BYTES);
    if (bytes.readUInt32LE(8) !== data.length || bytes.readUInt32LE(4) !== crc32(data)) return undefined;
    return data;
  };
  // Whole or not at all: another ctl may read it at this moment.
  const writeData = (target, data) => {
    const header = Buffer.alloc(HEADER_BYTES);
    header.writeUInt32LE(MAGIC, 0);
    header.writeUInt32LE(crc32(data), 4);
    header.writeUInt32LE(data.length, 8);
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, Buffer.concat([header, data]), { mode: 0o600 });
    renameSync(temporary, target);
  };
  const writerFile = path.join(dir, WRITER_FILE);
  return {
    /** Every script this run compiled, and those of them that had no cache V8 took. */
    used: [],
    toWrite: [],
    read(script) {
      return readData(fileOf(script));
    },
    /** At the exit: the caches this run should write, and the writer record they make. */
    write(exitCode) {
      try {
        const writer = readWriter(readData(writerFile));
        // What this run compiled is in none of the kept caches when it reached further.
        const refresh = reachesFurther({ exit: exitCode, scripts: this.used.length }, writer);
        const scripts = refresh ? this.used : this.toWrite;
        if (scripts.length === 0) return;
        if (!makeCacheFolder(dir)) return;
        pruneOtherBuilds(base, build);
        for (const { file, script } of scripts) writeData(fileOf(file), script.createCachedData());
        if (refresh)
          writeData(writerFile, Buffer.from(JSON.stringify({ exit: exitCode, scripts: this.used.length })));
      } catch {
        // No cache: the next run compiles as this one did.
      }
    },
  };
}

/**
 * Whether a run that reached `run` (its exit code, the scripts it ran) should write every cache of
 * its command again, over those of the run that reached `writer` (docs/performance.md, "A code
 * cache of whole runs"): it ended with 0 where that one did not, or ended as well and ran more
 * scripts. A failed run never replaces the caches of one that ended with 0, and a run like the
 * writer writes nothing: the caches are written again a few times per command and build at most.
 */
export function reachesFurther(run, writer) {
  const ended = run.exit === 0;
  if (ended !== (writer.exit === 0)) return ended;
  return run.scripts > writer.scripts;
}

/**
 * What the run that wrote a command's caches reached: its exit code and how many of the bundle's
 * scripts it ran. None (a cache from before this record, or damaged): the next run writes its own.
 */
function readWriter(data) {
  const none = { exit: -1, scripts: 0 };
  if (data === undefined || data.length > 256) return none;
  try {
    const { exit, scripts } = JSON.parse(data.toString('utf8'));
    return Number.isInteger(exit) && Number.isInteger(scripts) ? { exit, scripts } : none;
  } catch {
    return none;
  }
}

/**
 * Removes other builds' caches unused for a day (a checkout rebuilds often; two may share a HOME).
 * Another ctl may be removing the same folder: whatever fails here is left for the next run.
 */
function pruneOtherBuilds(base, build) {
  for (const entry of readdirSync(base)) {
    if (!entry.startsWith('scripts-') || entry.startsWith(`scripts-${build}-`)) continue;
    const other = path.join(base, entry);
    try {
      if (Date.now() - statSync(other).mtimeMs > DAY_MS) rmSync(other, { recursive: true, force: true });
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}

/** The command's first words (`upgrade-plan`), the folder of its caches; `ctl` when none. */
function commandKey(words) {
  const key = [];
  for (const word of words) {
    if (key.length === 2 || !/^[a-z][a-z0-9-]{0,31}$/.test(word)) break;
    key.push(word);
  }
  return key.join('-') || 'ctl';
}

/**
 * A cache file, or undefined when it is not a regular file of at most MAX_CACHE_BYTES. Its
 * folder comes from the environment (XDG_CACHE_HOME, NODE_COMPILE_CACHE): a FIFO put there
 * would hold every start of ctl (O_NONBLOCK opens it without waiting, then it is refused), a
 * device or a huge file its memory. What stat said is all that is read, even if it grows.
 */
function readCacheFile(file) {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > MAX_CACHE_BYTES) return undefined;
    const bytes = Buffer.allocUnsafe(stats.size);
    let length = 0;
    while (length < bytes.length) {
      const read = readSync(fd, bytes, length, bytes.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return bytes.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}
