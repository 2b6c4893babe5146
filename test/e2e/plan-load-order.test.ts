import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCtl } from '../helpers/run-ctl.js';
import { assertExit, startUpgradeSim, TARGET, type UpgradeSim } from './upgrade-support.js';

const PRELOAD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'load-order-preload.js');

/**
 * What keeps a plan's start-up short (docs/performance.md, "The plan's modules as one group"),
 * checked without a clock: the BUILT ctl plans against the simulated cluster with a preload that
 * records each file of the bundle Node loads and each connection, in order. The plan's modules
 * load as one group (scripts/bundle.mjs) before its first request; a module added to the plan's
 * path without joining the group shows here as a file read after the requests have gone out.
 */
describe('ctl upgrade plan reads its code before its first request (e2e)', () => {
  let sim: UpgradeSim;
  before(async () => {
    sim = await startUpgradeSim('happy-path');
  });
  after(async () => {
    await sim?.close();
  });

  it('-o json: after the first connection, only the management API transport is read; no child_process', async () => {
    const record = path.join(sim.sandbox.dir, 'load-order.txt');
    const result = await runCtl(['upgrade', 'plan', '--to', TARGET, '-o', 'json'], {
      env: { ...sim.env, CTL_TEST_LOAD_ORDER: record },
      cwd: sim.sandbox.dir,
      preload: PRELOAD,
      timeoutMs: 90_000,
    });
    assertExit(result, 0);
    const events = readFileSync(record, 'utf8').trim().split('\n');
    const loads = events.filter((event) => event.startsWith('load '));
    assert.ok(
      loads.some((event) => /^load chunks\/plan-group-[\w-]+\.js$/.test(event)),
      `the plan loads the group's entry:\n${events.join('\n')}`,
    );
    const first = events.indexOf('connect');
    assert.ok(first > 0, `the plan opens connections after loading its code:\n${events.join('\n')}`);
    // src/api/http.ts loads the https transport when the management API session opens; it is
    // `ctl auth token`'s module too, which stays out of the group (one small file).
    const late = events
      .slice(first)
      .filter((event) => event.startsWith('load ') && !/^load chunks\/node-https-[\w-]+\.js$/.test(event));
    assert.deepEqual(late, [], `files read after the first connection:\n${events.join('\n')}`);
    // child_process (and dgram with it) only when something is spawned: a kubeconfig's exec
    // plugin, helm. The bundle gives it on first call to commander and client-node, and
    // src/kube/exec-plugin.ts takes it when a plugin runs (docs/performance.md).
    const spawning = events.filter((event) => /^builtin (child_process|dgram)$/.test(event));
    assert.deepEqual(spawning, [], `a plan without a credential plugin loads no child_process`);
  });
});
