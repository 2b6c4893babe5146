import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import { runCtl, type CtlResult } from '../helpers/run-ctl.js';
import { assertExit, startUpgradeSim, TARGET, type UpgradeSim } from './upgrade-support.js';

const PLAN = ['upgrade', 'plan', '--to', TARGET, '-o', 'json'];
const MAGIC = 0x3163_7463;

/**
 * The code cache of whole runs (bin/load-bundle.js, docs/performance.md): the BUILT ctl against
 * the simulated cluster, each case with a cache folder of its own. What is checked: a cache per
 * command and build, used as it is by the next run (not written again), nothing of the run's
 * secrets in it, and a cache that is damaged, unusable or turned off never changes what ctl does.
 */
describe('the code cache of whole runs (e2e)', () => {
  let sim: UpgradeSim;
  let cases = 0;
  before(async () => {
    sim = await startUpgradeSim('happy-path');
  });
  after(async () => {
    await sim?.close();
  });

  /** A cache folder of its own, and ctl with it (not the suite's shared NODE_COMPILE_CACHE). */
  function withCache(): {
    dir: string;
    ctl(args: string[], env?: Record<string, string>): Promise<CtlResult>;
  } {
    cases += 1;
    const dir = path.join(sim.sandbox.dir, `cache-${cases}`);
    return {
      dir,
      ctl: (args, env = {}) =>
        runCtl(args, {
          env: { ...sim.env, XDG_CACHE_HOME: dir, NODE_COMPILE_CACHE: undefined, ...env },
          cwd: sim.sandbox.dir,
          timeoutMs: 90_000,
        }),
    };
  }

  /** Every cache file under `dir`, by its path below the build's folder (`upgrade-plan/main.cache`). */
  function cacheFiles(dir: string): Map<string, Buffer> {
    const files = new Map<string, Buffer>();
    const base = path.join(dir, 'ctl', 'compile-cache');
    if (!existsSync(base)) return files;
    for (const build of readdirSync(base).filter((name) => name.startsWith('scripts-')))
      for (const command of readdirSync(path.join(base, build)))
        for (const file of readdirSync(path.join(base, build, command)))
          files.set(`${command}/${file}`, readFileSync(path.join(base, build, command, file)));
    return files;
  }

  const checksOf = (result: CtlResult): unknown =>
    (JSON.parse(result.stdout) as { checks: Array<{ id: string; status: string }> }).checks.map((check) => [
      check.id,
      check.status,
    ]);

  it('the first plan writes a cache for its command; the next one uses it as it is', async () => {
    const { dir, ctl } = withCache();
    const first = await ctl(PLAN);
    assertExit(first, 0);
    const written = cacheFiles(dir);
    assert.ok(
      written.has('upgrade-plan/main.cache'),
      `a cache of main.js: ${[...written.keys()].join(', ')}`,
    );
    assert.ok(written.size > 10, `a cache of each file the plan read (${written.size})`);
    for (const [name, bytes] of written) {
      assert.equal(bytes.readUInt32LE(0), MAGIC, `${name}: the cache format's mark`);
      const data = bytes.subarray(12);
      assert.equal(bytes.readUInt32LE(8), data.length, `${name}: its length`);
      assert.equal(bytes.readUInt32LE(4), crc32(data), `${name}: its checksum`);
    }
    const base = path.join(dir, 'ctl', 'compile-cache');
    const [build] = readdirSync(base).filter((name) => name.startsWith('scripts-'));
    assert.match(
      build ?? '',
      /^scripts-[0-9a-f]{16}-v\d+\.\d+\.\d+-[a-z0-9]+$/,
      'one folder per build and Node',
    );
    const mtimes = [...written.keys()].map((name) => statSync(path.join(base, build!, name)).mtimeMs);

    const second = await ctl(PLAN);
    assertExit(second, 0);
    assert.deepEqual(checksOf(second), checksOf(first), 'the same plan');
    assert.deepEqual(cacheFiles(dir), written, 'the caches are read, not made again');
    assert.deepEqual(
      [...written.keys()].map((name) => statSync(path.join(base, build!, name)).mtimeMs),
      mtimes,
      'nor written again',
    );

    // Another command keeps its own (it calls other functions of the same files).
    assertExit(await ctl(['upgrade', 'steps']), 0);
    assert.ok(cacheFiles(dir).has('upgrade-steps/main.cache'), 'ctl upgrade steps has its own cache');
  });

  it('a first plan that fails early leaves a cache the next plan that ends well writes again, once', async () => {
    const { dir, ctl } = withCache();
    // No cluster in that namespace: the plan stops after its first reads.
    const failed = await ctl(['upgrade', 'plan', '--to', TARGET, '-n', 'no-cluster-here']);
    assertExit(failed, 2); // "no RedisEnterpriseCluster to upgrade", with the namespace that has one
    const early = cacheFiles(dir);
    const earlyMain = early.get('upgrade-plan/main.cache');
    assert.ok(earlyMain, `the failed plan wrote its caches: ${[...early.keys()].join(', ')}`);
    assert.ok(early.has('upgrade-plan/writer.cache'), 'and what its run reached');

    const planned = await ctl(PLAN);
    assertExit(planned, 0);
    const full = cacheFiles(dir);
    const fullMain = full.get('upgrade-plan/main.cache');
    assert.ok(
      fullMain && fullMain.length > earlyMain.length,
      `the whole plan's cache of main.js holds more of what it compiled: ${earlyMain.length} → ${fullMain?.length} bytes`,
    );
    assert.ok(
      full.size > early.size,
      `and caches of the files the failed plan did not read (${early.size} → ${full.size})`,
    );
    for (const [name, bytes] of full) {
      const data = bytes.subarray(12);
      assert.equal(bytes.readUInt32LE(0), MAGIC, `${name}: the cache format's mark`);
      assert.equal(bytes.readUInt32LE(4), crc32(data), `${name}: its checksum`);
    }
    const writer = JSON.parse(full.get('upgrade-plan/writer.cache')!.subarray(12).toString('utf8')) as {
      exit: number;
      scripts: number;
    };
    assert.equal(writer.exit, 0, 'the record names a run that ended well');
    assert.ok(writer.scripts > 10, `and the scripts it ran (${writer.scripts})`);

    // From then on the caches are kept as they are, whatever the next runs end with.
    assertExit(await ctl(PLAN), 0);
    const again = await ctl(['upgrade', 'plan', '--to', TARGET, '-n', 'no-cluster-here']);
    assertExit(again, 2);
    assert.deepEqual(cacheFiles(dir), full, 'neither a plan like it nor one that fails writes them again');
  });

  it('holds none of the run’s secrets: the password and the Kubernetes token', async () => {
    const { dir, ctl } = withCache();
    assertExit(await ctl(PLAN), 0);
    const password = sim.env.CTL_PASSWORD ?? '';
    const kubeToken = /token:\s*(\S+)/.exec(readFileSync(sim.cluster.kubeconfigPath, 'utf8'))?.[1] ?? '';
    assert.ok(password.length >= 8 && kubeToken.length >= 8, 'the simulator gives both secrets');
    const files = cacheFiles(dir);
    assert.ok(files.size > 0, 'a cache was written');
    for (const [name, bytes] of files) {
      for (const [what, secret] of [
        ['the password', password],
        ['the Kubernetes token', kubeToken],
      ] as const) {
        assert.equal(bytes.includes(Buffer.from(secret, 'utf8')), false, `${name} holds ${what}`);
        assert.equal(bytes.includes(Buffer.from(secret, 'utf16le')), false, `${name} holds ${what} (UTF-16)`);
      }
    }
  });

  it('a damaged cache is not used, the plan is the same, and the exit writes a sound one', async () => {
    const { dir, ctl } = withCache();
    const first = await ctl(PLAN);
    assertExit(first, 0);
    const base = path.join(dir, 'ctl', 'compile-cache');
    const [build] = readdirSync(base).filter((name) => name.startsWith('scripts-'));
    const main = path.join(base, build!, 'upgrade-plan', 'main.cache');
    const damaged = readFileSync(main);
    for (let at = 40; at < damaged.length; at += 97) damaged[at] = damaged[at]! ^ 0xff;
    writeFileSync(main, damaged);
    // And one cut short, as a full disk would leave it.
    const [other] = [...cacheFiles(dir).keys()].filter((name) => name !== 'upgrade-plan/main.cache');
    const short = path.join(base, build!, other!);
    writeFileSync(short, readFileSync(short).subarray(0, 100));

    const again = await ctl(PLAN);
    assertExit(again, 0);
    assert.deepEqual(checksOf(again), checksOf(first), 'the same plan');
    for (const file of [main, short]) {
      const bytes = readFileSync(file);
      assert.equal(bytes.readUInt32LE(4), crc32(bytes.subarray(12)), `${path.basename(file)} is sound again`);
    }
  });

  it("other builds' caches go after a day unused; a recent one stays (another checkout's)", async () => {
    const { dir, ctl } = withCache();
    const base = path.join(dir, 'ctl', 'compile-cache');
    const old = path.join(base, `scripts-0000000000000000-${process.version}-${process.arch}`);
    const recent = path.join(base, `scripts-1111111111111111-${process.version}-${process.arch}`);
    for (const folder of [old, recent]) {
      mkdirSync(path.join(folder, 'upgrade-plan'), { recursive: true });
      writeFileSync(path.join(folder, 'upgrade-plan', 'main.cache'), 'an older build\n');
    }
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    utimesSync(old, twoDaysAgo, twoDaysAgo);
    assertExit(await ctl(PLAN), 0);
    assert.equal(existsSync(old), false, 'the build unused for two days is gone');
    assert.equal(existsSync(path.join(recent, 'upgrade-plan', 'main.cache')), true, 'the recent one stays');
    const ours = readdirSync(base).filter(
      (name) => name.startsWith('scripts-') && name !== path.basename(recent),
    );
    assert.equal(
      ours.length,
      1,
      `this build's folder beside the recent one: ${readdirSync(base).join(', ')}`,
    );
    assert.ok(
      existsSync(path.join(base, ours[0]!, 'upgrade-plan', 'main.cache')),
      "this build's cache is written",
    );
  });

  it('NODE_DISABLE_COMPILE_CACHE=1 writes none; a cache folder that cannot be made changes nothing', async () => {
    const off = withCache();
    const plain = await off.ctl(PLAN, { NODE_DISABLE_COMPILE_CACHE: '1' });
    assertExit(plain, 0);
    assert.equal(cacheFiles(off.dir).size, 0, 'no cache with NODE_DISABLE_COMPILE_CACHE=1');

    const blocked = withCache();
    mkdirSync(path.dirname(blocked.dir), { recursive: true });
    writeFileSync(blocked.dir, 'a file where the cache folder would be\n');
    const result = await blocked.ctl(PLAN);
    assertExit(result, 0);
    assert.deepEqual(checksOf(result), checksOf(plain), 'the same plan');
    assert.equal(result.stderr, plain.stderr, 'and nothing more on stderr');
  });
});
