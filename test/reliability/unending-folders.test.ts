/**
 * Paths given to ctl whose folder cannot be made, where Node's own recursive mkdir never returns
 * (under procfs: it makes the parent again, finds it, tries the child again, for ever). The BUILT
 * `ctl upgrade run` with `--report` or `--state` there ended its dry run and then spun at full CPU
 * until killed; `ctl sim up --dir` there never returned either. Now each ends, exit 1, naming the
 * path and what to do (src/io/make-directories.ts).
 */

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { assertExit, TARGET, withUpgradeSim } from '../e2e/upgrade-support.js';
import { runCtl } from '../helpers/run-ctl.js';

describe('a --report or --state folder that cannot be made ends the run (procfs)', () => {
  it(
    '--report and --state under /proc/self: exit 1, the path and the hint',
    { timeout: 240_000 },
    async () => {
      assert.ok(existsSync('/proc/self'), 'this test needs Linux procfs (/proc/self)');
      await withUpgradeSim('happy-path', async (sim) => {
        // A hang guard, not a speed target: each command ends well within it.
        const report = await sim.ctl(
          [
            'upgrade',
            'run',
            '--to',
            TARGET,
            '--dry-run',
            '--yes',
            '--report',
            '/proc/self/ctl-x/report.json',
          ],
          { timeoutMs: 60_000 },
        );
        assertExit(report, 1, 'a dry run with --report under /proc/self');
        assert.match(report.stderr, /dry run complete: nothing was changed/);
        assert.match(
          report.stderr,
          /error: cannot write the report \/proc\/self\/ctl-x\/report\.json: ENOENT/,
        );
        assert.match(report.stderr, /hint: Check that the folder of --report exists or can be created/);

        const state = await sim.ctl(
          ['upgrade', 'run', '--to', TARGET, '--yes', '--state', '/proc/self/ctl-x/state.json'],
          {
            timeoutMs: 60_000,
          },
        );
        assertExit(state, 1, 'a run with --state under /proc/self');
        assert.match(
          state.stderr,
          /cannot create the folder of \/proc\/self\/ctl-x\/state\.json\.lock: ENOENT/,
        );
        assert.match(state.stderr, /hint: Pass a state file in a folder you can write with --state\./);
        const operator = await sim.kubectl([
          'get',
          'deployment',
          '-n',
          'redis',
          '-o',
          'jsonpath={.items[0].spec.template.spec.containers[0].image}',
        ]);
        assert.doesNotMatch(operator, new RegExp(TARGET.replaceAll('.', '\\.')), 'nothing was changed');
      });
    },
  );

  it(
    'ctl sim up --dir under /proc/self: exit 1 naming the folder, before any server starts',
    { timeout: 120_000 },
    async () => {
      assert.ok(existsSync('/proc/self'), 'this test needs Linux procfs (/proc/self)');
      const up = await runCtl(['sim', 'up', '--dir', '/proc/self/ctl-x'], { timeoutMs: 60_000 });
      assertExit(up, 1, 'ctl sim up --dir under /proc/self');
      assert.match(up.stderr, /error: cannot create --dir \/proc\/self\/ctl-x: ENOENT/);
      assert.match(up.stderr, /hint: Pass --dir a folder you can create and write\./);
    },
  );

  it(
    'a cache folder (XDG_CACHE_HOME) under /proc/self: the command runs as without a cache',
    { timeout: 120_000 },
    async () => {
      assert.ok(existsSync('/proc/self'), 'this test needs Linux procfs (/proc/self)');
      // bin/ctl.js enables Node's compile cache there and bin/load-bundle.js writes the code cache
      // of whole runs there at exit: each made its folder with Node's recursive mkdir, and the
      // command never ended. A hang guard, not a speed target.
      const env = { XDG_CACHE_HOME: '/proc/self/ctl-cache', NODE_COMPILE_CACHE: undefined };
      const completion = await runCtl(['completion', 'bash'], { env, timeoutMs: 60_000 });
      assertExit(completion, 0, 'ctl completion bash with XDG_CACHE_HOME under /proc/self');
      assert.match(completion.stdout, /complete\b/, 'the completion script is printed');
      assert.equal(completion.stderr, '', 'no error about the cache: ctl runs without one');
    },
  );
});
