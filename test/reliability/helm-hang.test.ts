/**
 * helm, bounded. `ctl upgrade plan` asks the helm client its version (check helm-available) with a deadline
 * (src/exec/helm-probe.ts). A helm that is a wrapper (a version manager's shim, a script) whose
 * own child hangs kept stdout open after the wrapper was stopped at that deadline, and the plan
 * waited for the pipe for ever. Now the probe's whole process group is killed at the deadline:
 * the plan ends with the check's warning, and nothing the wrapper started is left running.
 * In the run, helm had no deadline at all (src/exec/helm.ts HELM_DEADLINES): a `helm upgrade`
 * that never answered held the operator step for ever.
 */

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { HELM_DEADLINES } from '../../src/exec/helm.js';
import { helmPath } from '../helpers/tools.js';
import { figure, fixturePath, runOnBed, startBed, STACK_TRACE, TARGET, UPGRADE } from './support.js';
import { alive } from '../helpers/processes.js';

/** The probe's deadline in src/exec/helm-probe.ts, shortened for the test (deadline-preload.ts). */
const PROBE_TIMEOUT_MS = 15_000;

describe('a helm that hangs', () => {
  test('a wrapper whose child never ends: the plan ends at the probe deadline, the child is stopped', async () => {
    const bed = await startBed('helm-installed');
    try {
      const pids = path.join(bed.dir, 'helm-pids');
      writeFileSync(pids, '');
      const wrapper = path.join(bed.dir, 'helm-wrapper-hanging');
      // Not `exec sleep`: the shell waits for its child, which holds the wrapper's stdout.
      writeFileSync(wrapper, `#!/bin/sh\necho $$ >> "${pids}"\nsleep 600 &\necho $! >> "${pids}"\nwait\n`, {
        mode: 0o755,
      });
      const started = Date.now();
      const result = await runOnBed(bed, ['upgrade', 'plan', '--to', TARGET, '--helm-bin', wrapper], {
        preload: fixturePath('deadline-preload.js'),
        env: { CTL_TEST_DEADLINE_FROM: String(PROBE_TIMEOUT_MS), CTL_TEST_DEADLINE_TO: '1500' },
        // A hang guard naming what it waited for: the plan, which waited for the pipe for ever.
        timeoutMs: 60_000,
      });
      const elapsed = Date.now() - started;
      assert.doesNotMatch(result.stderr, STACK_TRACE);
      assert.match(
        result.stdout,
        /warn\s+helm-available\s+cannot read the version of .*helm-wrapper-hanging \(no answer to helm version in 15 s\)/,
      );
      assert.ok([0, 3].includes(result.code ?? -1), `exit ${result.code}: ${result.stderr.slice(-1500)}`);
      const recorded = readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number);
      assert.ok(recorded.length >= 2, 'the wrapper ran and started its child');
      const until = Date.now() + 5_000;
      while (recorded.some(alive) && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(recorded.filter(alive), [], 'the wrapper and its child are stopped');
      figure(
        `a hanging helm wrapper: the plan ended in ${elapsed} ms (deadline shortened to 1.5 s), 0 processes left`,
      );
    } finally {
      await bed.close();
    }
  });
});

describe('a helm upgrade that hangs in the run', () => {
  test('the operator step fails at the deadline naming helm, helm is stopped, and the run resumes to the end', async () => {
    const bed = await startBed('helm-installed');
    try {
      const pids = path.join(bed.dir, 'upgrade-pids');
      writeFileSync(pids, '');
      const wrapper = path.join(bed.dir, 'helm-hanging-on-upgrade');
      // Every helm command runs, but `upgrade` waits for ever (an API server that never answers).
      writeFileSync(
        wrapper,
        `#!/bin/sh\ncase " $* " in *" upgrade "*) echo $$ >> "${pids}"; exec sleep 600;; esac\nexec "${helmPath(3)}" "$@"\n`,
        { mode: 0o755 },
      );
      const started = Date.now();
      const hung = await runOnBed(bed, [...UPGRADE, '--helm-bin', wrapper], {
        preload: fixturePath('deadline-preload.js'),
        env: { CTL_TEST_DEADLINE_FROM: String(HELM_DEADLINES.changeMs), CTL_TEST_DEADLINE_TO: '1500' },
        // A hang guard naming what it waited for: the run, which waited for helm for ever.
        timeoutMs: 90_000,
      });
      const elapsed = Date.now() - started;
      assert.equal(hung.code, 1, hung.stderr.slice(-1500));
      assert.match(hung.stderr, /helm upgrade gave no answer within 900 s; ctl stopped it/);
      assert.doesNotMatch(hung.stderr, STACK_TRACE);
      const recorded = readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number);
      assert.ok(recorded.length >= 1, 'helm upgrade ran');
      const until = Date.now() + 5_000;
      while (recorded.some(alive) && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(recorded.filter(alive), [], 'helm upgrade is stopped');
      // With a helm that answers, the same state resumes and finishes.
      const resumed = await runOnBed(bed, [...UPGRADE, '--helm-bin', helmPath(3)]);
      assert.equal(resumed.code, 0, resumed.stderr.slice(-1500));
      figure(
        `a hanging helm upgrade: the run failed in ${elapsed} ms (deadline shortened to 1.5 s), resumed to the end`,
      );
    } finally {
      await bed.close();
    }
  });
});
