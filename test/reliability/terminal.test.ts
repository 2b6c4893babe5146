/**
 * Any terminal (docs/reliability.md guarantee 11; issues 28 and 34), in a real pseudo-terminal
 * (util-linux `script`):
 * - A pty that reports 0 columns and 0 rows gets plain progress lines, and the run ends.
 * - At a terminal of 120x40 (80x24 for the two-hop run) a run takes about the time of the same
 *   run piped and writes a bounded number of bytes: a two-hop run, an OLM run, an Active-Active run, the demo and a resize mid-step
 *   (a fan-out over 1,000 databases: terminal-fan-out.test.ts) (before issue 34, hop 2 stalled while the spinner wrote
 *   0.7 MB a second). Each run's piped twin runs in the same test, on its own fresh cluster.
 * - SIGTERM and Ctrl-C mid-step leave a resumable state and a clean terminal; a narrow terminal
 *   gets frames that fit; TERM=dumb gets plain lines.
 *
 * The scenarios are the built-in ones renamed (another name, namespace and cluster), so no
 * name of this repository's scenarios is what makes them pass.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ctlBin } from '../helpers/run-ctl.js';
import { assertTerminalLeftClean, requirePty, runInPty, runPiped } from './pty.js';
import { figure, readState, runOnBed, startBed, type Bed, UPGRADE } from './support.js';
import { assertReadinessForward, compare, judge, renamed } from './terminal-compare.js';

const TWO_HOPS = ['upgrade', 'run', '--to', '8.2.0-18', '--yes'];

/**
 * Simulated waits long enough to watch a step live: the rolling upgrade of the 3 pods takes 3 s
 * (a frame each 100 ms, src/io/live-region.ts FRAME_MS) and the databases' step 1 s after it, so a
 * resize or a signal sent on seeing the monitor step lands in it, or at worst in the step after.
 * The scenario's own timing (10 s a run) only made each run longer.
 */
const LIVE_TIMING = { operatorStart: 0.5, podRestart: 1, databaseUpgrade: 0.3 };

