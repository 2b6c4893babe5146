/**
 * ctl as one executable file (issue 38 item 9; scripts/sea.mjs, `npm run sea`), tested as built:
 * the script makes the executable from the tree's build (dist/src/) with the node that runs the
 * tests (22 or 24), into a folder of its own, and the executable runs from there, beside no
 * package: --version, --help, the built-in scenarios it carries, and the demo (a whole upgrade
 * of a simulated cluster). Everything is removed afterwards, the 100 MB binary with it.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeToolSandbox, repoRoot, runTool, type ToolSandbox } from '../helpers/tools.js';

describe('ctl as a single executable application (e2e)', () => {
  let sandbox: ToolSandbox;
  let exe: string;
  let env: NodeJS.ProcessEnv;
  const run = (args: string[], timeoutMs = 60_000) =>
    runTool(exe, args, { env, cwd: sandbox.dir, timeoutMs });

  before(async () => {
    sandbox = makeToolSandbox('ctl-sea-');
    const out = path.join(sandbox.dir, 'sea');
    const built = await runTool(process.execPath, [path.join(repoRoot, 'scripts', 'sea.mjs'), '--out', out], {
      cwd: repoRoot,
      timeoutMs: 240_000,
    });
    assert.equal(built.code, 0, `scripts/sea.mjs (building the executable):\n${built.stderr}`);
    exe = path.join(out, process.platform === 'win32' ? 'ctl.exe' : 'ctl');
    assert.ok(existsSync(exe), `the executable ${exe}`);
    // No node on the PATH that ctl could lean on; the cache (where it writes its scenarios) and
    // HOME in the sandbox.
    env = {
      ...sandbox.env,
      PATH: '/usr/bin:/bin',
      XDG_CACHE_HOME: path.join(sandbox.dir, 'cache'),
      XDG_STATE_HOME: path.join(sandbox.dir, 'state'),
      NO_COLOR: '1',
    };
  });
  after(() => sandbox?.cleanup());

  it('--version is the package version; --help the command tree', async () => {
    const version = await run(['--version']);
    assert.equal(version.code, 0, version.stderr);
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      version: string;
    };
    assert.equal(version.stdout.trim(), manifest.version);
    assert.equal(version.stderr, '', 'no warning (SEA experimental warning disabled)');
    const help = await run(['--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: ctl /m);
    assert.match(help.stdout, /upgrade/);
  });

  it('carries the built-in scenarios: ctl sim scenarios lists them, written once into the cache', async () => {
    const listed = await run(['sim', 'scenarios']);
    assert.equal(listed.code, 0, listed.stderr);
    const shipped = readdirSync(path.join(repoRoot, 'scenarios'))
      .filter((name) => name.endsWith('.yaml'))
      .map((name) => name.slice(0, -'.yaml'.length));
    for (const name of shipped) assert.match(listed.stdout, new RegExp(`^${name}\\b`, 'm'), name);
    const folders = readdirSync(path.join(sandbox.dir, 'cache', 'ctl', 'sea'));
    assert.equal(folders.length, 1, `one folder of ctl's files: ${folders.join(', ')}`);
    assert.ok(
      existsSync(path.join(sandbox.dir, 'cache', 'ctl', 'sea', folders[0]!, 'scenarios', 'happy-path.yaml')),
    );
  });

  it(
    'a cache folder under /proc: a clear error naming it, never a hang',
    { skip: process.platform !== 'linux' && 'procfs is Linux only' },
    async () => {
      // Node's recursive mkdir never returns under procfs (src/io/make-directories.ts): the
      // executable's first run, which writes its files into the cache, hung there at full CPU.
      const base = '/proc/self/ctl-cache';
      const result = await runTool(exe, ['--version'], {
        env: { ...env, XDG_CACHE_HOME: base },
        cwd: sandbox.dir,
        timeoutMs: 30_000,
      });
      assert.equal(result.code, 1, `ctl --version with XDG_CACHE_HOME=${base}:\n${result.stderr}`);
      assert.match(result.stderr, /^error: ctl cannot write its files under \/proc\/self\/ctl-cache: /m);
      assert.match(result.stderr, /^hint: set XDG_CACHE_HOME to a folder you can write/m);
      assert.equal(result.stdout, '');
    },
  );

  it('ctl demo upgrades a simulated cluster', async () => {
    const demo = await run(['demo'], 240_000);
    assert.equal(demo.code, 0, `ctl demo:\n${demo.stderr}\n${demo.stdout}`);
    assert.match(demo.stdout, /^result: succeeded$/m);
    // Where the cluster ended (on stderr, beside the progress): the operator at the demo's target.
    assert.match(`${demo.stdout}${demo.stderr}`, /operator +\d+\.\d+\.\d+-\d+ \(1\/1 ready\)/);
  });
});
