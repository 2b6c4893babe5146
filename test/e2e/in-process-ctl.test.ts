import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { type LoadBundle, runCtlInProcess, tokenEntryRuns } from '../helpers/in-process-ctl.js';
import { ctlEnv, repoRoot } from '../helpers/run-ctl.js';
import { testProcessEnv } from '../helpers/test-env.js';
import { assertExit, SharedUpgradeSim, TARGET } from './upgrade-support.js';

/**
 * The suite's in-process ctl (test/helpers/in-process-ctl.ts) stands in for a process of ctl in
 * most tests: these check that it is one as far as those tests can tell. Its modules are its
 * own, it reads only the environment it is given and the folder it is run in, and it leaves
 * nothing open behind it.
 */

describe('ctl in the test process (test/helpers/in-process-ctl.ts)', () => {
  const shared = new SharedUpgradeSim('happy-path');
  after(() => shared.close());

  it('each load runs the bundle anew: its own modules, the compiled scripts shared', async () => {
    const { loadBundle } = (await import(
      pathToFileURL(path.join(repoRoot, 'bin', 'load-bundle.js')).href
    )) as {
      loadBundle: LoadBundle;
    };
    const main = path.join(repoRoot, 'dist', 'bundle', 'main.js');
    const compiled = new Map<string, unknown>();
    const first = loadBundle(main, ['upgrade', 'plan'], {}, compiled);
    const scripts = new Map(compiled);
    assert.ok(scripts.has(main), 'main.js was compiled once and kept');
    const second = loadBundle(main, ['upgrade', 'plan'], {}, compiled);
    assert.equal(typeof first.main, 'function');
    assert.notEqual(second.main, first.main, 'the second load has its own module instances');
    for (const [file, script] of scripts) assert.equal(compiled.get(file), script, `${file} compiled once`);
  });

  it("reads the environment it is given, never the test process's", async () => {
    await shared.use('a plan with a misleading process environment', async (sim) => {
      const before = { ...process.env };
      // What a developer's shell may hold: another cluster, a proxy that answers nothing.
      Object.assign(process.env, {
        KUBECONFIG: path.join(sim.sandbox.dir, 'no-such-kubeconfig'),
        CTL_API_URL: 'https://127.0.0.1:9',
        CTL_PASSWORD: 'not-the-password',
        HTTPS_PROXY: 'http://127.0.0.1:9',
        CTL_HELM: '/nonexistent/helm',
      });
      try {
        assertExit(await sim.ctl(['upgrade', 'plan', '--to', TARGET]), 0, 'plan with the given environment');
        // And the other way round: the process's own KUBECONFIG is no kubeconfig of ctl's.
        process.env.KUBECONFIG = sim.env.KUBECONFIG;
        const withoutOne = await runCtlInProcess(['upgrade', 'plan', '--to', TARGET], {
          env: { ...sim.env, KUBECONFIG: path.join(sim.sandbox.dir, 'missing') },
          cwd: sim.sandbox.dir,
        });
        assert.notEqual(withoutOne.code, 0, `a plan without a kubeconfig of its own:\n${withoutOne.stderr}`);
      } finally {
        for (const key of Object.keys(process.env)) if (!(key in before)) delete process.env[key];
        Object.assign(process.env, before);
      }
    });
  });

  it('reads a relative path against its folder, then gives the test its folder back', async () => {
    await shared.use('a plan written to a relative path', async (sim) => {
      const folder = process.cwd();
      const result = await sim.ctl(['upgrade', 'plan', '--to', TARGET, '-o', 'json', '--out', 'plan.json']);
      assertExit(result, 0, 'plan --out plan.json');
      const written = path.join(sim.sandbox.dir, 'plan.json');
      assert.ok(existsSync(written), 'the plan is in the folder ctl was run in');
      assert.equal(JSON.parse(readFileSync(written, 'utf8')).target?.operator, TARGET);
      assert.equal(process.cwd(), folder, "the test process's folder is its own again");
    });
  });

  it("a ctl spawned beside a run gets the test's HOME and TMPDIR, not the run's sandbox", async () => {
    await shared.use('a plan with a ctl spawned beside it', async (sim) => {
      // A test beside a run in the same file gives a ctl it spawns the test's own environment:
      // the run's HOME (its sandbox) would send that ctl's cache into a folder the run's test
      // removes when it ends, and leave it there.
      const testTmp = tmpdir();
      let seen: { home: string | undefined; tmp: string | undefined; tmpdir: string } | undefined;
      let ended = false;
      const plan = sim.ctl(['upgrade', 'plan', '--to', TARGET]).finally(() => (ended = true));
      while (!ended && seen === undefined) {
        if (process.env.HOME === sim.env.HOME) {
          const env = ctlEnv();
          seen = { home: env.HOME, tmp: env.TMPDIR, tmpdir: tmpdir() };
        }
        await new Promise((resolveTurn) => setImmediate(resolveTurn));
      }
      assertExit(await plan, 0, 'the plan');
      assert.ok(seen, "the run's environment was the process's while it ran");
      assert.equal(seen.home, testProcessEnv.HOME);
      assert.notEqual(seen.home, sim.env.HOME);
      assert.equal(seen.tmp, testProcessEnv.TMPDIR);
      assert.equal(seen.tmpdir, testTmp, "the test's temporary folder stays its own during the run");
    });
  });

  it("runs `auth token` with the token's own entry, as bin/ctl.js does, and anything else with the whole tree", async () => {
    await shared.use('tokens', async (sim) => {
      const before = tokenEntryRuns();
      const token = await sim.ctl(['auth', 'token', '--ttl', '600']);
      assertExit(token, 0, 'auth token');
      assert.match(token.stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/, 'one JWT');
      assert.equal(tokenEntryRuns(), before + 1, "the token's own entry ran it");
      // -o yaml is the whole tree's (src/cli/token-scope.ts): the same token, another entry.
      const yaml = await sim.ctl(['auth', 'token', '--ttl', '600', '-o', 'yaml']);
      assertExit(yaml, 0, 'auth token -o yaml');
      assert.equal(tokenEntryRuns(), before + 1, 'the whole tree ran -o yaml');
    });
  });

  it('leaves no connection open: the test process holds no more handles after ten plans', async () => {
    await shared.use('ten plans', async (sim) => {
      const handles = () =>
        (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().length;
      assertExit(await sim.ctl(['upgrade', 'plan', '--to', TARGET]), 0, 'the first plan');
      const after = handles();
      for (let i = 0; i < 10; i += 1)
        assertExit(await sim.ctl(['upgrade', 'plan', '--to', TARGET]), 0, `plan ${i}`);
      // A closed socket leaves the list a moment after; anything a run kept would be 10 or more.
      assert.ok(handles() < after + 5, `handles ${after} -> ${handles()}`);
    });
  });
});