describe('any terminal', () => {
  test('two hops at an 80x24 terminal: the time of the piped run, bounded bytes, true progress', async () => {
    const { pty } = await compare('two hops', 'old-operator', TWO_HOPS, {
      edit: renamed('hops'),
      size: { columns: 80, rows: 24 },
    });
    assert.match(pty.output, /starting hop 2\/2/);
    assert.match(pty.output, /upgrade to 8\.2\.0-18 complete/);
    // Each step's last line says what it did, in each hop.
    assert.match(pty.output, /✔\u001b\[39m Upgrade the operator: operator 7\.4\.6-12 running and ready/);
    assert.match(pty.output, /✔\u001b\[39m Upgrade the operator: operator 8\.2\.0-18 running and ready/);
    assert.match(pty.output, /Upgrade the databases: 2 upgraded/);
    assertReadinessForward(pty.output, 'two hops');
  });

  test('an OLM run at a terminal', async () => {
    // olm-manual runs OpenShift 4.18, where OperatorHub no longer offers 7.8.2-6.8 (v4.12-v4.16).
    const toOffered = ['upgrade', 'run', '--to', '7.8.6-20', '--yes'];
    // OLM's status after the channel switch: ctl may wait for it in one twin and not the other
    // (src/steps/operator-olm-offer.ts, SWITCH_SETTLE_MS; one run 8.9 s against 1.2 s piped).
    const { pty } = await compare('OLM', 'olm-manual', toOffered, {
      edit: renamed('olm'),
      ownWaitMs: 10_000,
    });
    assert.match(pty.output, /upgrade to 7\.8\.6-20 complete/);
    assertReadinessForward(pty.output, 'OLM');
  });

  test('an Active-Active run at a terminal: its warnings written between the live lines', async () => {
    // Not a built-in scenario: an REAADB whose one participant runs a current RS.
    const dir = mkdtempSync(path.join(tmpdir(), 'ctl-pty-aa-'));
    try {
      const file = path.join(dir, 'pty-active-active.yaml');
      writeFileSync(
        file,
        [
          'name: pty-active-active',
          'description: "An REAADB with a participant on another cluster, at a terminal"',
          'dialect: redis',
          'namespace: geo-shop',
          'operator: { version: 7.22.2-40 }',
          'cluster: { name: geo-rec, versionTag: 7.22.2-133, apiVersion: 7.22.2-133 }',
          'remoteClusters:',
          '  - { name: rerc-west, rsVersion: 8.0.20-108 }',
          'databases:',
          '  - { name: carts, version: "7.4" }',
          '  - { name: places, version: "7.4", activeActive: true, participants: [rerc-west] }',
          '',
        ].join('\n'),
      );
      const { pty } = await compare('Active-Active', file, ['upgrade', 'run', '--to', '8.0.20-27', '--yes']);
      assert.match(pty.output, /upgrade to 8\.0\.20-27 complete/);
      assert.match(pty.output, /crdb-cli crdb update --crdb-guid \S+ --featureset-version yes/);
      assert.match(pty.output, /Upgrade the databases: 2 upgraded/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('as the kubectl plugin at a terminal: the same time and bytes as piped, named kubectl rec', async () => {
    // The package's second executable: ctl knows it runs as `kubectl rec` from its own name.
    const dir = mkdtempSync(path.join(tmpdir(), 'ctl-pty-plugin-'));
    try {
      const entry = path.join(dir, 'kubectl-rec');
      symlinkSync(ctlBin, entry);
      const dryRun = ['upgrade', 'run', '--to', '7.8.2-6', '--dry-run'];
      const { pty, piped } = await compare('kubectl rec', 'happy-path', dryRun, {
        edit: renamed('plugin'),
        entry,
      });
      // A check's fix names the plugin and the kubeconfig the run was given (KUBECONFIG here).
      assert.match(pty.output, /kubectl rec --kubeconfig \S+ upgrade plan --to/);
      assert.doesNotMatch(pty.output, /\bctl (--kubeconfig \S+ )?upgrade/);
      assert.match(piped.stderr, /kubectl rec --kubeconfig \S+ upgrade plan --to/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the demo at a terminal', async () => {
    const dirs = [0, 1].map(() => mkdtempSync(path.join(tmpdir(), 'ctl-pty-demo-')));
    try {
      const env = (dir: string) => ({ HOME: dir, XDG_STATE_HOME: path.join(dir, 'state') });
      // Side by side, as compare() runs the twins of a run that is mostly simulated waits.
      const [pty, piped] = await Promise.all([
        runInPty(['demo'], { env: env(dirs[0]!), cwd: dirs[0]! }),
        runPiped(['demo'], { env: env(dirs[1]!), cwd: dirs[1]! }),
      ]);
      judge('demo', { pty, piped });
      assert.match(pty.output, /complete/);
    } finally {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a resize (SIGWINCH) mid-step: redrawn at the new width, the run unaffected', async () => {
    let resized = -1;
    const { pty } = await compare('resize', 'happy-path', UPGRADE, {
      edit: renamed('winch'),
      timing: LIVE_TIMING,
      sideBySide: true,
      watch: (output, control) => {
        if (resized < 0 && output.includes('Wait for the rolling upgrade')) {
          resized = output.length;
          void control.resize(50, 20);
        }
      },
    });
    assert.ok(resized > 0, 'the monitor step was seen, so the terminal was resized during it');
    // Every frame drawn after the resize fits 50 columns (one spare).
    const frames = [...pty.output.slice(resized).matchAll(/\u001b\[\?7l\r([^]*?)\u001b\[\?7h/g)];
    assert.ok(frames.length > 0, 'frames were drawn after the resize');
    const last = frames.at(-1)![1]!;
    for (const line of last.split('\n')) {
      const visible = line.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
      assert.ok([...visible].length <= 49, `a line wider than the terminal: ${JSON.stringify(visible)}`);
    }
  });

  // Without a comparison of times: each its own cluster and pty, side by side (most of their
  // time is simulated waits and the resumed run).
  describe('signals, sizes and TERM', { concurrency: true }, () => {
    test('a run on a pty with 0 columns and 0 rows ends, with bounded output', async () => {
      const bed = await startBed('happy-path', { edit: renamed('zero') });
      try {
        const run = await runInPty(UPGRADE, {
          env: bed.env,
          cwd: bed.dir,
          columns: 0,
          rows: 0,
          timeoutMs: 90_000,
        });
        figure(`0-column pty: upgrade run exit ${run.code}, ${run.bytes} bytes in ${run.ms} ms`);
        assert.equal(run.killed, undefined, `${run.killed}:\n${run.output.slice(-2000)}`);
        assert.equal(run.code, 0, run.output.slice(-2000));
        assert.ok(run.bytes < 256 * 1024, `${run.bytes} bytes written`);
        assert.match(run.output, /upgrade to 7\.8\.2-6 complete/);
        assert.doesNotMatch(run.output, /\u001b\[\?7l/, 'plain lines, no live region');
      } finally {
        await bed.close();
      }
    });

    // 80x24, the size a terminal opens at: the monitor step's long title is cut there so that its
    // elapsed time and pod count stay on the line (src/io/progress.ts, fitTitle).

    test('SIGTERM mid-step: exit 143, a resumable state, the terminal left clean (NO_COLOR)', async () => {
      requirePty();
      const bed: Bed = await startBed('happy-path', { edit: renamed('term'), timing: LIVE_TIMING });
      try {
        let sent = false;
        const run = await runInPty(UPGRADE, {
          env: { ...bed.env, NO_COLOR: '1' },
          cwd: bed.dir,
          watch: (output, control) => {
            if (!sent && output.includes('Wait for the rolling upgrade')) {
              sent = true;
              control.signal('SIGTERM');
            }
          },
        });
        figure(`pty SIGTERM mid-step: exit ${run.code}, ${run.bytes} bytes in ${run.ms} ms`);
        assert.ok(sent, 'the monitor step was seen');
        assert.equal(run.killed, undefined, `${run.killed}:\n${run.output.slice(-2000)}`);
        assert.equal(run.code, 143, run.output.slice(-2000));
        assertTerminalLeftClean(run.output, 'SIGTERM');

        assert.doesNotMatch(run.output, /\u001b\[\d+(;\d+)*m/, 'NO_COLOR: no colour codes');
        assert.match(run.output, /\u001b\[\?7l/, 'NO_COLOR still animates');
        assert.equal(readState(bed.statePath).steps.monitor?.status, 'in-progress');
        const resumed = await runOnBed(bed, UPGRADE, { timeoutMs: 120_000 });
        assert.equal(resumed.code, 0, resumed.stderr);
        assert.match(resumed.stderr, /resuming the upgrade to 7\.8\.2-6/);
      } finally {
        await bed.close();
      }
    });

    test('Ctrl-C (SIGINT) mid-step: exit 130, the cursor shown, no frame left', async () => {
      const bed = await startBed('happy-path', { edit: renamed('intr'), fast: false });
      try {
        let sent = false;
        const run = await runInPty(UPGRADE, {
          env: bed.env,
          cwd: bed.dir,
          watch: (output, control) => {
            if (!sent && output.includes('Upgrade the cluster')) {
              sent = true;
              control.signal('SIGINT');
            }
          },
        });
        assert.ok(sent, 'the cluster step was seen');
        assert.equal(run.killed, undefined, `${run.killed}:\n${run.output.slice(-2000)}`);
        assert.equal(run.code, 130, run.output.slice(-2000));
        assert.match(run.output, /SIGINT received: stopping and saving the state/);
        assertTerminalLeftClean(run.output, 'SIGINT');
      } finally {
        await bed.close();
      }
    });

    test('Ctrl-C at the question: exit 130 at once, nothing changed, no "unexpected failure"', async () => {
      const bed = await startBed('happy-path', { edit: renamed('ask'), fast: false });
      try {
        let typed = false;
        // No --yes: at a terminal the run asks; readline reads the Ctrl-C byte itself (raw mode).
        const run = await runInPty(['upgrade', 'run', '--to', '7.8.2-6'], {
          env: bed.env,
          cwd: bed.dir,
          keyboard: true,
          timeoutMs: 60_000,
          watch: (output, control) => {
            if (!typed && output.includes('[y/N]')) {
              typed = true;
              control.type('\u0003');
            }
          },
        });
        assert.ok(typed, 'the question was asked');
        assert.equal(run.killed, undefined, `${run.killed}:\n${run.output.slice(-2000)}`);
        assert.equal(run.code, 130, run.output.slice(-2000));
        assert.match(run.output, /interrupted by SIGINT at the question: nothing was changed/);
        assert.doesNotMatch(run.output, /unexpected failure|Aborted with|unsettled/);
        assert.equal(bed.changes.versionTag, 0, 'nothing changed');
      } finally {
        await bed.close();
      }
    });

    test('a narrow terminal (30 columns): every frame fits, the run ends', async () => {
      const bed = await startBed('happy-path', { edit: renamed('narrow'), timing: LIVE_TIMING });
      try {
        const run = await runInPty(UPGRADE, { env: bed.env, cwd: bed.dir, columns: 30, rows: 10 });
        assert.equal(run.code, 0, run.output.slice(-2000));
        assertTerminalLeftClean(run.output, 'narrow');
        const frames = [...run.output.matchAll(/\u001b\[\?7l\r([^]*?)\u001b\[\?7h/g)];
        assert.ok(frames.length > 0, 'the live lines were drawn');
        for (const [, frame] of frames) {
          for (const line of frame!.split('\n')) {
            const visible = line.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
            assert.ok([...visible].length <= 29, `wider than 30 columns: ${JSON.stringify(visible)}`);
          }
        }
      } finally {
        await bed.close();
      }
    });

    test('TERM=dumb: plain lines, no escape sequence at all', async () => {
      const bed = await startBed('happy-path', { edit: renamed('dumb') });
      try {
        const run = await runInPty(UPGRADE, { env: { ...bed.env, TERM: 'dumb' }, cwd: bed.dir });
        assert.equal(run.code, 0, run.output.slice(-2000));
        assert.doesNotMatch(run.output, /\u001b/);
        assert.match(run.output, /\[monitor\]/);
      } finally {
        await bed.close();
      }
    });
  });
});
